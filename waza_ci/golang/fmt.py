"""Go's fmt, as waza's texts print values: `%v` of lists, maps and floats. waza's feedback and
`details` are built with these, and a regraded verdict must read byte for byte as waza writes
it. (`%q` of a string is strconv.py's `go_quote`.)"""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import Decimal
from typing import Any


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
    if not math.isfinite(value):
        return _not_finite(value)
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


def go_fixed(value: float, digits: int) -> str:
    """Go's `%.<digits>f`: Python's, but for the spellings of NaN and the infinities."""
    return f"{value:.{digits}f}" if math.isfinite(value) else _not_finite(value)


def _not_finite(value: float) -> str:
    """How Go's fmt spells a NaN or an infinity under `%v` and `%f` alike."""
    if math.isnan(value):
        return "NaN"
    return "+Inf" if value > 0 else "-Inf"
