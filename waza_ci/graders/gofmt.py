"""Go's spellings of values in waza's texts: `%q`, `%v` of lists and floats, compact JSON,
and `strings.ToLower`. waza's feedback and `details` are built with these, and a regraded
verdict must read byte for byte as waza writes it."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from waza_ci.golang.strconv import go_quote

__all__ = ["go_float", "go_json", "go_json_float", "go_list", "go_lower", "go_quote", "go_value"]


def go_list(items: Iterable[Any]) -> str:
    """Go's `%v` of a slice: `[a b c]`, elements as `%v` prints them, `[]` when empty or nil."""
    return "[" + " ".join(go_value(item) for item in items) + "]"


def go_value(value: Any) -> str:
    """Go's `%v` of a decoded JSON/YAML value."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, dict):
        pairs = " ".join(f"{key}:{go_value(value[key])}" for key in sorted(value))
        return f"map[{pairs}]"
    if isinstance(value, list | tuple):
        return go_list(value)
    return str(value)


def go_float(value: float) -> str:
    """Go's `%v` of a float64: shortest digits, exponent form when the exponent is below -4
    or from 6 up (`1e+06`, `1.5e-05`), otherwise plain (`100000`, `0.0001`, `1.5`)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    decimal = Decimal(repr(value))  # shortest round-trip digits, as Go's
    exp10 = decimal.adjusted()
    if exp10 < -4 or exp10 >= 6:
        sign, coefficient, _ = decimal.normalize().as_tuple()
        first, rest = str(coefficient[0]), "".join(str(d) for d in coefficient[1:])
        body = f"{first}.{rest}" if rest else first
        return f"{'-' if sign else ''}{body}e{'-' if exp10 < 0 else '+'}{abs(exp10):02d}"
    return format(decimal.normalize(), "f")


def go_json(value: Any) -> str:
    """Go's `json.Marshal`: compact, map keys sorted, `<>&` escaped, floats shortest with no
    `.0`, exponent form only below 1e-6 or from 1e21 (`1e-07`, `1e+21`)."""
    return "".join(_json_parts(value))


_JSON_ESCAPES = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def _json_parts(value: Any) -> Iterable[str]:
    if isinstance(value, float):
        yield go_json_float(value)
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        for raw, escaped in _JSON_ESCAPES:
            text = text.replace(raw, escaped)
        yield text
    elif isinstance(value, dict):
        yield "{"
        for index, key in enumerate(sorted(value)):
            yield from ("," if index else "", *_json_parts(str(key)), ":")
            yield from _json_parts(value[key])
        yield "}"
    elif isinstance(value, list | tuple):
        yield "["
        for index, item in enumerate(value):
            yield "," if index else ""
            yield from _json_parts(item)
        yield "]"
    else:  # None, bool, int
        yield json.dumps(value)


def go_json_float(value: float) -> str:
    """One float as Go's encoding/json prints it."""
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        mantissa, _, exponent = f"{Decimal(repr(value)):e}".partition("e")
        return f"{mantissa}e{exponent[0]}{int(exponent[1:])}"
    if value.is_integer():
        return str(int(value))
    return format(Decimal(repr(value)), "f")


def go_lower(text: str) -> str:
    """Go's `strings.ToLower`: each rune's simple lower-case mapping, no context rules
    (Python's `str.lower` maps U+0130 to two characters and applies final sigma)."""
    if text.isascii():
        return text.lower()
    return "".join(_lower_rune(char) for char in text)


def _lower_rune(char: str) -> str:
    lowered = char.lower()
    return lowered if len(lowered) == 1 else lowered[0]
