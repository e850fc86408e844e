"""The gate against a history: each task's runs now against its pooled runs over the newest
records of the default branch, with the baseline's noise rule. Pure (history_io reads the file).

With a history, each task's pass rate now is compared with its pass rate pooled over the newest
`window` records of the graded eval (of the default branch, when it is known): the same
one-sided Fisher exact test at p <= 0.05 that a baseline uses (`baseline.beyond_noise`), on the
pooled counts, so 20 of 20 runs then 0 of 2 now is a regression (p = 1/231) where one baseline
run of 2 of 2 would call it noise (p = 1/6). A task whose pooled pass rate lies strictly between
0 and 1 over at least MIN_FLAKY_RUNS runs is *flaky*: its 95 % Wilson band is shown, and a rate
now inside the band is never a regression.

Golden tasks must pass as with a baseline. waza's other rules (the pass-rate drop, the task set)
compare two files: they apply when a baseline file is given, and then the baseline's waza gate
judges them while the history judges each task it has; a task the history lacks falls back to
the baseline. A history with no record of the eval (a first run, an evicted cache) falls back to
the baseline alone, and without one it is no baseline at all (the one decision then fails the
gate closed, as for a missing baseline). A history that holds only another eval's records is
not used, and the gate fails closed as for a baseline of another eval.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace

from waza_ci.errors import SHOWN_NAMES
from waza_ci.gate.baseline import (
    COMPARED_CHANGES,
    BaselineComparison,
    PassCount,
    Side,
    TaskChange,
    compare,
)
from waza_ci.gate.baseline_io import BaselineProblem, BaselineUse
from waza_ci.gate.history_io import HistoryFile, HistoryRecord
from waza_ci.gate.history_limits import MIN_FLAKY_RUNS
from waza_ci.gate.waza_gate import GateOptions, TaskPolicy
from waza_ci.waza.identity import AnotherEval, EvalIdentity, another_eval

AGAINST_HISTORY = "the history"
AGAINST_BOTH = "the history (per task) and the baseline (waza's gate)"


@dataclass(frozen=True)
class TaskTrend:
    """One task over the window: its count in each record (None where a record lacks it), the
    pooled count, and its count now (None when this grading has no graded run of it)."""

    key: str
    points: tuple[PassCount | None, ...]
    pooled: PassCount
    now: PassCount | None

    @property
    def flaky(self) -> bool:
        """Passed some pooled runs and failed others, over enough runs to draw a band."""
        return self.pooled.flaky and self.pooled.total >= MIN_FLAKY_RUNS

    @property
    def band(self) -> tuple[float, float]:
        """The pooled pass rate's 95 % Wilson score interval."""
        return self.pooled.interval

    @property
    def inside_band(self) -> bool:
        low, high = self.band
        return self.now is not None and low <= self.now.rate <= high


@dataclass(frozen=True)
class TrendPoint:
    """One recorded grading: a label of ours (a short commit, or its place) and its runs."""

    label: str
    runs: PassCount


@dataclass(frozen=True)
class HistoryView:
    """What the history says about this grading: the eval's trend, each task's, and in words
    which records were used and what judged."""

    file: str
    window: int
    points: tuple[TrendPoint, ...]
    """The records used, oldest first."""
    now: PassCount
    """This grading's runs, every task pooled."""
    tasks: tuple[TaskTrend, ...]
    judged: bool
    """The per-task test used this history (False: it had nothing to judge with)."""
    note: str
    """Which records were used and which left out (our words and the file's name: escape it)."""

    @property
    def flaky(self) -> tuple[TaskTrend, ...]:
        return tuple(t for t in self.tasks if t.flaky)

    def trend(self, key: str) -> TaskTrend | None:
        return next((t for t in self.tasks if t.key == key), None)


@dataclass(frozen=True)
class HistoryQuestion:
    """What the gate asks of the history besides the graded tasks."""

    expected: EvalIdentity
    renamed_from: Collection[str] = ()
    options: GateOptions = field(default_factory=GateOptions)
    window: int = 10
    default_branch: str = ""
    baseline_given: bool = False
    task_filter: str | None = None


def judge_with_history(
    history: HistoryFile,
    baseline: BaselineUse,
    current: Sequence[Side],
    question: HistoryQuestion,
) -> tuple[BaselineUse, HistoryView | None]:
    """The baseline's use once the history has judged (or why it could not), and the view of
    the history for the reports. `current` are the graded tasks (`baseline_io.current_sides`)."""
    shown = str(history.path)
    ours, foreign, other_refs = _records(history, question)
    if not ours:
        return _without_records(history, baseline, foreign, other_refs, question), None
    window = ours[-question.window :]
    pooled = _pooled(window, question.task_filter)
    options = GateOptions(
        max_regression_pct=100.0,  # the drop and the task set compare two files: not here
        golden_must_pass=question.options.golden_must_pass,
        on_new_tasks=TaskPolicy.ALLOW,
        on_removed_tasks=TaskPolicy.ALLOW,
    )
    against = compare(current, pooled, options=options, baseline_files=[shown])
    trends = _trends(window, current, pooled)
    by_key = {t.key: t for t in trends}
    tasks = tuple(
        with_band(replace(change, judged_by="history"), by_key.get(change.key))
        for change in against.tasks
    )
    against = replace(against, tasks=tasks, against=AGAINST_HISTORY, waza_rules=False)
    view = HistoryView(
        file=shown,
        window=question.window,
        points=_points(window),
        now=_pool(side.runs for side in current if side.compared),
        tasks=trends,
        judged=against.shares_a_task,
        note=_note(len(window), question.window, other_refs, foreign),
    )
    if not against.shares_a_task:
        return _shares_no_task(shown, baseline, question), replace(view, judged=False)
    if not question.baseline_given:
        return BaselineUse(against), view
    if baseline.problem is not None or baseline.comparison is None:
        return baseline, view  # the baseline asked for cannot serve: fail closed as without
    return BaselineUse(_both(against, baseline.comparison)), view


def _records(
    history: HistoryFile, question: HistoryQuestion
) -> tuple[list[HistoryRecord], list[tuple[int, AnotherEval]], int]:
    """This eval's records of the default branch (oldest first), the other evals found (with
    the first line of each), and how many of this eval's records were of another branch."""
    ours: list[HistoryRecord] = []
    foreign: dict[EvalIdentity, tuple[int, AnotherEval]] = {}
    other_refs = 0
    branch = f"refs/heads/{question.default_branch}" if question.default_branch else ""
    for line in history.lines:
        record = line.record
        found = another_eval(
            str(history.path), record.identity, question.expected, question.renamed_from
        )
        if found is not None:
            foreign.setdefault(record.identity, (line.number, found))
        elif branch and record.ref and record.ref != branch:
            other_refs += 1
        else:
            ours.append(record)
    return ours, list(foreign.values()), other_refs


def _without_records(
    history: HistoryFile,
    baseline: BaselineUse,
    foreign: Sequence[tuple[int, AnotherEval]],
    other_refs: int,
    question: HistoryQuestion,
) -> BaselineUse:
    """No record of this eval to judge with: another eval's history fails closed; an empty one
    (a first run, an evicted cache) leaves the baseline to judge, or none."""
    shown = repr(str(history.path))
    if foreign:
        named = "; ".join(f"line {number} is of eval {f.found}" for number, f in foreign)
        note = (
            f"the history {shown} holds no record of eval {question.expected}, only of another "
            f"eval ({named}): not used (gate: no-baseline)"
        )
        found = tuple(f for _, f in foreign)
        return replace(
            baseline,
            problem=BaselineProblem.HISTORY_ANOTHER_EVAL,
            note=note,
            history_another_eval=found,
        )
    why = "the file is not there" if not history.exists else "it has no record of this eval"
    if other_refs:
        why += f" of the default branch ({other_refs} of other branches left out)"
    empty = f"the history {shown} was not used: {why} (a first run, or the cache was evicted)"
    if question.baseline_given:
        if baseline.problem is not None:
            return replace(baseline, note=f"{baseline.note}; {empty}")
        return replace(baseline, note=f"{empty}: judged against the baseline alone")
    return BaselineUse(
        problem=BaselineProblem.NO_HISTORY,
        note=f"{empty}: nothing to compare with (gate: no-baseline)",
    )


def _shares_no_task(shown: str, baseline: BaselineUse, question: HistoryQuestion) -> BaselineUse:
    note = f"the history {shown!r} shares no task with the results"
    if question.baseline_given:
        if baseline.problem is not None:
            return replace(baseline, note=f"{baseline.note}; {note}")
        return replace(baseline, note=f"{note}: judged against the baseline alone")
    return BaselineUse(
        problem=BaselineProblem.SHARES_NO_TASK,
        note=f"{note}: graded without a comparison (gate: no-baseline)",
    )


def _pooled(window: Sequence[HistoryRecord], task_filter: str | None) -> list[Side]:
    """Each task's runs and graders summed over the window, in the order first seen."""
    runs: dict[str, list[int]] = {}
    graders: dict[str, dict[str, list[int]]] = {}
    for record in window:
        for task in record.tasks:
            if task_filter is not None and task.id != task_filter:
                continue
            tally = runs.setdefault(task.id, [0, 0])
            tally[0] += task.count.passed
            tally[1] += task.count.total
            for name, counts in task.graders.items():
                pair = graders.setdefault(task.id, {}).setdefault(name, [0, 0])
                pair[0] += counts.passed
                pair[1] += counts.passed + counts.failed
    return [
        Side(
            key=key,
            test_id=key,
            display_name=key,
            runs=PassCount(passed, total),
            graders={n: PassCount(p, t) for n, (p, t) in sorted(graders.get(key, {}).items())},
            compared=total > 0,
        )
        for key, (passed, total) in runs.items()
    ]


def _trends(
    window: Sequence[HistoryRecord], current: Sequence[Side], pooled: Sequence[Side]
) -> tuple[TaskTrend, ...]:
    now = {side.key: side.runs for side in current if side.compared}
    keys = [side.key for side in current] + [s.key for s in pooled if s.key not in now]
    totals = {side.key: side.runs for side in pooled}
    found: list[TaskTrend] = []
    for key in dict.fromkeys(keys):
        if key not in totals:
            continue
        points = tuple(
            next((t.count for t in record.tasks if t.id == key), None) for record in window
        )
        found.append(TaskTrend(key, points, totals[key], now.get(key)))
    return tuple(found)


def with_band(change: TaskChange, trend: TaskTrend | None) -> TaskChange:
    """A flaky task's result inside its band is not a regression, whatever the test says."""
    if change.regression and trend is not None and trend.flaky and trend.inside_band:
        return replace(change, regression=False, within_noise=True)
    return change


def _both(history: BaselineComparison, baseline: BaselineComparison) -> BaselineComparison:
    """Each task judged by the history when it has the task, else by the baseline; waza's gate
    (pass-rate drop, golden tasks, task set) by the baseline."""
    judged = {t.key: t for t in history.tasks if t.change in COMPARED_CHANGES}
    tasks = tuple(
        replace(judged[t.key], judged_by="history") if t.key in judged else t
        for t in baseline.tasks
    )
    files = (*history.baseline_files, *baseline.baseline_files)
    return replace(baseline, tasks=tasks, baseline_files=files, against=AGAINST_BOTH)


def _pool(counts: Iterable[PassCount]) -> PassCount:
    items = list(counts)
    return PassCount(sum(c.passed for c in items), sum(c.total for c in items))


_COMMIT = re.compile(r"[0-9a-f]{7,64}")


def _points(window: Sequence[HistoryRecord]) -> tuple[TrendPoint, ...]:
    """Labels are ours: a record's short commit when it is one (hex), else its place; repeated
    labels get a suffix (a chart's axis would merge them)."""
    seen: dict[str, int] = {}
    points: list[TrendPoint] = []
    for number, record in enumerate(window, start=1):
        label = record.commit[:7] if _COMMIT.fullmatch(record.commit) else f"#{number}"
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label}-{seen[label]}"
        points.append(TrendPoint(label, record.runs))
    return tuple(points)


def _note(
    used: int, window: int, other_refs: int, foreign: Sequence[tuple[int, AnotherEval]]
) -> str:
    """Which records judged: fewer than the window is said (less history, less certainty)."""
    less = " (less history than the window)" if used < window else ""
    parts = [f"{used} of up to {window} records of this eval{less}"]
    if other_refs:
        parts.append(f"{other_refs} of other branches left out")
    if foreign:
        evals = ", ".join(str(f.found) for _, f in foreign[:SHOWN_NAMES])
        evals += f" and {len(foreign) - SHOWN_NAMES} more" if len(foreign) > SHOWN_NAMES else ""
        parts.append(f"records of other evals left out ({evals})")
    return "; ".join(parts)
