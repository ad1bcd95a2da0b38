"""Schema validation of one canonical hand, with a one-line reason a person can act on.

Hands are validated with jsonschema-rs (a compiled JSON Schema 2020-12 validator): the Python
`jsonschema` package took 23 ms per hand on this schema, about 1,000 times slower, which would make
validation the whole cost of an audit. `jsonschema` still checks the schemas themselves and the rule
packs, where speed does not matter.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

from auditor.resources import schema_path

MAX_REASON = 200


def load_json_schema(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def hand_validator() -> Any:
    schema = load_json_schema(schema_path("hand-log.schema.json"))
    return jsonschema_rs.validator_for(schema, validate_formats=True)


def first_error(validator: Any, instance: Any, prefix: str, root: str) -> str | None:
    """None if valid, else the first error in one line: `<prefix>: at <path>: <message>`."""
    if validator.is_valid(instance):
        return None
    # validate() stops at the first error; iter_errors() builds them all first, which took 4 s for a
    # hostile object with 30,000 bad array items
    try:
        validator.validate(instance)
    except jsonschema_rs.ValidationError as exc:
        error = exc
    else:  # is_valid and validate disagree: never seen, but a quarantine needs a reason either way
        return f"{prefix}: at {root}: invalid"
    return one_line_error(prefix, "/".join(str(p) for p in error.instance_path) or root, error.message)


def one_line_error(prefix: str, path: str, message: str) -> str:
    """`<prefix>: at <path>: <message>`, the message on one line and cut to MAX_REASON characters. Shared
    with the columnar validator (`columnar_validate`), whose reasons must read exactly as these do."""
    message = " ".join(message.split())
    if len(message) > MAX_REASON:
        message = message[: MAX_REASON - 3] + "..."
    return f"{prefix}: at {path}: {message}"


def schema_error(hand: Any) -> str | None:
    """None if the hand is valid, else its first error as `schema: at <path>: <message>`."""
    return first_error(hand_validator(), hand, "schema", "(hand)")


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def lone_surrogate_error(raw: str, parsed: Any) -> str | None:
    """JSON may escape half of a UTF-16 pair (`\\ud800`), which is no character at all: Arrow and the
    reports cannot store it, so such a hand is refused at reading instead of crashing a later stage.
    The raw text is searched first, so ordinary hands cost one regular-expression scan."""
    if not _ESCAPED_SURROGATE.search(raw):
        return None
    try:
        json.dumps(parsed, ensure_ascii=False, default=str).encode("utf-8")
    except UnicodeEncodeError:
        return "invalid text: an escaped lone UTF-16 surrogate (\\ud800-\\udfff) is not a character"
    return None
