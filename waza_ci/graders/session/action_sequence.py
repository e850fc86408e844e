"""`action_sequence`: the run's tool sequence (`session_digest.tools_used`, in order, with
repeats) against `expected_actions`.

`matching_mode` decides `passed`: `exact_match` (same list), `in_order_match` (the expected
actions appear in order, other steps between them allowed) or `any_order_match` (each action
at least as often as expected). The score is the F1 of precision and recall over the multiset
of actions, whatever the mode: a run can fail with score 1 (right steps, wrong order) and pass
with less (extra steps). Names compare exactly.

waza lists any-order misses in Go's random map order; waza-ci lists them in the order the
actions are first expected (waza's own output is a permutation of it).

The sequence comparison and the score are shared with `skill_invocation`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from waza_ci.errors import InputError
from waza_ci.golang.fmt import go_list
from waza_ci.golang.strconv import go_quote
from waza_ci.graders.base import GraderJob
from waza_ci.graders.inprocess import GraderError, InProcessGrader, Outcome
from waza_ci.graders.params import decode_params
from waza_ci.graders.session.digest import session_of
from waza_ci.waza.spec import GraderSpec
from waza_ci.waza.spec_schema import STR, ListOf, Struct

EXACT, IN_ORDER, ANY_ORDER = "exact", "in_order", "any_order"
_MODES = {"exact_match": EXACT, "in_order_match": IN_ORDER, "any_order_match": ANY_ORDER}
_PARAMETERS = Struct({"matching_mode": STR, "expected_actions": ListOf(STR)})


@dataclass(frozen=True)
class SequenceScore:
    precision: float
    recall: float

    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 0.0 if total == 0 else 2 * self.precision * self.recall / total


def sequence_matches(comparison: str, expected: Sequence[str], actual: Sequence[str]) -> bool:
    """Whether `actual` satisfies `expected` under EXACT, IN_ORDER or ANY_ORDER."""
    if comparison == EXACT:
        return list(actual) == list(expected)
    if comparison == IN_ORDER:
        cursor = 0
        for name in actual:  # greedy: each expected step is taken at its first chance
            if cursor < len(expected) and name == expected[cursor]:
                cursor += 1
        return cursor == len(expected)
    return not shortfalls(expected, actual)


def shortfalls(expected: Sequence[str], actual: Sequence[str]) -> list[str]:
    """`<name> (need <k>, got <j>)` for each expected name seen too rarely, in the order the
    names are first expected (waza's order is Go's random map order)."""
    wanted = _counts(expected)
    seen = _counts(actual)
    return [
        f"{name} (need {count}, got {seen.get(name, 0)})"
        for name, count in wanted.items()
        if seen.get(name, 0) < count
    ]


def _counts(names: Sequence[str]) -> dict[str, int]:
    """How often each name occurs, in first-seen order (a Counter, at a third of its cost:
    this runs for every verdict)."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return counts


def sequence_score(expected: Sequence[str], actual: Sequence[str]) -> SequenceScore:
    """Precision and recall of the multiset of names: matches are min(expected, actual)."""
    if not expected and not actual:
        return SequenceScore(1.0, 1.0)
    seen = _counts(actual)
    hits = sum(min(count, seen.get(name, 0)) for name, count in _counts(expected).items())
    precision = hits / len(actual) if actual else 0.0
    recall = hits / len(expected) if expected else 0.0
    return SequenceScore(precision, recall)


@dataclass(frozen=True)
class ActionSequenceConfig:
    mode: str
    expected: list[str]
    construction_error: str | None = None


class ActionSequenceGrader(InProcessGrader[ActionSequenceConfig]):
    kind = "action_sequence"

    def configure(self, grader: GraderSpec) -> ActionSequenceConfig:
        params = decode_params(grader, "ActionSequenceGraderParameters", _PARAMETERS)
        expected = [name or "" for name in params.get("expected_actions") or ()]
        mode = params.get("matching_mode") or ""
        if not expected:
            raise InputError(
                f"action_sequence grader {go_quote(grader.name)}: "
                "must have at least one action in config.expected_actions",
                grader.location,
            )
        error = None
        if mode not in _MODES:
            error = (
                f"action_sequence grader '{grader.name}' has invalid matching_mode "
                f"{go_quote(mode)} (must be exact_match, in_order_match, or any_order_match)"
            )
        return ActionSequenceConfig(mode, expected, error)

    def evaluate(self, config: ActionSequenceConfig, job: GraderJob) -> Outcome:
        if config.construction_error is not None:
            raise GraderError(config.construction_error, at_creation=True)
        tools_used = session_of(job.run).tools_used
        actual = tools_used or []
        score = sequence_score(config.expected, actual)
        passed = sequence_matches(_MODES[config.mode], config.expected, actual)
        return Outcome(
            score=score.f1,
            passed=passed,
            feedback="Action sequence matched"
            if passed
            else mismatch_text(
                _MODES[config.mode],
                list(config.expected),
                actual,
                things="actions",
                wanted="expected",
            ),
            details={
                "matching_mode": config.mode,
                "expected_actions": config.expected,
                "actual_actions": tools_used,
                "precision": score.precision,
                "recall": score.recall,
                "f1": score.f1,
            },
        )


def mismatch_text(
    comparison: str, expected: list[str], actual: list[str], *, things: str, wanted: str
) -> str:
    """waza's feedback for a sequence that did not match, in the words of the kind that asks
    (`action_sequence`: "actions", "expected"; `skill_invocation`: "skills", "required", which
    waza's in-order text uses and its exact-match text does not)."""
    if comparison == EXACT:
        return (
            f"Exact match failed: expected {len(expected)} {things} {go_list(expected)}, "
            f"got {len(actual)} {things} {go_list(actual)}"
        )
    if comparison == IN_ORDER:
        return (
            f"In-order match failed: not all {wanted} {things} {go_list(expected)} "
            f"appeared in order within actual {go_list(actual)}"
        )
    missing = ", ".join(shortfalls(expected, actual))
    return f"Any-order match failed: missing or insufficient {things}: {missing}"
