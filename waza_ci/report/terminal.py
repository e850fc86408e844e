"""Evaluation -> the terminal's first screen (the CLI's stderr, the action's log). Pure.

The verdict line, then up to MAX_ROWS failing (task, grader) rows with the YAML `file:line`
and the reason, then how many more there are. Untrusted text goes through `for_log`, so a
grader cannot move the cursor, colour the log, fake a line or reverse text. Colour is the
caller's decision (`colour=True` only on a TTY without NO_COLOR).
"""

from __future__ import annotations

from collections.abc import Sequence

from waza_ci.report.evaluation import Evaluation
from waza_ci.report.judging import judge_parts
from waza_ci.report.model import GraderRow, Report
from waza_ci.report.modules import modules_text
from waza_ci.report.text_safety import UNNAMED, for_log, shorten
from waza_ci.report.widths import TERMINAL
from waza_ci.report.words import (
    another_eval_parts,
    dropped_words,
    hints_once,
    kinds_parts,
    not_evaluated_fix,
    not_evaluated_words,
    verdict_parts,
)
from waza_ci.verdict import Verdict
from waza_ci.waza.scoring import Status

MAX_ROWS = 20

_RED = "\x1b[31m"
_YELLOW = "\x1b[33m"
_GREEN = "\x1b[32m"
_BOLD = "\x1b[1m"
_RESET = "\x1b[0m"

_LABELS = {
    Verdict.PASSED: ("PASSED", _GREEN),
    Verdict.FAILED: ("FAILED", _RED),
    Verdict.ERRORS: ("GRADER ERRORS", _YELLOW),
    Verdict.SETUP: ("GRADERS COULD NOT RUN", _YELLOW),
    Verdict.NOTHING: ("NOTHING GRADED", _YELLOW),
    Verdict.ANOTHER_EVAL: ("RESULTS OF ANOTHER EVAL", _YELLOW),
    Verdict.NOT_EVALUATED: ("NOT EVALUATED", _YELLOW),
}


def _paint(text: str, colour: str, enabled: bool) -> str:
    return f"{colour}{text}{_RESET}" if enabled else text


def _safe(text: str, limit: int) -> str:
    return for_log(shorten(text, limit))


def _rows(rows: Sequence[GraderRow], hints: Sequence[str], colour: bool) -> list[str]:
    """One line per row, its columns aligned (task, grader, file:line, runs), the reason
    last; a hint on its own line below."""
    cells = [
        (
            _safe(row.task_key, TERMINAL.name),
            _safe(row.grader or UNNAMED, TERMINAL.name)
            + (f" ({row.not_run})" if row.not_run else ""),
            for_log(str(row.source)),
            f"{row.runs_failed}/{row.runs_total}",
        )
        for row in rows
    ]
    widths = [max((len(cell[i]) for cell in cells), default=0) for i in range(4)]
    lines = []
    for row, cell, hint in zip(rows, cells, hints, strict=True):
        status = "error " if row.status is Status.ERROR else "failed"
        painted = _paint(status, _YELLOW if row.status is Status.ERROR else _RED, colour)
        columns = "  ".join(text.ljust(width) for text, width in zip(cell, widths, strict=True))
        lines.append(f"  {painted}  {columns}  {_safe(row.reason, TERMINAL.reason)}")
        if hint:
            lines.append(f"          -> {hint}")
    return lines


def _not_evaluated(report: Report, colour: bool) -> list[str]:
    lines = []
    for task in report.not_evaluated[:MAX_ROWS]:
        error = task.first_error.strip().split("\n")[-1] if task.first_error else ""
        lines.append(
            f"  {_paint('not evaluated', _YELLOW, colour)}  {_safe(task.test_id, TERMINAL.name)}"
            f"  {not_evaluated_words(task)}"
            + (f": {_safe(error, TERMINAL.reason)}" if error else "")
        )
    if report.not_evaluated:
        hidden = len(report.not_evaluated) - MAX_ROWS
        lines += [f"  … {hidden} more not evaluated"] if hidden > 0 else []
        lines.append(f"  -> {not_evaluated_fix(report.not_evaluated)}")
    lines += [
        f"  accepted  {_safe(task.test_id, TERMINAL.name)}  no saved run "
        "(--allow-tasks-without-runs)"
        for task in report.accepted_without_runs[:MAX_ROWS]
    ]
    return lines


def render_text(
    evaluation: Evaluation, *, colour: bool = False, summary_hint: str = "--summary"
) -> str:
    """A few lines for a terminal: verdict, banner, failing rows, skipped tasks."""
    report, decision = evaluation.model, evaluation.decision
    label, tint = _LABELS[decision.verdict]
    lines = [
        f"waza-ci: {_paint(label, _BOLD + tint, colour)}: " + " · ".join(verdict_parts(report))
    ]
    if decision.reasons:
        lines.append("  why: " + "; ".join(decision.reasons))
    for item in report.another_eval:
        what, found, expected = another_eval_parts(item, lambda t: repr(_safe(t, TERMINAL.name)))
        lines.append(f"  another eval: {what} says it is of eval {found}, not of eval {expected}")
    lines += _not_evaluated(report, colour)
    if kinds := kinds_parts(report, lambda kind: _safe(kind, TERMINAL.name)):
        lines.append("  verdicts " + " · ".join(kinds))
    lines += [f"  {part}" for part in judge_parts(report, lambda text: _safe(text, 400))]
    if modules := modules_text(report, lambda text: _safe(text, TERMINAL.reason)):
        lines.append("  " + modules[0].lower() + modules[1:])
    common = report.common_failure
    if common is not None:
        lines.append(
            f"  every {common.what} ({common.executions}) failed the same way: "
            f"{_safe(common.reason, TERMINAL.reason)}"
        )
        lines.append(f"  likely fix: {common.hint}")
    shown = report.problems[:MAX_ROWS]
    lines += _rows(shown, hints_once(report, shown), colour)
    hidden = len(report.problems) - len(shown)
    if hidden:
        lines.append(f"  … {hidden} more, see {summary_hint}")
    noted = [row for task in report.tasks for row in task.graders if row.notes]
    for row in noted[:MAX_ROWS]:  # e.g. output cut to the cap: worth a line even when it passed
        lines.append(
            f"  note    {_safe(row.task_key, TERMINAL.name)}  "
            f"{_safe(row.grader or UNNAMED, TERMINAL.name)}  {for_log('; '.join(row.notes))}"
        )
    for row in report.flipped[:MAX_ROWS]:
        changes = ", ".join(
            f"run {f.run} {'passed' if f.saved_passed else 'failed'} → "
            f"{'passed' if f.passed else 'failed'}"
            for f in row.flips
        )
        lines.append(
            f"  changed {_safe(row.task_key, TERMINAL.name)}  "
            f"{_safe(row.grader or UNNAMED, TERMINAL.name)}  since the run: {changes}"
        )
    for gone in report.dropped[:MAX_ROWS]:
        lines.append(
            f"  dropped {_safe(gone.task_key, TERMINAL.name)}  "
            f"{_safe(gone.grader or UNNAMED, TERMINAL.name)}  no longer in the spec: its saved "
            f"verdicts ({dropped_words(gone)}) are not graded"
        )
    unevaluated = {task.test_id for task in report.not_evaluated}
    for task in report.tasks:
        if task.errored_runs is not None and task.test_id not in unevaluated:
            groups = task.errored_runs.feedback
            message = groups[0].text.strip().split("\n")[-1] if groups else ""
            lines.append(
                f"  {_paint('errored', _YELLOW, colour)}  {_safe(task.key, TERMINAL.name)}  "
                f"{task.errored_runs.count} run(s) errored in the original execution (not graded)"
                f": {_safe(message, TERMINAL.reason)}"
            )
    for skipped in report.skipped:
        lines.append(
            f"  skipped  {_safe(skipped.results_name, TERMINAL.name)}:"
            f"{_safe(skipped.test_id, TERMINAL.name)}: {for_log(skipped.reason)}"
        )
    return "\n".join(lines) + "\n"
