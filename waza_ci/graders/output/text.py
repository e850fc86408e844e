"""waza's `text` grader: substring and regular-expression checks on the run's final output.

Six lists, checked in this order, each item one check: `contains` and `not_contains`
(case-insensitive: both sides lowered rune by rune, as Go's `strings.ToLower`), `contains_cs`
and `not_contains_cs` (exact), `regex_match` and `regex_not_match` (Go RE2 patterns, matched
anywhere). A pattern Go cannot compile is one failed check, with Go's compile error in the
text. Score: the share of checks that held (1 with no checks); passed when none failed.
`details` always holds the six lists as configured (null when absent) and the failures (null
when none). The grader never returns a Go error.

waza compiles each pattern on every run; here each is compiled once, when the spec is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from waza_ci.golang.regexp import ConfiguredPattern, compile_each, matches
from waza_ci.golang.strconv import go_quote
from waza_ci.golang.strings import go_lower
from waza_ci.graders.base import GraderJob
from waza_ci.graders.inprocess import InProcessGrader, Outcome, fraction
from waza_ci.graders.params import decode_params
from waza_ci.waza.spec import GraderSpec
from waza_ci.waza.spec_schema import STR, ListOf, Struct

ALL_PASSED = "All text checks passed"
_LISTS = ("contains", "not_contains", "contains_cs", "not_contains_cs", "regex_match",
          "regex_not_match")  # fmt: skip
_SHAPE = Struct({name: ListOf(STR) for name in _LISTS})


@dataclass(frozen=True)
class TextConfig:
    lists: dict[str, list[str] | None]
    """The six lists as configured; None where absent (Go's nil slice)."""
    contains_lowered: tuple[tuple[str, str], ...]
    not_contains_lowered: tuple[tuple[str, str], ...]
    regex_match: tuple[ConfiguredPattern, ...]
    regex_not_match: tuple[ConfiguredPattern, ...]
    checks: int


class TextGrader(InProcessGrader[TextConfig]):
    """waza's `text` grader kind."""

    kind = "text"
    details_in_go_order = True

    def configure(self, grader: GraderSpec) -> TextConfig:
        params = decode_params(grader, "TextGraderParameters", _SHAPE)
        lists = {name: string_list(params.get(name)) for name in _LISTS}
        return TextConfig(
            lists=lists,
            contains_lowered=_lowered(lists["contains"]),
            not_contains_lowered=_lowered(lists["not_contains"]),
            regex_match=compile_each(lists["regex_match"]),
            regex_not_match=compile_each(lists["regex_not_match"]),
            checks=sum(len(items or ()) for items in lists.values()),
        )

    def evaluate(self, config: TextConfig, job: GraderJob) -> Outcome:
        output = job.run.final_output
        failures = _substring_failures(config, output) + _pattern_failures(config, output)
        details = {  # in Go's order (keys sorted): written as they are
            "contains": config.lists["contains"],
            "contains_cs": config.lists["contains_cs"],
            "failures": failures or None,
            "not_contains": config.lists["not_contains"],
            "not_contains_cs": config.lists["not_contains_cs"],
            "regex_match": config.lists["regex_match"],
            "regex_not_match": config.lists["regex_not_match"],
        }
        return Outcome(
            score=fraction(config.checks, len(failures)),
            passed=not failures,
            feedback="; ".join(failures) or ALL_PASSED,
            details=details,
        )


def string_list(value: Any) -> list[str] | None:
    """A decoded YAML list of strings as Go holds it: None for an absent or null list, ""
    for a null item."""
    if value is None:
        return None
    return ["" if item is None else str(item) for item in value]


def _lowered(items: list[str] | None) -> tuple[tuple[str, str], ...]:
    return tuple((item, go_lower(item)) for item in items or ())


def _substring_failures(config: TextConfig, output: str) -> list[str]:
    failures: list[str] = []
    lowered = go_lower(output)
    failures.extend(
        f"Missing expected substring: {item}"
        for item, low in config.contains_lowered
        if low not in lowered
    )
    failures.extend(
        f"Found forbidden substring: {item}"
        for item, low in config.not_contains_lowered
        if low in lowered
    )
    failures.extend(
        f"Missing expected substring (case-sensitive): {item}"
        for item in config.lists["contains_cs"] or ()
        if item not in output
    )
    failures.extend(
        f"Found forbidden substring (case-sensitive): {item}"
        for item in config.lists["not_contains_cs"] or ()
        if item in output
    )
    return failures


def _pattern_failures(config: TextConfig, output: str) -> list[str]:
    failures: list[str] = []
    for regex in config.regex_match:
        if regex.compiled is None:
            failures.append(f"Invalid regex_match pattern {go_quote(regex.pattern)}: {regex.error}")
        elif not matches(regex.compiled, output):
            failures.append(f"Missing expected pattern: {regex.pattern}")
    for regex in config.regex_not_match:
        if regex.compiled is None:
            failures.append(
                f"Invalid regex_not_match pattern {go_quote(regex.pattern)}: {regex.error}"
            )
        elif matches(regex.compiled, output):
            failures.append(f"Found forbidden pattern: {regex.pattern}")
    return failures
