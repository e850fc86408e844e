"""The checks waza makes from a task's `expected:` block: `_output_contains`,
`_output_not_contains` and `_output_contains_any`.

waza's RunAll evaluates them after every grader of the run, from the task's
`expected.output_*` lists (each only when its list is not empty): a case-insensitive substring
test of each string against the agent's final output, lower-cased as Go's `strings.ToLower`
does. The spec loader turns each non-empty list into a synthetic grader named `_<key>` whose
`config` is the list's YAML node; this kind decodes the list and picks the check by that name.

The verdicts read as waza writes them: `type` "", weight 1, no `details`; `%v` lists and `%q`
strings hold the strings exactly as the YAML gives them, in list order.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import yaml

from waza_ci.golang.fmt import go_list
from waza_ci.golang.strconv import go_quote
from waza_ci.golang.strings import go_lower
from waza_ci.golang.yaml import is_null
from waza_ci.graders.base import GraderJob
from waza_ci.graders.inprocess import InProcessGrader, Outcome
from waza_ci.waza.spec import EXPECTED_KIND, GraderSpec
from waza_ci.waza.yaml_doc import valid_text


@dataclass(frozen=True)
class ExpectedStrings:
    """One `expected.output_*` list: the strings as written, and lower-cased once."""

    check: Callable[[ExpectedStrings, str], Outcome]
    strings: tuple[str, ...]
    lowered: tuple[str, ...]


def _contains_all(config: ExpectedStrings, output: str) -> Outcome:
    pairs = zip(config.strings, config.lowered, strict=True)
    missing = [original for original, low in pairs if low not in output]
    total = len(config.strings)
    matched = total - len(missing)
    score = matched / total
    feedback = f"matched {matched}/{total} required strings"
    if missing:
        feedback += f"; missing: {go_list(missing)}"
    return Outcome(score, score == 1.0, feedback)


def _contains_none(config: ExpectedStrings, output: str) -> Outcome:
    pairs = zip(config.strings, config.lowered, strict=True)
    found = [original for original, low in pairs if low in output]
    total = len(config.strings)
    absent = total - len(found)
    score = absent / total
    feedback = f"{absent}/{total} excluded strings absent"
    if found:
        feedback += f"; found: {go_list(found)}"
    return Outcome(score, score == 1.0, feedback)


def _contains_any(config: ExpectedStrings, output: str) -> Outcome:
    for original, low in zip(config.strings, config.lowered, strict=True):
        if low in output:
            return Outcome(1.0, True, f"found accepted string: {go_quote(original)}")
    return Outcome(0.0, False, "none of the accepted strings found")


_CHECKS: dict[str, Callable[[ExpectedStrings, str], Outcome]] = {
    "_output_contains": _contains_all,
    "_output_not_contains": _contains_none,
    "_output_contains_any": _contains_any,
}


class ExpectedChecks(InProcessGrader[ExpectedStrings]):
    """waza's synthetic `expected.output_*` checks (never a `type` in the spec)."""

    kind = EXPECTED_KIND
    written_type = ""

    def configure(self, grader: GraderSpec) -> ExpectedStrings:
        check = _CHECKS.get(grader.name)
        assert check is not None, f"no expected check is named {grader.name!r}"
        strings = _strings(grader.config)
        return ExpectedStrings(check, strings, tuple(go_lower(s) for s in strings))

    def evaluate(self, config: ExpectedStrings, job: GraderJob) -> Outcome:
        return config.check(config, _lowered(job.run.final_output))


@functools.lru_cache(maxsize=8)
def _lowered(output: str) -> str:
    # A run's three checks (on as many threads) lower its output once.
    return go_lower(output)


def _strings(node: yaml.Node | None) -> tuple[str, ...]:
    """The list as yaml.v3 decodes it into []string: each scalar's own text, null as ""
    (the task file's shape check has already refused anything but scalars)."""
    if not isinstance(node, yaml.SequenceNode):
        return ()
    return tuple(
        "" if is_null(item) else valid_text(str(item.value))
        for item in node.value
        if isinstance(item, yaml.ScalarNode)
    )
