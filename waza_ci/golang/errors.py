"""`error`: the one base of every exception whose text is Go's error text (its `Error()`), as
waza prints it. Catching `GoError` catches any of them; `str()` is the text, unchanged."""

from __future__ import annotations


class GoError(Exception):
    """An error as waza's Go code returns it; `str()` is Go's error text."""
