"""Schema validation of one canonical hand, with a one-line reason a person can act on."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from auditor.paths import SCHEMA_DIR


@cache
def hand_validator() -> jsonschema.protocols.Validator:
    schema = json.loads((SCHEMA_DIR / "hand-log.schema.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def schema_error(hand: Any) -> str | None:
    """None if the hand is valid, else the most specific error as `at <path>: <message>`."""
    error = jsonschema.exceptions.best_match(hand_validator().iter_errors(hand))
    if error is None:
        return None
    path = "/".join(str(p) for p in error.absolute_path) or "(hand)"
    message = error.message
    if len(message) > 200:
        message = message[:197] + "..."
    return f"schema: at {path}: {message}"


def load_json_schema(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))
