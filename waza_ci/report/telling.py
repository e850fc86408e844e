"""The telling line of a grader's output: the one line a reviewer needs first. Pure.

Lines are ranked by what they say, matching whole words (so "unexpected" is not "expected"):

3. an assertion: `AssertionError: …` (Python, `[ERR_ASSERTION]` Node, `AssertionFailedError`
   JUnit), pytest's `E   …` (the first line of each block) and its `FAILED x::y - …` summary,
   Go's `x_test.go:12: …`, and `expected … got …` / `want … got …` phrasings;
2. an error: `ValueError: …` and other exception names, `error:` / `fatal:` / `panic:`, a
   comparison (`7 != 8`), a mismatch, a shell tool's complaint (`No such file or directory`,
   `cannot …`, `command not found`);
1. a failure summary: `FAIL`, `--- FAIL: TestX`, `1 failed`, `not ok`;
0. anything else; a warning (`warning: …`, `npm WARN …`) only when there is nothing else.

The last line of the highest rank wins: a test run prints its cause last, and an assertion
says more than an error, which says more than a count of failures. Only the end of a long
output is searched, and never the line where the capture cut a long stream.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from waza_ci.report._text import clean
from waza_ci.sandbox.capture import parse_cut_line

TELLING_WINDOW = 65_536
"""Only the end of a long output is searched: the verdict of a test run is printed last, and a
100 MiB output must not cost seconds per line."""

# An exception's name and message: `AssertionError: …`, `pkg.ValueError: …`,
# `AssertionError [ERR_ASSERTION]: …`, `org.opentest4j.AssertionFailedError: …`.
_EXCEPTION_HEADER = re.compile(
    r"(?:^|[\s:(])(?:[A-Za-z_][\w$]*\.)*(?P<name>[A-Z]\w*(?:Error|Exception|Failure))"
    r"(?:\s\[\w+\])?:(?:\s|$)"
)
_PYTEST_E = re.compile(r"^E\s{2,}\S")
_ASSERTION = re.compile(
    r"^FAILED\s+\S+\s+-\s+\S"  # pytest's short summary, with the message
    r"|^[\w./-]+_test\.go:\d+:\s"  # go test's failure line
    r"|\bexpected\b.*\b(?:got|but|actual|received|found|instead|was|saw)\b"
    r"|\bwant(?:ed)?\b.*\bgot\b|\bgot\b.*\bwant(?:ed)?\b",
    re.IGNORECASE,
)
_ERROR = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception)\b"  # a bare exception name: `test_x.py:5: AssertionError`
    r"|(?i:\berror\b|^(?:fatal|panic)\b|^assert\s)"
    r"|\w\)?\s+(?:!==?|===?)\s+\(?[\w'\"-]"  # a comparison: `3 != 4`, `(7 != 8)`
    r"|(?i:\bmismatch(?:ed)?\b|\bdo(?:es)?(?:n't| not) match\b)"
    r"|(?i:\bno such file or directory\b|\bpermission denied\b|\bcommand not found\b"
    r"|\bcannot\b|\bcan't\b|\bcould not\b|\bcouldn't\b|\bunable to\b|\bnot found\b)"
)
_FAILURE = re.compile(
    r"\b(?:fail|fails|failed|failing|failure|failures)\b|^not ok\b", re.IGNORECASE
)
_BORING = re.compile(
    r"^(?:traceback \(most recent call last\):|-+|=+|\^+|~+|\*+|#+)$"
    r"|^during handling of the above exception",
    re.IGNORECASE,
)
_WARNING = re.compile(r"^(?:warn(?:ing)?|note|hint|info|debug)\b|^npm warn\b", re.IGNORECASE)


def _is_assertion(lines: Sequence[str], index: int) -> bool:
    line = lines[index]
    if _PYTEST_E.match(line):  # the first line of a block of `E   …` lines
        return index == 0 or not _PYTEST_E.match(lines[index - 1])
    header = _EXCEPTION_HEADER.search(line)
    if header is not None and "assert" in header["name"].lower():
        return True
    return _ASSERTION.search(line) is not None


def _is_error(lines: Sequence[str], index: int) -> bool:
    line = lines[index]
    return _EXCEPTION_HEADER.search(line) is not None or _ERROR.search(line) is not None


def _is_failure(lines: Sequence[str], index: int) -> bool:
    return _FAILURE.search(lines[index]) is not None


def _is_plain(lines: Sequence[str], index: int) -> bool:
    return True


_RANKS: tuple[Callable[[Sequence[str], int], bool], ...] = (
    _is_assertion,
    _is_error,
    _is_failure,
    _is_plain,
)


def ranked_line(text: str) -> tuple[int, str]:
    """The telling line of `text` and its rank (3 assertion … 0 anything; -1: no line)."""
    window = text[-TELLING_WINDOW:]
    if len(text) > TELLING_WINDOW:
        window = window.partition("\n")[2] or window  # from a line start
    lines = [line.strip() for line in clean(window).split("\n")]
    lines = [line for line in lines if line and parse_cut_line(line) is None]
    candidates = [
        index
        for index, line in enumerate(lines)
        if not _BORING.match(line) and not _WARNING.match(line)
    ]
    for rank, test in zip(range(len(_RANKS) - 1, -1, -1), _RANKS, strict=True):
        for index in reversed(candidates):
            if test(lines, index):
                return rank, lines[index]
    return (0, lines[-1]) if lines else (-1, "")


def telling_line(text: str) -> str:
    """The most informative line of `text`: the last line of the highest rank."""
    return ranked_line(text)[1]
