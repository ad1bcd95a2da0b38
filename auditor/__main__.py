"""`python -m auditor`: the `auditor` command."""

if __name__ == "__main__":
    from auditor.cli import main

    main()
