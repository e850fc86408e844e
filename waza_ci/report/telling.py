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

from waza_ci.report.text_safety import clean
from waza_ci.sandbox.capture import parse_cut_line

TELLING_WINDOW = 65_536
"""Only the end of a long output is searched: the verdict of a test run is printed last, and a
100 MiB output must not cost seconds per line."""

# An exception's name and message: `AssertionError: …`, `pkg.ValueError: …`,
# `AssertionError [ERR_ASSERTION]: …`, `org.opentest4j.AssertionFailedError: …`.
# No possessive quantifiers (`*+`): CPython 3.11 before 3.11.5 matches them wrongly (CPython
# issues 106052 and 100061), and none is needed: each run of word characters ends where what
# must follow it (`.`, `:`, ` [`) is not a word character, so giving characters back never finds
# another match; and a match starts only at a line start or after a delimiter, so a long line
# costs linear time (tests/report/test_telling.py times one).
_EXCEPTION_HEADER = re.compile(
    r"(?:^|[\s:(])(?:[A-Za-z_][\w$]*\.)*(?P<name>[A-Z]\w*)(?:\s\[\w+\])?:(?:\s|$)"
)
_EXCEPTION_SUFFIXES = ("Error", "Exception", "Failure")
_PYTEST_E = re.compile(r"^E\s{2,}\S")

Check = Callable[[str, str], bool]
"""A test on a line and its lower-case form."""


def _words(needles: tuple[str, ...], pattern: str) -> Check:
    """`pattern` (case-insensitive), tried only on lines holding one of the lower-case
    `needles`: a cheap substring test first keeps a long line from costing every regex."""
    compiled = re.compile(pattern, re.IGNORECASE)
    return lambda line, low: any(n in low for n in needles) and bool(compiled.search(line))


def _then(first: str, then: str) -> Check:
    """The word `first`, later on the line one of the words `then` (linear: one scan each)."""
    head = re.compile(rf"\b{first}\b", re.IGNORECASE)
    tail = re.compile(rf"\b(?:{then})\b", re.IGNORECASE)
    needle = first.partition("(")[0]

    def check(line: str, low: str) -> bool:
        found = head.search(line) if needle in low else None
        return found is not None and tail.search(line, found.end()) is not None

    return check


_ASSERTIONS: tuple[Check, ...] = (
    _words(("failed",), r"^FAILED\s+\S+\s+-\s+\S"),  # pytest's short summary, with the message
    _words(("_test.go:",), r"^[\w./-]+_test\.go:\d+:\s"),  # go test's failure line
    _then("expected", "got|but|actual|received|found|instead|was|saw"),
    _then("want(?:ed)?", "got"),
    _then("got", "want|wanted"),
)
_ERRORS: tuple[Check, ...] = (
    _words(("error", "exception"), r"\b[A-Z]\w*(?<=Error)\b|\b[A-Z]\w*(?<=Exception)\b"),
    _words(("error",), r"\berror\b"),
    _words(("fatal", "panic", "assert"), r"^(?:fatal|panic)\b|^assert\s"),
    _words(("!=", "=="), r"\w\)?\s+(?:!==?|===?)\s+\(?[\w'\"-]"),  # `3 != 4`, `(7 != 8)`
    _words(("match",), r"\bmismatch(?:ed)?\b|\bdo(?:es)?(?:n't| not) match\b"),
    _words(
        ("no such", "denied", "not found", "can", "could", "unable"),
        r"\bno such file or directory\b|\bpermission denied\b|\bnot found\b"
        r"|\bcannot\b|\bcan't\b|\bcould not\b|\bcouldn't\b|\bunable to\b",
    ),
)
_FAILURES: tuple[Check, ...] = (
    _words(("fail",), r"\b(?:fail|fails|failed|failing|failure|failures)\b"),
    _words(("not ok",), r"^not ok\b"),
)
_BORING = re.compile(
    r"^(?:traceback \(most recent call last\):|-+|=+|\^+|~+|\*+|#+)$"
    r"|^during handling of the above exception",
    re.IGNORECASE,
)
_WARNING = re.compile(r"^(?:warn(?:ing)?|note|hint|info|debug)\b|^npm warn\b", re.IGNORECASE)


def _exception_names(line: str) -> list[str]:
    """The exception names a line reports (`AssertionError: …`), cheaply ruled out first."""
    if not any(suffix in line for suffix in _EXCEPTION_SUFFIXES):
        return []
    return [
        match["name"]
        for match in _EXCEPTION_HEADER.finditer(line)
        if match["name"].endswith(_EXCEPTION_SUFFIXES)
    ]


def _is_assertion(lines: Sequence[str], index: int) -> bool:
    line = lines[index]
    if _PYTEST_E.match(line):  # the first line of a block of `E   …` lines
        return index == 0 or not _PYTEST_E.match(lines[index - 1])
    if any("assert" in name.lower() for name in _exception_names(line)):
        return True
    low = line.lower()
    return any(check(line, low) for check in _ASSERTIONS)


def _is_error(lines: Sequence[str], index: int) -> bool:
    line = lines[index]
    low = line.lower()
    return bool(_exception_names(line)) or any(check(line, low) for check in _ERRORS)


def _is_failure(lines: Sequence[str], index: int) -> bool:
    line = lines[index]
    low = line.lower()
    return any(check(line, low) for check in _FAILURES)


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
