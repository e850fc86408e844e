"""The baseline comparison and flaky tasks as report sections: Markdown and plain text. Pure.

The job summary appends `render_regressions_markdown` to the grading report; the stderr/log
verdict appends `render_regressions_text`; the pull-request comment reuses the same rows. Task
keys and grader names are untrusted (they come from results files): code spans and escaping
keep them from adding markup, cells or lines.
"""

from __future__ import annotations

from collections.abc import Sequence

from waza_ci.gate.baseline import BaselineComparison, Change, PassCount, TaskChange
from waza_ci.gate.flaky import FlakyTask
from waza_ci.policy import ListMode
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.gfm import JOB_SUMMARY, code
from waza_ci.report.github_documents import (
    render_check_summary,
    render_markdown,
)
from waza_ci.report.github_limits import CHECK_OUTPUT_BYTES, JOB_SUMMARY_BYTES
from waza_ci.report.text_safety import ELLIPSIS, cut_utf8, for_log, lines_that_fit, utf8_len
from waza_ci.report.trends import against, render_history_markdown, render_history_text
from waza_ci.verdict import GateState

SECTION_LIMIT = 131_072
"""The section's share of the job summary (whose limit is 1 MiB); rows past it are counted."""
HEADING = "### Compared with the baseline"
FLAKY_HEADING = "### Flaky tasks"

_ICONS = {
    Change.NEWLY_FAILING: "❌",
    Change.FIXED: "✅",
    Change.STILL_FAILING: "✖️",
    Change.NEW: "🆕",
    Change.REMOVED: "🗑️",
    Change.PASSING: "✔️",
    Change.NOT_COMPARED: "⚪",
}


def _cell(text: str) -> str:
    return code(text, JOB_SUMMARY)


def _inline(text: str) -> str:
    return code(text, JOB_SUMMARY, in_table=False)


def format_count(count: PassCount | None) -> str:
    if count is None:
        return "—"
    return f"{count.passed}/{count.total} ({count.rate * 100:.0f}%)"


def format_interval(count: PassCount) -> str:
    low, high = count.interval
    return f"{low * 100:.0f}% to {high * 100:.0f}%"


def verdict_line(evaluation: Evaluation) -> str:
    """One line: the gate's state (the decision's) and what it counted (Markdown)."""
    comparison, gate = evaluation.comparison, evaluation.decision.gate
    if comparison is None or gate is GateState.NO_BASELINE:
        note = _inline(evaluation.baseline_note or "no baseline was given")
        return f"**Regression gate: ⚪ no baseline** — {note}"
    c = comparison
    icon, word = ("❌", "fail") if gate is GateState.FAIL else ("✅", "pass")
    counts = (
        f"{len(c.regressions)} regression(s), {len(c.fixed)} fixed, "
        f"{len(c.still_failing)} still failing, {len(c.within_noise)} within noise"
    )
    rates = (
        f"task pass rate {c.gate.baseline_pass_rate * 100:.1f}% → "
        f"{c.gate.current_pass_rate * 100:.1f}%"
    )
    return f"**Regression gate: {icon} {word}**{against(c)} — {counts}; {rates}"


def _note(task: TaskChange, *, graders: bool = True) -> str:
    notes: list[str] = []
    if task.regression:
        notes.append("**regression**")
    if task.within_noise:
        notes.append("within noise")
    if task.judged_by == "history":  # the Baseline column then holds the pooled history
        notes.append("vs the history")
    if graders:
        notes.extend(f"{_cell(g.grader)} {g.change}" for g in task.graders)
    return "; ".join(notes)


def change_row(task: TaskChange, why: str = "") -> str:
    """One table row of a compared task; `why` (Markdown, one line: the failing graders and
    their reasons) takes the place of the graders' changes in its notes."""
    notes = "; ".join(part for part in (_note(task, graders=not why), why) if part)
    return (
        f"| {_ICONS[task.change]} {task.change} | {_cell(task.key)} | "
        f"{format_count(task.baseline)} | {format_count(task.current)} | {notes} |"
    )


def flaky_row(flaky: FlakyTask) -> str:
    return (
        f"| 〰️ flaky | {_cell(flaky.key)} | | {format_count(flaky.count)} | "
        f"95% interval {format_interval(flaky.count)} |"
    )


_TABLE_HEAD = "| Change | Task | Baseline | Current | Notes |\n| --- | --- | ---: | ---: | --- |"


def ordered_changes(comparison: BaselineComparison) -> list[TaskChange]:
    """Regressions first, then other newly failing tasks, fixed, still failing, new, removed,
    not compared; tasks that still pass appear only when their pass rate moved."""
    rank = {
        Change.NEWLY_FAILING: 1,
        Change.FIXED: 2,
        Change.STILL_FAILING: 3,
        Change.NEW: 4,
        Change.REMOVED: 5,
        Change.NOT_COMPARED: 6,
        Change.PASSING: 7,
    }
    shown = [t for t in comparison.tasks if t.change is not Change.PASSING or t.rate_changed]
    return sorted(shown, key=lambda t: (not t.regression, rank[t.change]))


# How the section's bytes are shared, in one place: the comparison's table may take half of the
# section, the flaky tasks' a third (the rest is the gate's lines and the history's chart); in a
# check run, whose output is shared with the failures, the whole section takes a quarter.
COMPARISON_SHARE = 1 / 2
FLAKY_SHARE = 1 / 3
CHECK_SECTION_SHARE = 1 / 4


def table_rows(comparison: BaselineComparison | None, flaky: Sequence[FlakyTask]) -> list[str]:
    """Table rows: the comparison's tasks, then the flaky tasks."""
    rows = [change_row(t) for t in ordered_changes(comparison)] if comparison is not None else []
    rows += [flaky_row(f) for f in flaky]
    return rows


def fit_table(rows: Sequence[str], budget: int, tail: str) -> str:
    """The table with as many rows as fit in `budget` bytes, then `tail` when some did not."""
    if not rows:
        return ""

    def more(left: int) -> str:
        return f"\n{ELLIPSIS} {left} more row(s) {tail}\n"

    # Room kept for the widest "more" line there can be: every row left out.
    room = budget - utf8_len(_TABLE_HEAD) - 1 - utf8_len(more(len(rows)))
    kept = rows[: lines_that_fit(rows, room)]
    text = _TABLE_HEAD + "\n" + "\n".join(kept) + "\n"
    left = len(rows) - len(kept)
    return text + more(left) if left else text


def _gate_lines(comparison: BaselineComparison) -> list[str]:
    gate = comparison.gate
    if not comparison.waza_rules:  # against a history alone: golden tasks only
        lines = [
            f"- golden tasks {gate.golden_total}, {len(gate.golden_failures)} failed"
            + ("" if gate.golden_must_pass else " (not enforced)")
            + "; waza's pass-rate drop and task-set rules need a baseline file"
        ]
        return lines + [
            f"- ❌ golden task {_inline(g.test_id)} is {_inline(g.current_status)}"
            for g in gate.golden_failures
        ]
    lines = [
        f"- waza gate: `{gate.outcome}` — pass-rate drop {gate.regression_pct:.2f}pp "
        f"(limit {gate.max_regression_pct:g}pp), golden tasks {gate.golden_total}, "
        f"{len(gate.golden_failures)} failed" + ("" if gate.golden_must_pass else " (not enforced)")
    ]
    lines += [
        f"- ❌ golden task {_inline(g.test_id)} is {_inline(g.current_status)}"
        for g in gate.golden_failures
    ]
    lines += [f"- ⚠️ {_inline(w)}" for w in gate.warnings]
    lines += [f"- ❌ {_inline(e)}" for e in gate.errors]
    return lines


def render_regressions_markdown(evaluation: Evaluation, *, limit_bytes: int = SECTION_LIMIT) -> str:
    """The job-summary section; empty when there is neither a baseline question nor a flaky
    task to show."""
    comparison, flaky, history = evaluation.comparison, evaluation.flaky, evaluation.history
    if comparison is None and evaluation.baseline_note is None and not flaky and history is None:
        return ""
    parts: list[str] = []
    if comparison is not None or evaluation.baseline_note is not None:
        parts += [HEADING, "", verdict_line(evaluation), ""]
    if comparison is not None:
        files = ", ".join(_inline(f) for f in comparison.baseline_files)
        if comparison.against == "the baseline":
            parts += [f"- baseline: {files}", *_gate_lines(comparison), ""]
        else:
            parts += [
                f"- compared with {comparison.against}: {files}",
                *_gate_lines(comparison),
                "",
            ]
        rows = table_rows(comparison, ())
        if rows:
            budget = int(limit_bytes * COMPARISON_SHARE)
            parts.append(fit_table(rows, budget, "left out (summary size limit)"))
    if history is not None:
        parts += [render_history_markdown(history, comparison)]
    if flaky:
        parts += [FLAKY_HEADING, ""]
        parts.append(fit_table(table_rows(None, flaky), int(limit_bytes * FLAKY_SHARE), "left out"))
    text = "\n".join(parts).rstrip("\n") + "\n"
    return cut_utf8(text, limit_bytes)


def render_regressions_text(evaluation: Evaluation) -> str:
    """A few plain lines for stderr / the log."""
    comparison, baseline_note = evaluation.comparison, evaluation.baseline_note
    gate = evaluation.decision.gate
    lines: list[str] = []
    if comparison is not None and gate is not GateState.NO_BASELINE:
        c = comparison
        lines.append(
            f"waza-ci: regression gate {'FAILED' if gate is GateState.FAIL else 'passed'}"
            f"{against(c)}: "
            f"{len(c.regressions)} regression(s), {len(c.fixed)} fixed, "
            f"{len(c.still_failing)} still failing, {len(c.within_noise)} within noise, "
            f"{len(c.new)} new, {len(c.removed)} removed, {len(c.not_compared)} not compared; "
            f"waza gate: {c.gate.outcome}"
        )
        for task in ordered_changes(c):
            mark = (
                " REGRESSION" if task.regression else " (within noise)" if task.within_noise else ""
            )
            versus = " (vs the history)" if task.judged_by == "history" else ""
            lines.append(
                f"  {task.change}{mark}: {for_log(task.key)} "
                f"{format_count(task.baseline)} -> {format_count(task.current)}{versus}"
            )
        lines += [f"  waza gate: {for_log(e)}" for e in (*c.gate.errors, *c.gate.warnings)]
    elif baseline_note is not None:
        lines.append(f"waza-ci: regression gate: no baseline: {for_log(baseline_note)}")
    if evaluation.history is not None:
        lines += render_history_text(evaluation.history, comparison)
    for f in evaluation.flaky:
        lines.append(
            f"  flaky: {for_log(f.key)} {format_count(f.count)}, "
            f"95% interval {format_interval(f.count)}"
        )
    return "".join(line + "\n" for line in lines)


def render_job_summary(
    evaluation: Evaluation,
    *,
    mode: ListMode = ListMode.FAILURES,
    limit_bytes: int = JOB_SUMMARY_BYTES,
) -> str:
    """The job summary: a shard's note, then the report with the regression section on its
    first screen, all within `limit_bytes` (the one assembly the action and `--summary` use)."""
    note = evaluation.shard_note
    budget = limit_bytes - utf8_len(note)
    section = _section(evaluation, SECTION_LIMIT, budget)
    return note + render_markdown(evaluation, mode=mode, limit_bytes=budget, extra=section)


CHECK_SECTION_LIMIT = 16_384
"""The regression section's share of the check run's 65,535-byte summary."""


def render_check_summary_with_regressions(
    evaluation: Evaluation,
    *,
    mode: ListMode = ListMode.FAILURES,
    limit_bytes: int = CHECK_OUTPUT_BYTES,
) -> str:
    """The check run's summary with the regression section, within `limit_bytes`."""
    section = _section(evaluation, CHECK_SECTION_LIMIT, limit_bytes)
    return render_check_summary(evaluation, mode=mode, limit_bytes=limit_bytes, extra=section)


def _section(evaluation: Evaluation, section_limit: int, limit_bytes: int) -> list[str]:
    """The regression section as first-screen blocks (none when there is nothing to say); the
    report's own budgeting then keeps the whole within the limit."""
    section = render_regressions_markdown(
        evaluation, limit_bytes=min(section_limit, int(limit_bytes * CHECK_SECTION_SHARE))
    )
    return [section.rstrip("\n")] if section else []
