"""`schemaVersion` of eval specs and results files, accepted and refused as waza decides.

waza reads a missing or blank version as its current one, and otherwise wants MAJOR.MINOR: two
integers as Go's strconv.Atoi reads them (an optional sign, decimal digits, 64-bit), neither
negative, and the major equal to its own. Any minor is accepted within the major: newer files
only add fields.

One exception, for eval specs only: a scenario eval (one with a `scenario:` key, waza v0.40.1+)
must say exactly "2.0", and "2.0" means nothing without `scenario:`. Task files and results
files stay 1.x, scenario evals included (see `eval_header.py`).
"""

from __future__ import annotations

import re

CURRENT_SCHEMA_VERSION = "1.5"
SUPPORTED_MAJOR = 1
SCENARIO_SCHEMA_VERSION = "2.0"
SCENARIO_MAJOR = 2
_GO_ATOI = re.compile(r"[+-]?[0-9]+")
_INT64 = 2**63


def schema_version_problem(version: str, *, eval_spec: bool = False) -> str | None:
    """Why waza would refuse `version` in a results file (or, with `eval_spec`, in an eval
    spec without `scenario:`), or None when it accepts it."""
    if not version.strip():
        return None
    major = parse_major(version)
    if isinstance(major, str):
        return major
    if major == SUPPORTED_MAJOR:
        return None
    if eval_spec and major == SCENARIO_MAJOR:
        return (
            f"schemaVersion {version!r} is for scenario evals only (a spec with a `scenario:` "
            f"key, waza v0.40.1+); other eval specs are major {SUPPORTED_MAJOR} "
            f"(current {CURRENT_SCHEMA_VERSION})"
        )
    if not eval_spec:
        # waza's words (internal/models, ValidateSchemaVersion): another major is refused with
        # the command that converts the file; the error's place names the file. The version
        # parsed as MAJOR.MINOR, so Go's %q of it is the text in plain double quotes.
        return (
            f'uses schemaVersion "{version}" (major {major}), but this waza supports '
            f"schema major {SUPPORTED_MAJOR} (current schemaVersion {CURRENT_SCHEMA_VERSION}); "
            'run "waza migrate <file>" to migrate the artifact file'
        )
    return (
        f"schemaVersion {version!r} (major {major}) is not one waza reads: eval specs are major "
        f"{SUPPORTED_MAJOR} (current {CURRENT_SCHEMA_VERSION}), or exactly "
        f"{SCENARIO_SCHEMA_VERSION!r} with `scenario:`"
    )


def parse_major(version: str) -> int | str:
    """The major version of MAJOR.MINOR, or why it is not one (waza's words for each part)."""
    parts = version.split(".")
    if len(parts) != 2 or not all(parts):
        return f"schemaVersion {version!r} is not MAJOR.MINOR"
    numbers = []
    for name, part in zip(("major", "minor"), parts, strict=True):
        value = int(part) if _GO_ATOI.fullmatch(part) else None
        if value is None or value < 0 or value >= _INT64:
            return f"schemaVersion {version!r}: the {name} version must be a non-negative integer"
        numbers.append(value)
    return numbers[0]
