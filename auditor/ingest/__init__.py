"""Readers: every supported format in, canonical hands (`schemas/hand-log.schema.json`) out.

Readers record; rules judge. A reader writes into the canonical log exactly what the text
says happened, legal or not, and refuses a hand (a `Quarantined` entry, with a code from
`records.QUARANTINE_CODES`) only when the canonical log cannot represent it:

- a game, variant or betting structure the log and engine do not have (`unsupported-game`), or a
  feature of the hand it cannot hold, such as run it twice or a cash-out (`unsupported-feature`);
- text that is damaged, truncated or cancelled (`damaged`, `truncated`, `cancelled`), or a record
  that breaks its own format's schema (`invalid-record`);
- amounts that cannot be placed consistently, such as a bet of more chips than the player has
  (`inconsistent-amounts`);
- input past a limit (`limit`, `limits.py`), and the reader's own failure (`internal-error`).

Anything merely illegal is never a reason to refuse: a check facing a bet, an action after folding
or going all-in or out of turn, a board of the wrong size, more or fewer replacement cards than
discards, a seat used twice, a card dealt twice, an uncalled bet returned that was never bet, a
player dealt in while sitting out. Refusing it would hide the very violation the audit exists to
find ("could not be read" instead of a finding); recorded, it replays and a rule reports it.

Every reader's module docstring repeats this and lists exactly what that reader still refuses,
with the code and why; `docs/readers.md` collects those lists in one table per reader.
"""
