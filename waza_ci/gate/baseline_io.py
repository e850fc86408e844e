"""The two sides of a baseline comparison, built from files and from the graded summary, the
baseline's loading, and whether it can serve as one: a missing baseline, one of another eval,
one sharing no task with the results or none with a graded run is no baseline (a warning here;
the decision says what it does to the step).

A task with no graded run on either side (absent, `runs: []`, every run errored in execution)
is *not compared*: it is listed, and neither counts as new or removed nor feeds waza's gate."""

from __future__ import annotations

import glob
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from waza_ci.errors import WINDOWS_PATH_HINT, few, windows_path
from waza_ci.gate.baseline import BaselineComparison, PassCount, Side, compare
from waza_ci.gate.waza_gate import GateOptions
from waza_ci.waza.identity import AnotherEval, EvalIdentity, another_eval
from waza_ci.waza.results import ResultsFile, load_results, name_results_files
from waza_ci.waza.scoring import GradeSummary, Status, TaskGrade

# --- building the two sides ---------------------------------------------------------------------


def current_sides(summary: GradeSummary, golden: Mapping[str, bool]) -> list[Side]:
    """The graded tasks, then the spec's tasks that no results file held a run of (not
    compared); `golden` maps a task key to its flag (see `golden_flags`)."""
    several = len(summary.results_names) > 1
    unevaluated = {task.test_id for task in summary.not_evaluated}
    return [_graded_side(task, golden.get(task.key, False)) for task in summary.tasks] + [
        _not_compared(skipped.results_name, skipped.test_id, several)
        for skipped in summary.skipped
        if skipped.test_id in unevaluated
    ]


def _compared(task: TaskGrade) -> bool:
    return any(run.regraded for run in task.runs)


def _graded_side(task: TaskGrade, golden: bool) -> Side:
    if not _compared(task):
        return Side(task.key, task.test_id, task.display_name, PassCount(0, 0), {}, compared=False)
    graders: dict[str, list[int]] = {}
    for run in task.runs:
        for verdict in run.verdicts:
            tally = graders.setdefault(verdict.name, [0, 0])
            tally[0] += 1 if verdict.passed else 0
            tally[1] += 1
    passed = sum(1 for run in task.runs if run.status == Status.PASSED)
    return Side(
        key=task.key,
        test_id=task.test_id,
        display_name=task.display_name,
        runs=PassCount(passed, len(task.runs)),
        graders={name: PassCount(p, t) for name, (p, t) in sorted(graders.items())},
        golden=golden,
    )


def golden_flags(files: Sequence[ResultsFile]) -> dict[str, bool]:
    """Each task's `golden` flag, keyed as the GradeSummary keys tasks."""
    several = len(files) > 1
    return {
        _key(results.name, raw.get("test_id"), several): raw.get("golden") is True
        for results in files
        for raw in _raw_tasks(results.raw)
    }


def baseline_sides(files: Sequence[ResultsFile], task: str | None = None) -> list[Side]:
    """The baseline's tasks (only `task` when given), keyed like the current ones."""
    several = len(files) > 1
    sides: list[Side] = []
    for results in files:
        raw_tasks = _raw_tasks(results.raw)
        for index, saved in enumerate(results.model.tasks):
            if task is not None and saved.test_id != task:
                continue
            graders: dict[str, list[int]] = {}
            if all(run.errored for run in saved.runs):  # no run, or none graded
                sides.append(_not_compared(results.name, saved.test_id, several))
                continue
            for run in saved.runs:
                for name, verdict in sorted((run.validations or {}).items()):
                    tally = graders.setdefault(name, [0, 0])
                    tally[0] += 1 if verdict.passed else 0
                    tally[1] += 1
            raw = raw_tasks[index] if index < len(raw_tasks) else {}
            sides.append(
                Side(
                    key=_key(results.name, saved.test_id, several),
                    test_id=saved.test_id,
                    display_name=saved.display_name,
                    runs=PassCount(
                        sum(1 for run in saved.runs if run.status == Status.PASSED),
                        len(saved.runs),
                    ),
                    graders={name: PassCount(p, t) for name, (p, t) in sorted(graders.items())},
                    golden=raw.get("golden") is True,
                )
            )
    return sides


def _not_compared(results_name: str, test_id: str, several: bool) -> Side:
    key = _key(results_name, test_id, several)
    return Side(key, test_id, test_id, PassCount(0, 0), {}, compared=False)


def _key(results_name: str, test_id: Any, several: bool) -> str:
    return f"{results_name}:{test_id}" if several else str(test_id)


def _raw_tasks(raw: Mapping[str, Any]) -> list[dict[str, Any]]:
    tasks = raw.get("tasks") or []
    return [t if isinstance(t, dict) else {} for t in tasks]


# --- the baseline's loading ---------------------------------------------------------------------


def load_baseline(patterns: Sequence[str]) -> tuple[tuple[ResultsFile, ...], str | None]:
    """The baseline files matching `patterns` (paths or globs), and a warning when none exists.

    A missing baseline (first run on a branch, an expired artifact) is not an error: grading
    goes on without a comparison. A baseline that exists but is malformed is an InputError.
    """
    if not patterns:
        return (), None
    paths: list[Path] = []
    for pattern in patterns:
        if glob.has_magic(pattern):
            paths.extend(Path(p) for p in sorted(glob.glob(pattern, recursive=True)))
        else:
            paths.append(Path(pattern))
    found = list(dict.fromkeys(p for p in paths if p.is_file()))
    if not found:
        shown = ", ".join(repr(p) for p in patterns)
        windows = f" ({WINDOWS_PATH_HINT})" if any(map(windows_path, patterns)) else ""
        return (), (
            f"no baseline results file found at {shown}{windows}: graded without a comparison "
            "(gate: no-baseline)"
        )
    names = name_results_files(found)
    return tuple(load_results(p, n) for p, n in zip(found, names, strict=True)), None


def compare_with_baseline(
    summary: GradeSummary,
    results_files: Sequence[ResultsFile],
    baseline_files: Sequence[ResultsFile],
    *,
    options: GateOptions,
) -> BaselineComparison | None:
    """The graded summary against the baseline files, on the task the grading's `--task`
    filter chose (a merge of shards knows it from the partials); None without a baseline."""
    if not baseline_files:
        return None
    return compare(
        current_sides(summary, golden_flags(results_files)),
        baseline_sides(baseline_files, summary.task_filter),
        min_task_pass_rate=summary.min_task_pass_rate,
        options=options,
        baseline_files=[str(f.path) for f in baseline_files],
    )


# --- whether the baseline can serve as one -------------------------------------------------------


class BaselineProblem(StrEnum):
    """Why there is no baseline to compare with, though one was asked for."""

    NOT_GIVEN = "not-given"
    """The regression gate was asked for, and no baseline named."""
    MISSING = "missing"
    """No file matched the baseline's paths or globs."""
    ANOTHER_EVAL = "another-eval"
    """The baseline says it is of another eval (waza/identity.py)."""
    SHARES_NO_TASK = "shares-no-task"
    NONE_COMPARED = "none-compared"
    """Tasks are shared, but none has a graded run on both sides (every run errored)."""
    NO_HISTORY = "no-history"
    """A history alone was given, with no record of this eval (a first run, an evicted cache)."""
    HISTORY_ANOTHER_EVAL = "history-another-eval"
    """The history holds records of another eval only (gate/history.py)."""


@dataclass(frozen=True)
class BaselineUse:
    """The comparison with the baseline, and, when it cannot serve, why (in our words and in
    `note`, which names the files and may carry their text: render it escaped)."""

    comparison: BaselineComparison | None = None
    problem: BaselineProblem | None = None
    note: str | None = None
    another_eval: tuple[AnotherEval, ...] = ()
    history_another_eval: tuple[AnotherEval, ...] = ()
    """The history's evals, when it holds another eval's records only."""


def use_baseline(
    patterns: Sequence[str],
    loaded: tuple[tuple[ResultsFile, ...], str | None],
    summary: GradeSummary,
    results_files: Sequence[ResultsFile],
    *,
    expected: EvalIdentity,
    renamed_from: Collection[str] = (),
    options: GateOptions,
) -> BaselineUse:
    """The baseline `load_baseline` found, checked to belong to the graded eval (`expected`)
    and compared; a baseline that cannot serve says why."""
    files, missing_note = loaded
    if not patterns:
        return BaselineUse()
    if not files:
        return BaselineUse(problem=BaselineProblem.MISSING, note=missing_note)
    foreign = tuple(
        found
        for f in files
        if (found := another_eval(str(f.path), f.eval_identity, expected, renamed_from))
    )
    if foreign:
        note = "; ".join(str(f) for f in foreign)
        return BaselineUse(
            problem=BaselineProblem.ANOTHER_EVAL,
            note=f"the baseline {note}: graded without a comparison (gate: no-baseline)",
            another_eval=foreign,
        )
    comparison = compare_with_baseline(summary, results_files, files, options=options)
    assert comparison is not None  # files is not empty
    if comparison.shares_a_task:
        return BaselineUse(comparison)
    shown = ", ".join(repr(p) for p in patterns)
    if comparison.not_compared:
        keys = few(task.key for task in comparison.not_compared)
        return BaselineUse(
            comparison,
            BaselineProblem.NONE_COMPARED,
            f"no task could be compared with the baseline at {shown}: each task it shares with "
            f"the results lacks a graded run on one side (every run errored in execution, or "
            f"none was saved; not compared: {keys}): graded without a comparison "
            "(gate: no-baseline)",
        )
    current = [task.test_id for task in summary.tasks]
    saved = [task.test_id for f in files for task in f.model.tasks]
    return BaselineUse(
        comparison,
        BaselineProblem.SHARES_NO_TASK,
        f"the baseline at {shown} shares no task with the results (results: {few(current)}; "
        f"baseline: {few(saved)}): graded without a comparison (gate: no-baseline)",
    )
