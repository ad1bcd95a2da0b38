"""The bottom layer: the data types every stage shares, and nothing that does a stage's work.

Layers go one way: model < ingest < replay < check < report, with `auditor.engines`,
`auditor.pipeline` and `auditor.cli` orchestrating them (`tests/test_layers.py` holds the rule). A type
that two stages exchange lives here, so neither has to import the other: the canonical tables and reader
records (`tables`, `records`) that readers make and the replay reads; pots (`pots`), which the PHH reader,
the exporters, the replay and the simulator all build; the input files a run reads (`inputs`); and what a
run returns to the reports (`results`, `periods`); and the one reading of plain UTC times from Arrow bytes that
the replay's walk and the run's periods share (`times`). A module here imports no other auditor package.
"""
