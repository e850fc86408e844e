"""`schemaVersion` of eval specs and results files, accepted and refused as waza does.

waza reads a missing or blank version as its current one, and otherwise wants MAJOR.MINOR: two
integers as Go's strconv.Atoi reads them (an optional sign, decimal digits, 64-bit), neither
negative, and the major equal to its own. Any minor is accepted within the major: newer files
only add fields.
"""

from __future__ import annotations

import re

CURRENT_SCHEMA_VERSION = "1.5"
SUPPORTED_MAJOR = 1
_GO_ATOI = re.compile(r"[+-]?[0-9]+")
_INT64 = 2**63


def schema_version_problem(version: str) -> str | None:
    """Why waza would refuse `version`, or None when it accepts it."""
    if not version.strip():
        return None
    parts = version.split(".")
    if len(parts) != 2 or not all(parts):
        return f"schemaVersion {version!r} is not MAJOR.MINOR"
    numbers = []
    for name, part in zip(("major", "minor"), parts, strict=True):
        value = int(part) if _GO_ATOI.fullmatch(part) else None
        if value is None or value < 0 or value >= _INT64:
            return f"schemaVersion {version!r}: the {name} version must be a non-negative integer"
        numbers.append(value)
    if numbers[0] != SUPPORTED_MAJOR:
        return (
            f"schemaVersion {version!r} (major {numbers[0]}) is not supported: waza schema major "
            f"{SUPPORTED_MAJOR} (current {CURRENT_SCHEMA_VERSION}) is; convert the file with "
            "`waza migrate <file>`"
        )
    return None
