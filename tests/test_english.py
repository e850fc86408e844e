"""A count's wording: the noun agreed with the count, one owner for every message and report."""

from __future__ import annotations

import pytest

from waza_ci.english import agreed, plural


@pytest.mark.parametrize(
    ("count", "expected"), [(0, "0 runs"), (1, "1 run"), (2, "2 runs"), (1_000, "1000 runs")]
)
def test_plural_agrees_the_noun_with_the_count(count: int, expected: str) -> None:
    assert plural(count, "run") == expected


def test_an_irregular_plural_is_given() -> None:
    assert plural(1, "entry", "entries") == "1 entry"
    assert plural(3, "entry", "entries") == "3 entries"
    assert plural(2, "object or list", "objects or lists") == "2 objects or lists"


def test_agreed_is_the_noun_alone_for_a_count_written_otherwise() -> None:
    assert f"{1_024:,} {agreed(1_024, 'byte')}" == "1,024 bytes"
    assert agreed(1, "byte") == "byte"
    assert agreed(1, "was", "were") == "was" and agreed(2, "was", "were") == "were"
