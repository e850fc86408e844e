"""Fresh verdicts against a baseline: what regressed, what was fixed, what is only noise.

`waza-ci grade --baseline` (action input `baseline`) compares the graded tasks with a results
file of an earlier run (typically main's last regraded output), per task and per
(task, grader). A task's verdict is `passed` when at least `min_task_pass_rate` of its runs
pass (1.0, every run, is waza's rule). Categories: newly failing, fixed, still failing,
passing, new, removed.

The noise rule, for tasks with at least two runs on both sides: a change of pass rate is
*beyond noise* when a one-sided Fisher exact test on the two sides' passed/failed run counts
gives p <= 0.05 (NOISE_ALPHA) in the direction of the change. Only such a drop is a
regression; a verdict that flips within noise is reported as "within noise" and fails nothing.
(3 of 3 runs passing, then 0 of 3, is just significant: p = 0.05; 2 of 2 then 0 of 2 is not.)
With a single run on either side no test can tell anything apart, so a verdict flip from
passed to failed is a regression. Flaky tasks are shown with a 95 % Wilson score interval.

On top of the per-task rule, waza's own gate (`waza_gate.py`) runs over the same tasks: the
aggregate pass-rate drop, golden tasks and the task-set policies. The gate fails when either
fails. Pure: `baseline_io` builds the two sides from files and the graded summary.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from waza_ci.gate.waza_gate import GateOptions, GateOutcome, GateReport, GateTask, evaluate_gate
from waza_ci.waza.scoring import Status, meets_pass_rate
from waza_ci.waza.statistics import wilson_ci

NOISE_ALPHA = 0.05
"""The one-sided Fisher exact test's level: a smaller p-value is beyond noise."""


@dataclass(frozen=True)
class PassCount:
    """How many of a task's (or a grader's) runs passed."""

    passed: int
    total: int

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 1.0

    @property
    def flaky(self) -> bool:
        """Some runs passed and some did not."""
        return 0 < self.passed < self.total

    @property
    def interval(self) -> tuple[float, float]:
        """The 95 % Wilson score interval of the pass rate; (0, 1) without runs."""
        if not self.total:
            return 0.0, 1.0
        ci = wilson_ci(self.passed, self.total)
        return ci["lower"], ci["upper"]

    def meets(self, min_rate: float) -> bool:
        """The verdict: at least `min_rate` of the runs passed."""
        return meets_pass_rate(self.passed, self.total, min_rate)


def fisher_drop_p_value(before: PassCount, after: PassCount) -> float:
    """One-sided Fisher exact test: the chance, with both sides' runs drawn from one pool, of
    `after` passing as few runs as it did or fewer (hypergeometric lower tail)."""
    pool = before.total + after.total
    successes = before.passed + after.passed
    draws = after.total
    lowest = max(0, draws - (pool - successes))
    tail = sum(
        math.comb(successes, k) * math.comb(pool - successes, draws - k)
        for k in range(lowest, after.passed + 1)
    )
    return tail / math.comb(pool, draws)


def beyond_noise(before: PassCount, after: PassCount) -> bool:
    """True when the pass rate moved by more than chance explains (p <= NOISE_ALPHA, one-sided
    in the direction it moved)."""
    if after.rate < before.rate:
        return fisher_drop_p_value(before, after) <= NOISE_ALPHA
    if after.rate > before.rate:
        # A rise is a drop seen from the other side, with passes and failures swapped.
        return fisher_drop_p_value(_failures(before), _failures(after)) <= NOISE_ALPHA
    return False


def _failures(count: PassCount) -> PassCount:
    return PassCount(count.total - count.passed, count.total)


def multi_trial(before: PassCount, after: PassCount) -> bool:
    return before.total >= 2 and after.total >= 2


class Change(StrEnum):
    """How a task's (or a grader's) verdict moved from the baseline to now."""

    NEWLY_FAILING = "newly failing"
    FIXED = "fixed"
    STILL_FAILING = "still failing"
    PASSING = "passing"
    NEW = "new"
    REMOVED = "removed"
    NOT_COMPARED = "not compared"
    """One side has no graded run of the task (none saved, or every run errored)."""


COMPARED_CHANGES = frozenset(
    {Change.NEWLY_FAILING, Change.FIXED, Change.STILL_FAILING, Change.PASSING}
)
"""The changes of a task found on both sides with a graded run on each."""


@dataclass(frozen=True)
class Side:
    """One task as one side of the comparison sees it."""

    key: str
    test_id: str
    display_name: str
    runs: PassCount
    graders: Mapping[str, PassCount]
    golden: bool = False
    compared: bool = True
    """False when this side has no graded run of the task: it cannot be compared."""


@dataclass(frozen=True)
class GraderChange:
    grader: str
    change: Change
    baseline: PassCount | None
    current: PassCount | None


@dataclass(frozen=True)
class TaskChange:
    """One task compared: its category, both pass counts and what the noise rule said."""

    key: str
    display_name: str
    change: Change
    baseline: PassCount | None
    current: PassCount | None
    regression: bool
    """Counts against the gate: a single-run flip to failing, or a drop beyond noise."""
    within_noise: bool
    """The verdict flipped or the pass rate moved, but not beyond noise (multi-trial)."""
    graders: tuple[GraderChange, ...] = ()
    """The task's graders whose verdict changed (newly failing, fixed, new, removed)."""
    judged_by: str = "baseline"
    """What the task was compared with: `baseline`, or `history` (its pooled records)."""

    @property
    def rate_changed(self) -> bool:
        return (
            self.baseline is not None
            and self.current is not None
            and self.baseline.rate != self.current.rate
        )


@dataclass(frozen=True)
class BaselineComparison:
    baseline_files: tuple[str, ...]
    min_task_pass_rate: float
    tasks: tuple[TaskChange, ...]
    gate: GateReport
    """waza's gate over the same tasks (pass rates recomputed with min_task_pass_rate)."""
    against: str = "the baseline"
    """What judged, in words: the baseline, the history, or both (gate/history.py)."""
    waza_rules: bool = True
    """waza's pass-rate drop and task-set rules applied (False against a history alone, where
    only golden tasks are checked: those rules compare two files)."""

    def _with(self, change: Change) -> tuple[TaskChange, ...]:
        return tuple(t for t in self.tasks if t.change is change)

    @property
    def regressions(self) -> tuple[TaskChange, ...]:
        return tuple(t for t in self.tasks if t.regression)

    @property
    def newly_failing(self) -> tuple[TaskChange, ...]:
        return self._with(Change.NEWLY_FAILING)

    @property
    def fixed(self) -> tuple[TaskChange, ...]:
        return self._with(Change.FIXED)

    @property
    def still_failing(self) -> tuple[TaskChange, ...]:
        return self._with(Change.STILL_FAILING)

    @property
    def new(self) -> tuple[TaskChange, ...]:
        return self._with(Change.NEW)

    @property
    def removed(self) -> tuple[TaskChange, ...]:
        return self._with(Change.REMOVED)

    @property
    def not_compared(self) -> tuple[TaskChange, ...]:
        return self._with(Change.NOT_COMPARED)

    @property
    def shares_a_task(self) -> bool:
        """Some task was compared: on both sides, with a graded run on each."""
        return any(task.change in COMPARED_CHANGES for task in self.tasks)

    @property
    def within_noise(self) -> tuple[TaskChange, ...]:
        return tuple(t for t in self.tasks if t.within_noise)

    @property
    def failed(self) -> bool:
        """The step's gate: waza's gate failed, or a task regressed beyond noise."""
        return not self.gate.passed or bool(self.regressions)

    @property
    def changed(self) -> bool:
        """Anything worth a pull-request comment: a regression, a fix or a newly failing task."""
        return bool(self.regressions or self.fixed or self.newly_failing) or not self.gate.passed


def compare(
    current: Sequence[Side],
    baseline: Sequence[Side],
    *,
    min_task_pass_rate: float = 1.0,
    options: GateOptions | None = None,
    baseline_files: Sequence[str] = (),
) -> BaselineComparison:
    """Compare the two sides task by task, then run waza's gate over them."""
    base_by_key = {side.key: side for side in baseline}
    curr_by_key = {side.key: side for side in current}
    keys = list(curr_by_key) + [k for k in base_by_key if k not in curr_by_key]
    tasks = tuple(
        _task_change(base_by_key.get(key), curr_by_key.get(key), min_task_pass_rate) for key in keys
    )
    gate = evaluate_gate(
        _gate_outcome([s for s in baseline if s.compared], min_task_pass_rate),
        _gate_outcome([s for s in current if s.compared], min_task_pass_rate),
        options or GateOptions(),
        baseline_file=", ".join(baseline_files),
    )
    return BaselineComparison(tuple(baseline_files), min_task_pass_rate, tasks, gate)


def _verdict_change(before: bool | None, after: bool | None) -> Change:
    if before is None:
        return Change.NEW
    if after is None:
        return Change.REMOVED
    if before and not after:
        return Change.NEWLY_FAILING
    if after and not before:
        return Change.FIXED
    return Change.PASSING if after else Change.STILL_FAILING


def _task_change(base: Side | None, curr: Side | None, min_rate: float) -> TaskChange:
    if (base is not None and not base.compared) or (curr is not None and not curr.compared):
        side = curr or base
        assert side is not None  # every key comes from one side or the other
        return TaskChange(
            side.key,
            side.display_name,
            Change.NOT_COMPARED,
            base.runs if base is not None and base.compared else None,
            curr.runs if curr is not None and curr.compared else None,
            regression=False,
            within_noise=False,
        )
    change = _verdict_change(
        base.runs.meets(min_rate) if base else None, curr.runs.meets(min_rate) if curr else None
    )
    regression = within_noise = False
    if base is not None and curr is not None:
        if multi_trial(base.runs, curr.runs):
            significant = beyond_noise(base.runs, curr.runs)
            regression = significant and curr.runs.rate < base.runs.rate
            moved = change in (Change.NEWLY_FAILING, Change.FIXED)
            within_noise = not significant and (moved or base.runs.rate != curr.runs.rate)
        else:
            regression = change is Change.NEWLY_FAILING
    side = curr or base
    assert side is not None  # every key comes from one side or the other
    return TaskChange(
        key=side.key,
        display_name=side.display_name,
        change=change,
        baseline=base.runs if base else None,
        current=curr.runs if curr else None,
        regression=regression,
        within_noise=within_noise,
        graders=_grader_changes(base, curr, min_rate),
    )


def _grader_changes(
    base: Side | None, curr: Side | None, min_rate: float
) -> tuple[GraderChange, ...]:
    if base is None or curr is None:
        return ()
    names = list(curr.graders) + [n for n in base.graders if n not in curr.graders]
    found: list[GraderChange] = []
    for name in names:
        before, after = base.graders.get(name), curr.graders.get(name)
        change = _verdict_change(
            before.meets(min_rate) if before else None, after.meets(min_rate) if after else None
        )
        if change not in (Change.PASSING, Change.STILL_FAILING):
            found.append(GraderChange(name, change, before, after))
    return tuple(found)


def _gate_outcome(sides: Sequence[Side], min_rate: float) -> GateOutcome:
    tasks = tuple(
        GateTask(
            test_id=side.key,
            display_name=side.display_name,
            golden=side.golden,
            status=Status.PASSED if side.runs.meets(min_rate) else Status.FAILED,
        )
        for side in sides
    )
    passed = sum(1 for t in tasks if t.status == Status.PASSED)
    return GateOutcome(success_rate=passed / len(tasks) if tasks else 0.0, tasks=tasks)
