"""English count agreement, `1 run` and `2 runs`, for every message and report. Pure.

A leaf below every stage, importing nothing of waza_ci, so the sandbox and the graders word
their counts as the reports do.
"""

from __future__ import annotations


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """`1 run`, `2 runs`: the count with its noun agreed."""
    return f"{count} {agreed(count, noun, plural_noun)}"


def agreed(count: int, noun: str, plural_noun: str | None = None) -> str:
    """`run` or `runs`: the noun alone, agreed with `count` (for a count written otherwise,
    `1,024 bytes`)."""
    return noun if count == 1 else (plural_noun or noun + "s")
