"""The values and texts of the JSON-Schema library waza links (santhosh-tekuri/jsonschema v6):
its error tree and how `%v` prints it, its quoting of strings and instance locations, JSON
equality, and the messages of its error kinds.

The library formats numbers in messages through an English message printer: `%d` groups
digits (`1,000`); `%v` of a float groups the integer digits too. The exponent form of large or
tiny floats is printed as Go's `fmt` prints it, which the printer may not match (unverified).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from waza_ci.golang.fmt import go_float
from waza_ci.golang.strconv import go_quote


@dataclass
class Failure:
    """One node of the library's error tree."""

    location: tuple[str, ...]
    message: str
    causes: list[Failure] = field(default_factory=list)
    kind: str = "leaf"  # "group", "reference", "schema" change how it prints


def render(error: Failure) -> str:
    """`%v` of the library's ValidationError: the tree, one line per shown node."""
    parts: list[str] = []
    _render(error, 0, parts)
    return "".join(parts)


def _render(error: Failure, indent: int, parts: list[str]) -> None:
    if not (error.kind == "reference" and len(error.causes) == 1):
        if indent > 0:
            parts.append("\n" + "  " * (indent - 1) + "- ")
        indent += 1
        if error.kind == "schema":
            parts.append(error.message)
        else:
            parts.append(f"at {quote(pointer(error.location))}: {error.message}")
    for cause in error.causes:
        _render(cause, indent, parts)


def quote(text: str) -> str:
    """The library's quoting: Go's `%q` turned into single quotes."""
    inner = go_quote(text)[1:-1].replace('\\"', '"').replace("'", "\\'")
    return f"'{inner}'"


def pointer(tokens: tuple[str, ...]) -> str:
    return "".join("/" + token.replace("~", "~0").replace("/", "~1") for token in tokens)


def display(value: Any) -> str:
    """The library's `display`: strings quoted, arrays and objects as `value`, the rest `%v`."""
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, list | dict):
        return "value"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    return go_float(float(value))


def count(number: int) -> str:
    """`%d` through the library's English message printer (digits grouped)."""
    return f"{number:,}"


def decimal_text(number: Fraction) -> str:
    """`%v` of a float64 through the English message printer (integer digits grouped; the
    exponent form is Go's, unverified against the printer)."""
    text = go_float(float(number))
    if "e" in text or "n" in text.lower():
        return text
    sign = "-" if text.startswith("-") else ""
    whole, dot, fraction = text.lstrip("-").partition(".")
    return f"{sign}{int(whole):,}{dot}{fraction}"


def exact(value: float) -> Fraction:
    """A float64 as the decimal Go prints for it, exactly (big.Rat of `%v`)."""
    return Fraction(Decimal(repr(float(value))))


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def is_integer(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and (math.isfinite(value) and float(value).is_integer())
    )


def equal(left: Any, right: Any) -> bool:
    """The library's `equals`: numbers by value, booleans apart from numbers, deep."""
    kind = json_type(left)
    if kind != json_type(right):
        return False
    if kind == "number":
        return bool(exact(left) == exact(right))
    if kind == "array":
        return len(left) == len(right) and all(map(equal, left, right))
    if kind == "object":
        return left.keys() == right.keys() and all(equal(left[k], right[k]) for k in left)
    return bool(left == right)


def enum_text(values: list[Any]) -> str:
    if any(isinstance(value, list | dict) for value in values):
        return "'enum' failed"
    if len(values) == 1:
        return f"value must be {display(values[0])}"
    return "value must be one of " + ", ".join(display(value) for value in values)


def missing_text(missing: list[str]) -> str:
    if len(missing) == 1:
        return f"missing property {quote(missing[0])}"
    return "missing properties " + ", ".join(quote(name) for name in missing)


def min_contains_text(minimum: int, matched: list[int]) -> str:
    if not matched:
        return f"min {count(minimum)} items required to match contains schema, but none matched"
    at = " ".join(str(index) for index in matched)
    return (
        f"min {count(minimum)} items required to match contains schema, but matched "
        f"{count(len(matched))} items at {at}"
    )
