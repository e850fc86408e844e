"""Report -> the first screen in Markdown: verdict line, banner, failures table, passing tasks,
slowest graders. Shared by the job summary and the check run's output.summary. Pure.

A reviewer should know in ten seconds which graders failed on which tasks, why, and where to
edit: one row per (task, grader) that did not pass, grader errors first and marked apart, the
grader linked to its YAML line, runs failed out of runs, and the reason in one line.
"""

from __future__ import annotations

from collections.abc import Sequence

from waza_ci.english import plural
from waza_ci.policy import ListMode
from waza_ci.report.gfm import Medium, code, link, table, trusted
from waza_ci.report.judging import judge_block
from waza_ci.report.model import GraderRow, Report, TaskResult
from waza_ci.report.modules import modules_text
from waza_ci.report.reasons import format_duration
from waza_ci.report.text_safety import format_score
from waza_ci.report.widths import MARKDOWN
from waza_ci.report.words import (
    ICON_ERROR,
    ICON_FAILED,
    ICON_NOTHING,
    ICON_PASSED,
    another_eval_parts,
    dropped_words,
    flip_words,
    hints_once,
    kinds_parts,
    not_evaluated_fix,
    not_evaluated_words,
    verdict_label,
    verdict_parts,
)
from waza_ci.verdict import Decision
from waza_ci.waza.scoring import Status

PASSING_LISTED = 100
"""Passing tasks named on the first screen (compact form); the rest are counted."""


def kinds_line(report: Report, medium: Medium) -> list[str]:
    parts = kinds_parts(report, lambda kind: code(kind, medium, in_table=False, max_chars=40))
    lines = ["Verdicts " + " · ".join(parts)] if parts else []
    modules = modules_text(report, lambda text: code(text, medium, in_table=False))
    return [*lines, modules] if modules else lines


def flips_table(report: Report, medium: Medium, *, max_rows: int) -> list[str]:
    """Verdicts that came out the opposite of the saved ones: the grader (or its input) changed
    since the run. Shown whichever way they flipped: a fix deserves a look too. Then the
    graders whose saved verdicts were dropped, being no longer in the spec."""
    rows = report.flipped
    dropped = report.dropped
    if not rows and not dropped:
        return []
    lines = [
        [
            code(row.task_key, medium, max_chars=MARKDOWN.name),
            link(code(row.grader, medium, max_chars=MARKDOWN.name), row.source.url),
            ", ".join(str(flip.run) for flip in row.flips),
            flip_words(row),
        ]
        for row in rows[:max_rows]
    ]
    lines += [
        [
            code(gone.task_key, medium, max_chars=MARKDOWN.name),
            code(gone.grader, medium, max_chars=MARKDOWN.name),
            str(gone.runs),
            f"{dropped_words(gone)} → dropped (no longer in the spec)",
        ]
        for gone in dropped[: max(0, max_rows - len(rows))]
    ]
    blocks = [
        "### Changed since the run",
        table(["Task", "Grader", "Runs", "Saved → now"], ["---", "---", "--:", "---"], lines),
    ]
    hidden = len(rows) + len(dropped) - len(lines)
    if hidden > 0:
        blocks.append(f"_… {plural(hidden, 'more grader')}, in the report JSON._")
    return blocks


def verdict_line(report: Report, decision: Decision) -> str:
    """The step's decision and the counts, then (on a line of its own) why: the first thing
    every Markdown report says, and the same words as the terminal's."""
    icon, label = verdict_label(decision)
    line = " · ".join([f"**{icon} {label}**", *verdict_parts(report)])
    reasons = decision.reasons
    return f"{line}  \n**Why:** {trusted('; '.join(reasons))}" if reasons else line


def banner(report: Report, medium: Medium) -> list[str]:
    common = report.common_failure
    if common is None:
        return []
    return [
        f"> **{ICON_ERROR} Every {common.what} ({common.executions}) failed the same way:**"
        f" {code(common.reason, medium, in_table=False, max_chars=MARKDOWN.reason)}  \n"
        f"> **Likely fix:** {trusted(common.hint)}."
    ]


def _status_cell(row: GraderRow) -> str:
    if row.status is Status.ERROR:
        return f"{ICON_ERROR} **error**"
    return f"{ICON_FAILED} {row.not_run}" if row.not_run else ICON_FAILED


def _reason_cell(row: GraderRow, hint: str, medium: Medium) -> str:
    cell = code(row.reason, medium, max_chars=MARKDOWN.reason)
    if hint:
        cell += f"<br>**What to do:** {trusted(hint)}"
    return cell


def problem_rows(
    rows: Sequence[GraderRow], hints: Sequence[str], medium: Medium
) -> list[list[str]]:
    return [
        [
            _status_cell(row),
            code(row.task_key, medium, max_chars=MARKDOWN.name),
            link(code(row.grader, medium, max_chars=MARKDOWN.name), row.source.url)
            + f"<br>{code(str(row.source), medium, max_chars=MARKDOWN.name)}",
            f"{row.runs_failed} / {row.runs_total}",
            _reason_cell(row, hint, medium),
        ]
        for row, hint in zip(rows, hints, strict=True)
    ]


def errored_rows(tasks: Sequence[TaskResult], medium: Medium) -> list[list[str]]:
    """Runs that errored in the original `waza run` (not graded), one row per task."""
    rows = []
    for task in tasks:
        if task.errored_runs is None:
            continue
        first = task.errored_runs.feedback[0].text if task.errored_runs.feedback else ""
        rows.append(
            [
                f"{ICON_ERROR} errored run",
                code(task.key, medium, max_chars=MARKDOWN.name),
                link(code("(the run itself)", medium), task.source.url)
                + f"<br>{code(str(task.source), medium, max_chars=MARKDOWN.name)}",
                f"{task.errored_runs.count} / {task.runs_total}",
                code(first.split("\n")[-1], medium, max_chars=MARKDOWN.reason),
            ]
        )
    return rows


def failures_table(report: Report, medium: Medium, *, max_rows: int) -> list[str]:
    """`### Failures` with at most `max_rows` rows, and a line saying how many more."""
    errored = [task for task in report.tasks if task.errored_runs is not None]
    if not report.problems and not errored:
        return []
    rows = report.problems[:max_rows]
    errored = errored[: max(max_rows - len(rows), 0)]
    errors = any(row.status is Status.ERROR for row in report.problems)
    failures = any(row.status is Status.FAILED for row in report.problems)
    heading = (
        f"### {ICON_ERROR} Grader errors and failures"
        if errors and failures
        else f"### {ICON_ERROR} Grader errors"
        if errors
        else f"### {ICON_FAILED} Failures"
    )
    blocks = [
        heading,
        table(
            ["", "Task", "Grader (YAML line)", "Runs failed", "Reason"],
            [":-:", "---", "---", "--:", "---"],
            problem_rows(rows, hints_once(report, rows), medium) + errored_rows(errored, medium),
        ),
    ]
    hidden = len(report.problems) - len(rows)
    if hidden:
        blocks.append(f"_… {plural(hidden, 'more failing grader')}, listed in the details._")
    if any(row.not_run == "kept" for row in rows):
        blocks.append(
            "_kept_: a saved verdict from the results file (a `prompt` grader: it needs a model),"
            " not re-run."
        )
    if any(row.not_run == "not graded" for row in rows):
        blocks.append(
            "_not graded_: no verdict at all, neither re-run nor saved; the task does not pass."
        )
    return blocks


def collapsed_failures(report: Report, medium: Medium, *, max_rows: int) -> list[str]:
    """Under the banner, the rows are all the same: they fold away."""
    table_blocks = failures_table(report, medium, max_rows=max_rows)
    if not table_blocks:
        return []
    summary = f"<summary>The {plural(len(report.problems), 'failing grader')}</summary>"
    return ["\n".join(["<details>", summary, ""]), *table_blocks[1:], "</details>"]


def global_failures(report: Report, medium: Medium) -> list[str]:
    items = []
    for failure in report.global_failures:
        grader = link(code(failure.grader, medium, in_table=False), failure.source.url)
        verb = "errors" if failure.status is Status.ERROR else "fails"
        items.append(
            f"- {grader} {verb} on every task it runs on ({len(failure.tasks)}):"
            f" {code(failure.reason, medium, in_table=False, max_chars=MARKDOWN.reason)}"
        )
    return ["\n".join(items)] if items else []


def _task_label(task: TaskResult, medium: Medium) -> str:
    return code(task.key, medium, max_chars=MARKDOWN.name)


def passing_compact(report: Report, medium: Medium) -> list[str]:
    passing = [task for task in report.tasks if task.status is Status.PASSED]
    if not passing:
        return []
    shown = passing[:PASSING_LISTED]
    items = [
        f"{_task_label(task, medium)} {task.runs_passed}/{task.runs_total}"
        + (f" · {format_duration(task.duration_ms)}" if task.ran_programs else "")
        for task in shown
    ]
    line = f"**{ICON_PASSED} Passing:** " + ", ".join(items)
    if len(passing) > len(shown):
        line += f", and {len(passing) - len(shown)} more"
    return [line]


ALL_TASKS_ROWS = 300
"""Rows of the `report: all` table; the report JSON lists every one."""


def all_tasks_table(report: Report, medium: Medium) -> list[str]:
    """Every task and grader with status, runs and time (the `report: all` listing)."""
    rows: list[list[str]] = []
    icons = {"passed": ICON_PASSED, "failed": ICON_FAILED, "error": ICON_ERROR}
    for task in report.tasks:
        for row in task.graders:
            rows.append(
                [
                    icons[row.status],
                    _task_label(task, medium),
                    link(code(row.grader, medium, max_chars=MARKDOWN.name), row.source.url),
                    f"{row.runs_total - row.runs_failed} / {row.runs_total}",
                    row.not_run or format_duration(row.duration_ms),
                ]
            )
    if not rows:
        return []
    more = (
        [f"_… {len(rows) - ALL_TASKS_ROWS} more rows in the report JSON._"]
        if len(rows) > ALL_TASKS_ROWS
        else []
    )
    return [
        "### All tasks",
        table(
            ["", "Task", "Grader", "Runs passed", "Time"],
            [":-:", "---", "---", "--:", "--:"],
            rows[:ALL_TASKS_ROWS],
        ),
        *more,
        "Task scores: "
        + ", ".join(f"{_task_label(t, medium)} {format_score(t.score)}" for t in report.tasks),
    ]


def slowest(report: Report, medium: Medium) -> list[str]:
    if not report.slowest:
        return []
    rows = [
        [
            link(code(item.grader, medium, max_chars=MARKDOWN.name), item.source.url),
            _ran_on(item.tasks, medium),
            str(item.executions),
            format_duration(item.total_ms),
            format_duration(item.max_ms),
        ]
        for item in report.slowest
    ]
    return [
        "<details>\n<summary>Slowest graders</summary>",
        table(
            ["Grader", "Task", "Runs", "Total", "Slowest run"],
            ["---", "---", "--:", "--:", "--:"],
            rows,
        ),
        "</details>",
    ]


def _ran_on(tasks: Sequence[str], medium: Medium) -> str:
    """The task a grader ran on, or how many: what tells apart graders of the same name."""
    if len(tasks) == 1:
        return code(tasks[0], medium, max_chars=MARKDOWN.name)
    return plural(len(tasks), "task")


def another_eval_blocks(report: Report, medium: Medium) -> list[str]:
    """One quote per file of another eval, both evals named (as the files say them)."""

    def quote(text: str) -> str:
        return code(text, medium, in_table=False, max_chars=MARKDOWN.name)

    blocks = []
    for item in report.another_eval:
        what, found, expected = another_eval_parts(item, quote)
        blocks.append(
            f"> **{ICON_ERROR} Another eval:** {what} says it is of eval {found}, not of this "
            f"eval {expected}."
        )
    return blocks


def not_evaluated_table(report: Report, medium: Medium, *, max_rows: int) -> list[str]:
    """The spec's tasks without a graded run: each with why and the first error, and the fix;
    then the tasks `--allow-tasks-without-runs` accepted."""
    blocks: list[str] = []
    if report.not_evaluated:
        rows = [
            [
                code(task.test_id, medium, max_chars=MARKDOWN.name),
                not_evaluated_words(task),
                code(task.first_error.strip().split("\n")[-1], medium, max_chars=MARKDOWN.reason)
                if task.first_error
                else "—",
            ]
            for task in report.not_evaluated[:max_rows]
        ]
        blocks += [
            f"### {ICON_ERROR} Not evaluated",
            table(["Task", "Why", "First error"], ["---", "---", "---"], rows),
        ]
        hidden = len(report.not_evaluated) - len(rows)
        if hidden > 0:
            blocks.append(f"_… {plural(hidden, 'more task')}, in the report JSON._")
        blocks.append(f"**What to do:** {trusted(not_evaluated_fix(report.not_evaluated))}.")
    if report.accepted_without_runs:
        names = ", ".join(
            code(task.test_id, medium, in_table=False, max_chars=MARKDOWN.name)
            for task in report.accepted_without_runs[:max_rows]
        )
        blocks.append(
            f"**{ICON_NOTHING} Accepted without runs** (--allow-tasks-without-runs): {names}"
        )
    return blocks


def skipped(report: Report, medium: Medium) -> list[str]:
    if not report.skipped:
        return []
    items = [
        f"- {code(s.test_id, medium, in_table=False)}"
        f" in {code(s.results_name, medium, in_table=False)}:"
        f" {code(s.reason, medium, in_table=False)}"
        for s in report.skipped
    ]
    return ["### Skipped tasks", "\n".join(items)]


def first_screen(
    report: Report,
    decision: Decision,
    medium: Medium,
    *,
    max_rows: int,
    mode: ListMode,
    extra: Sequence[str] = (),
) -> list[str]:
    """The blocks of the first screen, in reading order. `extra` are Markdown blocks a later
    step adds (e.g. a comparison with the base branch), placed right after the failures;
    they must be safe Markdown already."""
    blocks = [verdict_line(report, decision), *another_eval_blocks(report, medium)]
    blocks += [*kinds_line(report, medium), *judge_block(report, medium)]
    blocks += banner(report, medium)
    blocks += not_evaluated_table(report, medium, max_rows=max_rows)
    if report.common_failure is not None:
        blocks += collapsed_failures(report, medium, max_rows=max_rows)
    else:
        blocks += failures_table(report, medium, max_rows=max_rows)
    blocks += flips_table(report, medium, max_rows=max_rows)
    blocks += [medium.prep(block) for block in extra]
    blocks += global_failures(report, medium)
    blocks += (
        all_tasks_table(report, medium) if mode is ListMode.ALL else passing_compact(report, medium)
    )
    blocks += skipped(report, medium)
    blocks += slowest(report, medium)
    return blocks
