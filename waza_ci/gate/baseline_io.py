"""The two sides of a baseline comparison, built from files and from the graded summary, and
the baseline's loading (a missing one is a warning here; the decision says what it does to
the step)."""

from __future__ import annotations

import glob
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from waza_ci.gate.baseline import BaselineComparison, PassCount, Side, compare
from waza_ci.gate.waza_gate import GateOptions
from waza_ci.waza.results import ResultsFile, load_results, name_results_files
from waza_ci.waza.scoring import GradeSummary, Status, TaskGrade

# --- building the two sides ---------------------------------------------------------------------


def current_sides(summary: GradeSummary, golden: Mapping[str, bool]) -> list[Side]:
    """The graded tasks; `golden` maps a task key to its flag (see `golden_flags`)."""
    return [_graded_side(task, golden.get(task.key, False)) for task in summary.tasks]


def _graded_side(task: TaskGrade, golden: bool) -> Side:
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
        return (), (
            f"no baseline results file found at {shown}: graded without a comparison "
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
