"""The agent's output read as JSON the way waza's `json_schema` grader reads it, with Go's
`encoding/json` error texts (they appear in waza's feedback).

Strict mode is `json.Unmarshal` into an untyped value (golang/json_scanner.py's
`go_unmarshal`). Extract mode is waza's scan for embedded documents, here: at each `{` or `[`,
one JSON value is decoded (trailing text allowed); a success is recorded and the scan jumps
past it, a failure moves on by one character. Deliberate difference: output nested deeper than
Python's recursion limit (about a thousand levels; Go's limit is ten thousand) is reported as
not valid JSON."""

from __future__ import annotations

from typing import Any

from waza_ci.golang.json_scanner import go_decode_at

ZERO_DOCUMENTS = "found zero JSON object or array documents"
MANY_DOCUMENTS = "found multiple JSON object or array documents"


def embedded_values(text: str) -> list[Any]:
    """waza's scan for JSON objects and arrays inside prose (`extract_json: true`)."""
    values: list[Any] = []
    offset = 0
    while offset < len(text):
        if text[offset] not in "{[":
            offset += 1
            continue
        try:
            value, end = go_decode_at(text, offset)
        except (ValueError, RecursionError):
            offset += 1
            continue
        values.append(value)
        offset = end
    return values
