"""The sticky pull-request comment's body. Pure.

Marker first (how the comment is found again), then the verdict line, the grading counts, the
table of tasks, and links to the check run and the job summary. With a baseline the table has
the regressions, the newly and still failing tasks, the fixed ones and the flaky ones; without
one, the failing tasks. Every failing row says why: each failing grader, linked to its YAML line
at the pull request's head commit, with the report's one-line reason; fixed rows stay short.
GitHub refuses bodies over 65,536 characters: rows that do not fit are counted in a last line
pointing at the job summary.
"""

from __future__ import annotations

from collections.abc import Sequence

from waza_ci.gate.baseline import BaselineComparison, Change, PassCount
from waza_ci.gate.flaky import FlakyTask
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.gfm import JOB_SUMMARY, code, link
from waza_ci.report.github_limits import COMMENT_CHARS
from waza_ci.report.markdown_screen import verdict_line
from waza_ci.report.model import GraderRow, Report
from waza_ci.report.regressions import (
    change_row,
    fit_table,
    flaky_row,
    format_count,
    ordered_changes,
)
from waza_ci.report.regressions import verdict_line as gate_line
from waza_ci.report.text_safety import ELLIPSIS, one_line
from waza_ci.report.widths import COMMENT
from waza_ci.waza.scoring import GradeSummary, Status

_TAIL = f"\n\n{ELLIPSIS} see the job summary\n"
_FAILING = (Change.NEWLY_FAILING, Change.STILL_FAILING)
GRADERS_PER_ROW = 3
"""Failing graders named in one row; more are counted (the job summary lists them all)."""


def render_comment(
    marker: str,
    *,
    check_name: str,
    evaluation: Evaluation,
    check_url: str | None,
    summary_url: str | None,
    limit_chars: int = COMMENT_CHARS,
) -> str:
    summary, report, comparison = evaluation.summary, evaluation.model, evaluation.comparison
    icon = "✅" if evaluation.decision.passed else "❌"
    head = "\n".join(
        [
            marker,
            f"### {icon} waza-ci — {code(check_name, JOB_SUMMARY, in_table=False)}",
            "",
            *_verdict(evaluation),
            _grading_line(summary),
            "",
            "",
        ]
    )
    links = [
        f"[{label}]({url})"
        for label, url in (("Check run", check_url), ("Job summary", summary_url))
        if url and _safe_url(url)
    ]
    foot = "\n" + " · ".join(links) + "\n" if links else ""
    rows = _rows(report, comparison, evaluation.flaky)
    see = "— see the " + (
        f"[job summary]({summary_url})" if summary_url and _safe_url(summary_url) else "job summary"
    )
    budget = limit_chars - len(head) - len(foot) - len(_TAIL)
    table = fit_table(rows, budget, see) if rows else ""
    body = head + table + foot
    if len(body) > limit_chars:  # a guard: the budget above should already hold
        body = body[: limit_chars - len(_TAIL)] + _TAIL
    return body


def _rows(
    report: Report, comparison: BaselineComparison | None, flaky: Sequence[FlakyTask]
) -> list[str]:
    """Failing rows with why, then fixed rows, then flaky ones; regressions first."""
    problems: dict[str, list[GraderRow]] = {}
    for row in report.problems:
        problems.setdefault(row.task_key, []).append(row)
    rows: list[str] = []
    if comparison is None:
        rows += [
            f"| ❌ failing | {code(task.key, JOB_SUMMARY)} | | "
            f"{format_count(PassCount(task.runs_passed, task.runs_total))} | "
            f"{_why(problems.get(task.key, []))} |"
            for task in report.tasks
            if task.status is not Status.PASSED
        ]
    else:
        for task in ordered_changes(comparison):
            if task.regression or task.change in _FAILING:
                rows.append(change_row(task, _why(problems.get(task.key, []))))
            elif task.change is Change.FIXED:
                rows.append(change_row(task))
    rows += [flaky_row(task) for task in flaky]
    return rows


def _why(rows: Sequence[GraderRow]) -> str:
    """Each failing grader linked to its YAML line, with its one-line reason (Markdown)."""
    parts = [
        f"{link(code(row.grader, JOB_SUMMARY), row.source.url)}: "
        f"{code(row.reason, JOB_SUMMARY, max_chars=COMMENT.reason)}"
        for row in rows[:GRADERS_PER_ROW]
    ]
    if len(rows) > GRADERS_PER_ROW:
        parts.append(f"{len(rows) - GRADERS_PER_ROW} more failing grader(s)")
    return "<br>".join(parts)


def _verdict(evaluation: Evaluation) -> list[str]:
    """The step's decision (the first line of every report), then the regression gate's line
    when a baseline was asked for; each followed by a blank line."""
    lines = [verdict_line(evaluation.model, evaluation.decision), ""]
    if evaluation.comparison is not None or evaluation.baseline_note is not None:
        lines += [gate_line(evaluation), ""]
    return lines


def _grading_line(summary: GradeSummary) -> str:
    passed = sum(1 for task in summary.tasks if task.meets(summary.min_task_pass_rate))
    line = (
        f"{passed} of {len(summary.tasks)} task(s) passed; {summary.runs_graded} run(s) graded, "
        f"{summary.runs_failed} not passed, {summary.grader_errors} grader error(s); "
        f"overall score {summary.overall_score:.2f}"
    )
    return one_line(line)


def _safe_url(url: str) -> bool:
    # Only web addresses, and none that could end the Markdown link early.
    return url.startswith(("https://", "http://")) and not any(c in url for c in " ()<>\n")
