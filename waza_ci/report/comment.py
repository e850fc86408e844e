"""The sticky pull-request comment's body. Pure.

Marker first (how the comment is found again), then the verdict line, the grading counts, the
table of newly failing, fixed and flaky tasks, and links to the check run and the job summary.
GitHub refuses bodies over 65,536 characters: rows that do not fit are counted in a last line
pointing at the check run.
"""

from __future__ import annotations

from waza_ci.gate.baseline import BaselineComparison, Change
from waza_ci.gate.flaky import flaky_of
from waza_ci.report._text import ELLIPSIS, one_line
from waza_ci.report.markdown import escape_markdown
from waza_ci.report.regressions import fit_table, table_rows, verdict_line
from waza_ci.waza.scoring import GradeSummary

COMMENT_LIMIT_CHARS = 65_536
SEE_CHECK_RUN = "— see the check run"
_TAIL = f"\n\n{ELLIPSIS} see the check run\n"
_SHOWN = (Change.NEWLY_FAILING, Change.FIXED)


def render_comment(
    marker: str,
    *,
    check_name: str,
    summary: GradeSummary,
    comparison: BaselineComparison | None,
    baseline_note: str | None,
    check_url: str | None,
    summary_url: str | None,
    limit_chars: int = COMMENT_LIMIT_CHARS,
) -> str:
    failed = bool(summary.grader_errors) or (
        comparison.failed if comparison is not None else not summary.passed
    )
    icon = "❌" if failed else "✅"
    head = "\n".join(
        [
            marker,
            f"### {icon} waza-ci — {escape_markdown(check_name)}",
            "",
            _verdict(summary, comparison, baseline_note, failed=failed),
            "",
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
    rows = table_rows(comparison, flaky_of(summary.tasks), changes=_SHOWN)
    budget = limit_chars - len(head) - len(foot) - len(_TAIL)
    table = fit_table(rows, budget, SEE_CHECK_RUN) if rows else ""
    body = head + table + foot
    if len(body) > limit_chars:  # a guard: the budget above should already hold
        body = body[: limit_chars - len(_TAIL)] + _TAIL
    return body


def _verdict(
    summary: GradeSummary,
    comparison: BaselineComparison | None,
    baseline_note: str | None,
    *,
    failed: bool,
) -> str:
    """The regression gate's verdict; without a baseline asked for, the grading verdict."""
    if comparison is not None or baseline_note is not None:
        return verdict_line(comparison, baseline_note=baseline_note)
    if summary.grader_errors:
        return "**⚠️ Grader errors**"
    return "**❌ Failed**" if failed else "**✅ Passed**"


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
