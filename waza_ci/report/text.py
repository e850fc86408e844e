"""GradeSummary -> the short plain-text verdict the CLI prints to stderr. Pure.

Every untrusted string (task keys, grader names, feedback) goes through `for_log`, so no line
can break early, carry terminal escapes, or start with `::` (a workflow command)."""

from __future__ import annotations

from waza_ci.report._text import for_log
from waza_ci.scoring import GradeSummary


def render_text(summary: GradeSummary) -> str:
    """A few lines for a terminal: the verdict, the counts, then each failing grader."""
    verdict = "GRADER ERRORS" if summary.grader_errors else "PASSED" if summary.passed else "FAILED"
    lines = [
        f"waza-ci: {verdict}: {len(summary.tasks)} task(s), {summary.runs_graded} run(s) graded, "
        f"{summary.runs_failed} not passed, {summary.grader_errors} grader error(s); "
        f"overall score {summary.overall_score:.2f}"
    ]
    for task in summary.tasks:
        for run in task.runs:
            if run.error_msg:
                lines.append(
                    f"  {for_log(task.key)} run {run.run_number}: errored: {_line(run.error_msg)}"
                )
            for verdict_ in run.verdicts:
                notes = "; ".join(verdict_.notes)
                if verdict_.passed:
                    if notes:  # e.g. output cut to the cap: worth a line even when it passed
                        lines.append(
                            f"  {for_log(task.key)} run {run.run_number} "
                            f"{for_log(verdict_.name)}: {for_log(notes)}"
                        )
                    continue
                kept = "" if verdict_.regraded else " (kept)"
                lines.append(
                    f"  {for_log(task.key)} run {run.run_number} {for_log(verdict_.name)}{kept}: "
                    f"{_line(verdict_.feedback)}{f' ({for_log(notes)})' if notes else ''}"
                )
    for skipped in summary.skipped:
        lines.append(
            f"  skipped {for_log(skipped.results_name)}:{for_log(skipped.test_id)}: "
            f"{for_log(skipped.reason)}"
        )
    return "\n".join(lines) + "\n"


def _line(text: str, limit: int = 300) -> str:
    flat = for_log(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
