"""`python -m auditor`: the `auditor` command (`auditor.launch`)."""

if __name__ == "__main__":
    from auditor.launch import main

    main()
