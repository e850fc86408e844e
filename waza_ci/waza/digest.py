"""What waza stores after grading, rebuilt from the runs as waza rebuilds it, pure: a task's
`stats` (ComputeTestStats) and the results file's `summary` digest."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from waza_ci.waza.scoring import RunGrade, Status
from waza_ci.waza.statistics import bootstrap_ci, pass_hat_k_curve, wilson_ci


def std_dev(values: Sequence[float]) -> float:
    """Population standard deviation; 0 for fewer than two values."""
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def build_test_stats(runs: Sequence[RunGrade]) -> dict[str, Any] | None:
    """waza's TestStats for a task's runs (ComputeTestStats), as the results file stores it."""
    if not runs:
        return None
    count = len(runs)
    scores = [run.score for run in runs]
    weighted = [run.weighted_score for run in runs]
    passed = sum(1 for run in runs if run.status == Status.PASSED)
    failed = sum(1 for run in runs if run.status == Status.FAILED)
    errored = sum(1 for run in runs if run.status == Status.ERROR)
    deviation = std_dev(scores)
    pass_rate = passed / count
    stats: dict[str, Any] = {
        "pass_rate": pass_rate,
        "flakiness_percent": 0.0,
        "passed_runs": passed,
        "failed_runs": failed,
        "error_runs": errored,
        "total_runs": count,
        "avg_score": sum(scores) / count,
        "avg_weighted_score": sum(weighted) / count,
        "min_score": min(scores),
        "max_score": max(scores),
        "std_dev_score": deviation,
        "score_variance": deviation * deviation,
        "ci95_lo": 0.0,
        "ci95_hi": 0.0,
        "flaky": 0 < pass_rate < 1,
        "avg_duration_ms": sum(run.duration_ms for run in runs) // count,
    }
    if stats["flaky"]:
        stats["flakiness_percent"] = min(passed, count - passed) / count * 100
    if count >= 2:
        ci = bootstrap_ci(weighted)
        stats["bootstrap_ci"] = ci
        stats["ci95_lo"] = ci["lower"]
        stats["ci95_hi"] = ci["upper"]
        stats["pass_rate_ci"] = wilson_ci(passed, count)  # schema 1.5
    return stats


@dataclass(frozen=True)
class TaskDigestInput:
    """What the digest needs of one task: its status, stats and group."""

    status: str
    stats: Mapping[str, Any] | None
    group: str = ""


def build_digest(
    tasks: Sequence[TaskDigestInput],
    duration_ms: int,
    runs_per_test: int = 1,
    usage: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """waza's OutcomeDigest (BuildDigest) over the regraded tasks; `usage` is the runs' summed
    usage (`usage.aggregate_usage`), omitted when None.

    `statistics` is present only when runs_per_test > 1 and at least two tasks have stats, as
    in waza: a bootstrap interval over the tasks' weighted scores, the Wilson interval of the
    share of tasks that passed, and the pass^k curve (schema 1.5).
    """
    total = len(tasks)
    avg_scores = [_stat(t.stats, "avg_score") for t in tasks]
    weighted = [_stat(t.stats, "avg_weighted_score") for t in tasks]
    digest: dict[str, Any] = {
        "total_tests": total,
        "succeeded": sum(1 for t in tasks if t.status == Status.PASSED),
        "failed": sum(1 for t in tasks if t.status == Status.FAILED),
        "errors": sum(1 for t in tasks if t.status == Status.ERROR),
        "skipped": sum(1 for t in tasks if t.status == "skipped"),
        "success_rate": 0.0,
        "aggregate_score": sum(avg_scores) / total if total else 0.0,
        "weighted_score": sum(weighted) / total if total else 0.0,
        "min_score": min(avg_scores, default=0.0) if total else 0.0,
        "max_score": max(avg_scores, default=0.0) if total else 0.0,
        "std_dev": std_dev(avg_scores),
        "duration_ms": duration_ms,
    }
    if total:
        digest["success_rate"] = digest["succeeded"] / total
    groups = _group_stats(tasks)
    if groups:
        digest["groups"] = groups
    if usage is not None:
        digest["usage"] = dict(usage)
    per_task = [_stat(t.stats, "avg_weighted_score") for t in tasks if t.stats]
    if runs_per_test > 1 and len(per_task) >= 2:
        statistics: dict[str, Any] = {
            "bootstrap_ci": bootstrap_ci(per_task),
            "success_rate_ci": wilson_ci(digest["succeeded"], total),
        }
        curve = pass_hat_k_curve(
            [(_count(t.stats, "passed_runs"), _count(t.stats, "total_runs")) for t in tasks]
        )
        if curve:
            statistics["pass_hat_k"] = curve
        digest["statistics"] = statistics
    return digest


def _stat(stats: Mapping[str, Any] | None, key: str) -> float:
    # Tasks that were not regraded keep their original stats, which may be old or partial.
    value = stats.get(key) if stats else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _count(stats: Mapping[str, Any] | None, key: str) -> int:
    value = stats.get(key) if stats else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _group_stats(tasks: Sequence[TaskDigestInput]) -> list[dict[str, Any]]:
    order: list[str] = []
    acc: dict[str, list[float]] = {}
    for task in tasks:
        if not task.group:
            continue
        if task.group not in acc:
            order.append(task.group)
            acc[task.group] = [0, 0, 0.0, 0]
        entry = acc[task.group]
        entry[1] += 1
        if task.status == Status.PASSED:
            entry[0] += 1
        if task.stats:
            entry[2] += _stat(task.stats, "avg_score")
            entry[3] += 1
    return [
        {
            "name": name,
            "passed": int(acc[name][0]),
            "total": int(acc[name][1]),
            "avg_score": acc[name][2] / acc[name][3] if acc[name][3] else 0.0,
        }
        for name in order
    ]
