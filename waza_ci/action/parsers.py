"""Strict parsers for the action's input values: every error names the input and what it takes.

A typo like `flase` or `1e9` must not quietly mean something else.
"""

from __future__ import annotations

import math
import re
from enum import StrEnum
from typing import TypeVar

from waza_ci.errors import InputError

_E = TypeVar("_E", bound=StrEnum)


def boolean_input(name: str, value: str) -> bool:
    """`true` or `false`, in any case."""
    lowered = value.lower()
    if lowered not in ("true", "false"):
        raise InputError(f"input `{name}` must be `true` or `false`, not {value!r}")
    return lowered == "true"


def choice_input(name: str, value: str, choices: type[_E]) -> _E:
    """One of an enum's values; the error names the input and lists them."""
    try:
        return choices(value)
    except ValueError:
        allowed = " or ".join(f"`{c.value}`" for c in choices)
        raise InputError(f"input `{name}` must be {allowed}, not {value!r}") from None


def number_input(name: str, value: str) -> float:
    """Any finite or infinite number Python reads, but not NaN."""
    try:
        number = float(value)
    except ValueError:
        raise InputError(f"input `{name}` must be a number, not {value!r}") from None
    if math.isnan(number):
        raise InputError(f"input `{name}` must be a number, not {value!r}")
    return number


def jobs_input(name: str, value: str) -> int | None:
    """A whole number of at least 1 (ASCII digits only); empty means the default."""
    if not value:
        return None
    if not re.fullmatch(r"[0-9]+", value) or int(value) < 1:
        raise InputError(f"input `{name}` must be a whole number of at least 1, not {value!r}")
    return int(value)


def mebibytes_input(name: str, value: str, mib: int) -> int:
    """A whole number of MiB, at least 1, as bytes."""
    if not re.fullmatch(r"[0-9]{1,7}", value) or int(value) < 1:  # ASCII digits only
        raise InputError(f"input `{name}` must be a whole number of MiB, at least 1, not {value!r}")
    return int(value) * mib


def seconds_input(name: str, value: str) -> float:
    """Plain decimal seconds above 0: "inf", "nan" or "1e9" would make a deadline meaningless."""
    if not re.fullmatch(r"[0-9]{1,6}(\.[0-9]{1,3})?", value) or float(value) <= 0:
        raise InputError(f"input `{name}` must be a number of seconds above 0, not {value!r}")
    return float(value)
