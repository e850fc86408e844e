"""Regular expressions with Go's semantics (RE2), as waza compiles them with `regexp.Compile`.

Matching goes through RE2 itself (PyPI `google-re2`), so `$`, `\\d`, `\\w`, `\\b`, case
folding, inline flags and what is refused are Go's, not Python's `re`. RE2's C++ error texts
differ from Go's; a compile error is reworded into Go's `error parsing regexp: <code>:
`<fragment>``, which waza puts inside feedback and error texts.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Protocol

import re2

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would print every refused pattern to stderr

# RE2's C++ error codes, as Go's regexp/syntax names the same errors.
_GO_CODES = {
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "trailing \\": "trailing backslash at end of expression",
    "no argument for repetition operator": "missing argument to repetition operator",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid repetition size": "invalid repeat count",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class",
    "invalid character class range": "invalid character class range",
    "invalid named capture group": "invalid named capture",
    "invalid UTF-8": "invalid UTF-8",
    "pattern too large - compile failed": "expression too large",
    "pattern too large - reverse compile failed": "expression too large",
    "bad named capture group": "invalid named capture",
    "duplicate capture group name": "duplicate capture group name",
}


class GoRegexError(ValueError):
    """A pattern Go's regexp refuses; `str()` is Go's error text."""


class GoPattern(Protocol):
    """A compiled pattern: waza only ever asks whether it matches anywhere in a text."""

    def search(self, text: str) -> object | None: ...


@functools.lru_cache(maxsize=4096)
def compile_go(pattern: str) -> GoPattern:
    """`regexp.Compile(pattern)`; raises GoRegexError with Go's message.

    Cached: waza compiles once per grader run, and a spec's patterns repeat for every run."""
    if "\\C" in pattern.replace("\\\\", ""):
        # RE2's C++ parser takes \\C (any byte); Go's refuses it.
        raise GoRegexError("error parsing regexp: invalid escape sequence: `\\C`")
    try:
        compiled: GoPattern = re2.compile(pattern, _OPTIONS)
    except re2.error as err:
        raise GoRegexError(_go_message(err)) from None
    return compiled


def _go_message(err: re2.error) -> str:
    text = err.args[0] if err.args else ""
    message = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    code, _, fragment = message.partition(": ")
    if code == "trailing \\":
        fragment = ""
    return f"error parsing regexp: {_GO_CODES.get(code, code)}: `{fragment}`"


def matches(pattern: GoPattern, text: str) -> bool:
    """Go's `MatchString`: a match anywhere in the text."""
    return pattern.search(text) is not None


@dataclass(frozen=True)
class ConfiguredPattern:
    """A pattern from a grader's config, compiled once; `error` is Go's compile error when it
    does not compile (waza reports it when the pattern is used, not at load)."""

    pattern: str
    compiled: GoPattern | None
    error: str | None


def compile_each(patterns: list[str] | None) -> tuple[ConfiguredPattern, ...]:
    """Each configured pattern compiled, in order; one that does not compile keeps its error."""
    compiled: list[ConfiguredPattern] = []
    for pattern in patterns or ():
        try:
            compiled.append(ConfiguredPattern(pattern, compile_go(pattern), None))
        except GoRegexError as err:
            compiled.append(ConfiguredPattern(pattern, None, str(err)))
    return tuple(compiled)
