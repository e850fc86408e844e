"""The grading's figures for github-action-benchmark (`--benchmark-json`, input `benchmark-json`).

github-action-benchmark's `customBiggerIsBetter` tool reads a JSON array of `{name, unit, value}`
objects (optional `range` and `extra` strings) and charts each name over time on its own branch:
teams that already keep charts there add waza's pass rates and scores with one more step. The
eval's pass rate (share of runs passed), its share of tasks passed and its score come first, then
each task's pass rate and score. Bigger is better for every one of them. Pure.
"""

from __future__ import annotations

import json
from typing import Any

from waza_ci.report.evaluation import Evaluation

PERCENT = "%"
SCORE = "score (0 to 1)"


def benchmark_entries(evaluation: Evaluation) -> list[dict[str, Any]]:
    """The figures as github-action-benchmark's custom tools read them."""
    summary = evaluation.summary
    name = summary.eval_name or "eval"
    runs = summary.runs_total
    passed = sum(task.runs_passed for task in summary.tasks)
    tasks_passed = sum(1 for task in summary.tasks if task.meets(summary.min_task_pass_rate))
    entries = [
        _entry(f"{name}: runs passed", PERCENT, _percent(passed, runs), f"{passed} of {runs} runs"),
        _entry(
            f"{name}: tasks passed",
            PERCENT,
            _percent(tasks_passed, len(summary.tasks)),
            f"{tasks_passed} of {len(summary.tasks)} tasks",
        ),
        _entry(f"{name}: score", SCORE, round(summary.overall_score, 4), ""),
    ]
    for task in summary.tasks:
        total = len(task.runs)
        entries += [
            _entry(
                f"{name} / {task.key}: runs passed",
                PERCENT,
                _percent(task.runs_passed, total),
                f"{task.runs_passed} of {total} runs",
            ),
            _entry(f"{name} / {task.key}: score", SCORE, round(task.overall_score, 4), ""),
        ]
    return entries


def benchmark_json_text(evaluation: Evaluation) -> str:
    return json.dumps(benchmark_entries(evaluation), ensure_ascii=False, indent=2) + "\n"


def _percent(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 2) if whole else 0.0


def _entry(name: str, unit: str, value: float, extra: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "unit": unit, "value": value}
    if extra:
        entry["extra"] = extra
    return entry
