"""The HTML report's data: a small index the page reads at once (tasks, graders, the runs ×
graders grid) and one evidence block per run, read only when that run is opened. Pure.

Untrusted names never become object keys (a task called `__proto__` stays a value): the
grid is lists in the order of its columns. Every text is cleaned; the long ones are cut
head-and-tail within the size bound (see `Bounds`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from waza_ci.gate.baseline import (
    COMPARED_CHANGES,
    BaselineComparison,
    PassCount,
    TaskChange,
)
from waza_ci.report.html.evidence import Budget, run_evidence, tokens_of
from waza_ci.report.html.limits import DEFAULT_MAX_TEXT_KIB
from waza_ci.report.model import GraderRow, Report, Source, TaskResult
from waza_ci.report.text_safety import clean, one_line, shorten
from waza_ci.waza.kinds import MODEL_KINDS
from waza_ci.waza.scoring import GraderVerdict, GradeSummary, RunGrade, Status, TaskGrade

KIB = 1024
RUN_TEXTS = 8
"""A run's transcript keeps at most this many texts' worth (64 KiB at the default)."""
REPORT_TEXTS = 1024
"""All runs' transcripts share this many texts' worth (8 MiB at the default)..."""
MIN_RUN_BYTES = 2 * KIB
"""... but each run keeps at least this much, however many runs there are."""
SHORT_FEEDBACK_CHARS = 160
"""The feedback a grid cell shows before it is opened."""


@dataclass(frozen=True)
class Bounds:
    """The size bound: `max_text_kib` (`--html-max-text-kib`) sets it all."""

    max_text_kib: int = DEFAULT_MAX_TEXT_KIB

    def budget(self, runs: int) -> Budget:
        text = self.max_text_kib * KIB
        share = REPORT_TEXTS * text // max(runs, 1)
        return Budget(run_bytes=max(MIN_RUN_BYTES, min(RUN_TEXTS * text, share)), text_bytes=text)


@dataclass(frozen=True)
class PageData:
    index: dict[str, Any]
    evidence: list[dict[str, Any]]
    """One block per run, in the index's run order (`ev` is the position)."""


def _source(source: Source) -> dict[str, Any]:
    url = source.url if source.url and source.url.startswith("https://") else None
    return {"p": clean(str(source)), "u": url}


def _cell(verdict: GraderVerdict, strings: _Strings) -> list[Any]:
    """A grid cell: [state, score, short feedback (string index), saved state or None].

    States: p passed, f failed, e error, k kept (passed), K kept (failed)."""
    if verdict.error is not None:
        state = "e"
    elif not verdict.regraded:
        state = "k" if verdict.passed else "K"
    else:
        state = "p" if verdict.passed else "f"
    saved = None if not verdict.flipped else ("p" if verdict.saved_passed else "f")
    short = shorten(one_line(verdict.error or verdict.feedback), SHORT_FEEDBACK_CHARS)
    return [state, round(verdict.score, 4), strings.add(short), saved]


class _Strings:
    """Short texts shared by many cells (the same feedback on every run) stored once."""

    def __init__(self) -> None:
        self.table: list[str] = []
        self._index: dict[str, int] = {}

    def add(self, text: str) -> int:
        found = self._index.get(text)
        if found is None:
            found = self._index[text] = len(self.table)
            self.table.append(text)
        return found


def _row(row: GraderRow) -> dict[str, Any]:
    return {
        "n": clean(row.grader),
        "kind": clean(row.kind),
        "s": row.status,
        "kept": row.not_run == "kept",
        "judge": row.kind in MODEL_KINDS,
        "notGraded": row.not_run == "not graded",
        "reason": clean(row.reason),
        "hint": row.hint or "",
        "failed": row.runs_failed,
        "total": row.runs_total,
        "src": _source(row.source),
        "flips": [flip.run for flip in row.flips],
        "notes": [clean(note) for note in row.notes],
    }


def _count(count: PassCount | None) -> list[int] | None:
    return None if count is None else [count.passed, count.total]


def _baseline(change: TaskChange | None) -> dict[str, Any] | None:
    if change is None:
        return None
    return {
        "change": str(change.change),
        "before": _count(change.baseline),
        "after": _count(change.current),
        "regression": change.regression,
        "noise": change.within_noise,
        "comparable": change.change in COMPARED_CHANGES,
        "graders": [[clean(g.grader), str(g.change)] for g in change.graders],
    }


def _run(run: RunGrade, columns: Sequence[str], strings: _Strings, ev: int) -> dict[str, Any]:
    by_name = {v.name: v for v in run.verdicts}
    return {
        "n": run.run_number,
        "s": run.status,
        "passed": run.counts_as_passed,
        "ms": run.duration_ms,
        "error": clean(run.error_msg or ""),
        "cells": [_cell(by_name[name], strings) if name in by_name else None for name in columns],
        "ungraded": [clean(name) for name in run.ungraded],
        "ev": ev,
    }


_STATUS_RANK = {Status.ERROR: 0, Status.FAILED: 1}


def _failing_first(rows: Sequence[GraderRow]) -> list[GraderRow]:
    """A task's graders as a reviewer reads them: errors, then failures, then the rest (each
    group in its own order)."""
    return sorted(rows, key=lambda row: _STATUS_RANK.get(row.status, 2))


def _raw_runs(task: TaskGrade, raw_files: Mapping[str, Mapping[str, Any]]) -> list[Any]:
    """The task's runs as the results file holds them (transcripts and all)."""
    raw = raw_files.get(task.results_name) or {}
    for raw_task in raw.get("tasks") or []:
        if isinstance(raw_task, dict) and raw_task.get("test_id") == task.test_id:
            runs = raw_task.get("runs")
            return runs if isinstance(runs, list) else []
    return []


def build_page_data(
    summary: GradeSummary,
    report: Report,
    raw_files: Mapping[str, Mapping[str, Any]],
    comparison: BaselineComparison | None,
    bounds: Bounds,
) -> PageData:
    """The index and the evidence blocks of every graded task's runs."""
    budget = bounds.budget(summary.runs_total)
    strings = _Strings()
    changes = {c.key: c for c in comparison.tasks} if comparison is not None else {}
    dropped: dict[str, list[list[Any]]] = {}
    for gone in report.dropped:  # saved verdicts of graders no longer in the spec
        dropped.setdefault(gone.task_key, []).append(
            [clean(gone.grader), gone.runs, gone.runs - gone.saved_failed, gone.saved_failed]
        )
    results: dict[str, TaskResult] = {t.key: t for t in report.tasks}
    tasks: list[dict[str, Any]] = []
    evidence: list[dict[str, Any]] = []
    for task in summary.tasks:
        result = results[task.key]
        graders = _failing_first(result.graders)
        columns = [row.grader for row in graders]
        raw_runs = _raw_runs(task, raw_files)
        runs = []
        tokens = 0
        for position, run in enumerate(task.runs):
            raw_run = raw_runs[position] if position < len(raw_runs) else {}
            raw_run = raw_run if isinstance(raw_run, dict) else {}
            tokens += tokens_of(raw_run) or 0
            runs.append(_run(run, columns, strings, len(evidence)))
            evidence.append(run_evidence(raw_run, columns, budget))
        tasks.append(
            {
                "key": clean(task.key),
                "name": clean(task.display_name),
                "file": clean(task.results_name),
                "s": result.status,
                "passed": result.runs_passed,
                "total": result.runs_total,
                "score": round(result.score, 4),
                "ms": sum(run.duration_ms for run in task.runs),  # the agent's, as saved
                "tokens": tokens,
                "flips": sum(len(row.flips) for row in result.graders)
                + len(dropped.get(task.key, [])),
                "src": _source(result.source),
                "graders": [_row(row) for row in graders],
                "errored": sum(1 for run in task.runs if run.status == Status.ERROR),
                "runs": runs,
                "base": _baseline(changes.get(task.key)),
                "dropped": dropped.get(task.key, []),
            }
        )
    removed = [
        {"key": clean(change.key), **(_baseline(change) or {})}
        for change in (comparison.removed if comparison is not None else ())
    ]
    index = {
        "tasks": tasks,
        "removed": removed,
        "strings": strings.table,
        "bound": {"textKiB": bounds.max_text_kib, "runBytes": budget.run_bytes},
    }
    return PageData(index, evidence)
