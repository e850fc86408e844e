"""GradeSummary -> GitHub-flavoured Markdown: the job summary and a check run's compact summary.

Pure and deterministic (same summary, same bytes), within a byte budget, and safe: every
string that comes from a results file or a grader is escaped for the context it lands in.

Two contexts, two escapes:

* Markdown text (headings, table cells, list items): `escape_markdown` folds the text to one
  line and backslash-escapes everything that could start markup, so it renders literally.
* Raw HTML (`<details>`, `<summary>`, `<p>`, `<pre>`): CommonMark does not parse Markdown
  inside an HTML block, so `escape_html` only has to escape `& < > " '`. A `<pre>` always
  starts its own block after a blank line (a type-1 HTML block, which only `</pre>` can end),
  so blank lines in multi-line feedback cannot fall back into Markdown; an escaped text can
  never contain `</pre>` or `</details>`, so nothing can close our tags early.

Both neutralise `@mentions`. Our own structural tags always stand alone on a line, which is
what lets the line trimmer close whatever it cut open.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from waza_ci.report._text import (
    ZWJ,
    clean,
    cut_utf8,
    format_bytes,
    format_score,
    neutralise_mentions,
    one_line,
    plural,
    shorten,
    utf8_len,
)
from waza_ci.scoring import (
    STATUS_ERROR,
    STATUS_PASSED,
    GradeSummary,
    RunGrade,
    TaskGrade,
    Verdict,
)

JOB_SUMMARY_LIMIT = 1_048_576
"""GitHub's cap on one step's job summary (bytes)."""
CHECK_SUMMARY_LIMIT = 65_535
"""GitHub's cap on a check run's output.summary (counted in UTF-8 bytes)."""
MIN_LIMIT = 4_096
"""The smallest budget that always holds the heading, the verdict, the counts and a trim note."""

NAME_MAX_CHARS = 200
"""Names (tasks, graders, files) are cut to this, so the fixed part of a report stays small."""
FEEDBACK_CAPS = (16_384, 4_096, 1_024, 256)
"""Per-text byte caps tried in turn on feedback and errors when the full report is too big."""
FIRST_FAILURES = 10
"""How many failing verdicts the check summary quotes."""
FIRST_LINE_CHARS = 200

ICON_PASSED = "✅"
ICON_FAILED = "❌"
ICON_ERROR = "⚠️"
ICON_NOTHING = "⚪"

_MD_ALWAYS = frozenset("\\`*_[]<>|~$&!#")
"""Characters escaped wherever they are: code spans, emphasis, links and images, raw HTML,
entities, table cells, strikethrough, math, headings."""
_MD_BLOCK_START = re.compile(r"^(?:([-+=])|(\d+)([.)]))")
"""What would start a list, a setext heading or an ordered list at the start of a block."""

# GFM turns bare `scheme://…` and `www.…` into links; escaping that `:` or `.` stops it.
# No word boundary: GFM finds a scheme after a digit, `_` or a non-ASCII letter too.
_URL_SCHEME = re.compile(r":(?=//)")
_URL_WWW = re.compile(r"(?i)www\.")

_OPEN_TAGS = {"<details>": "</details>", "<pre>": "</pre>"}
_CLOSE_TAGS = frozenset(_OPEN_TAGS.values())


# --- escaping ------------------------------------------------------------------------------


def escape_markdown(text: str) -> str:
    """`text` as one line of Markdown that renders literally: no markup, links, HTML or pings.

    Newlines fold to spaces (a table cell or list item cannot hold one); every ASCII
    punctuation mark that can open markup is backslash-escaped, and so is a leading list or
    heading marker; the `:` of `scheme://` and the `.` of `www.` are escaped (no bare-URL
    autolinks); `@` gets a zero-width joiner (no mentions, no e-mail autolinks), and so does
    `#` before a digit (no issue autolinks).
    """
    flat = one_line(text)
    url_marks = {m.end() - 1 for m in _URL_SCHEME.finditer(flat)}
    url_marks |= {m.end() - 1 for m in _URL_WWW.finditer(flat)}
    out: list[str] = []
    for index, char in enumerate(flat):
        if char in _MD_ALWAYS or index in url_marks:
            out.append("\\" + char)
            if char == "#" and flat[index + 1 : index + 2].isdigit():
                out.append(ZWJ)
        elif char == "@":
            out.append("@" + ZWJ)
        else:
            out.append(char)
    escaped = "".join(out)
    match = _MD_BLOCK_START.match(escaped)
    if match and match.group(1):
        escaped = "\\" + escaped
    elif match:
        digits = match.group(2)
        escaped = digits + "\\" + escaped[len(digits) :]
    return escaped


def escape_html(text: str, *, multiline: bool = False) -> str:
    """`text` for raw HTML: `& < > " '` as entities, `@` neutralised.

    With `multiline` the line breaks stay (for `<pre>`); otherwise the text folds to one line
    (a blank line would end the HTML block it is in) and `#` before a digit is neutralised.
    """
    if multiline:
        return neutralise_mentions(html.escape(clean(text), quote=False))
    escaped = neutralise_mentions(html.escape(one_line(text), quote=False))
    return re.sub(r"#(?=\d)", "#" + ZWJ, escaped)


def _md_name(text: str) -> str:
    """An untrusted name for Markdown: one line, cut to NAME_MAX_CHARS, then escaped."""
    return escape_markdown(shorten(one_line(text), NAME_MAX_CHARS))


def _html_name(text: str) -> str:
    """An untrusted name for HTML: cut before escaping, so no entity is ever split."""
    return escape_html(shorten(one_line(text), NAME_MAX_CHARS))


# --- what the report counts ------------------------------------------------------------------


@dataclass(frozen=True)
class _Counts:
    tasks: int
    runs: int
    graded: int
    passed: int
    failed: int
    """Runs graded that did not pass; GradeSummary.runs_failed also counts errored runs."""
    errored: int
    grader_errors: int
    score: float


def _count(summary: GradeSummary) -> _Counts:
    runs = summary.runs
    return _Counts(
        tasks=len(summary.tasks),
        runs=len(runs),
        graded=summary.runs_graded,
        passed=sum(1 for run in runs if run.status == STATUS_PASSED),
        failed=sum(1 for run in runs if run.status not in (STATUS_PASSED, STATUS_ERROR)),
        errored=summary.runs_errored,
        grader_errors=summary.grader_errors,
        score=summary.overall_score,
    )


def _verdict(summary: GradeSummary, counts: _Counts) -> tuple[str, str]:
    """(icon, label). Grader errors win over failures, as they do for the exit code."""
    if counts.runs == 0:
        return ICON_NOTHING, "Nothing graded"
    if counts.grader_errors:
        return ICON_ERROR, "Grader errors"
    if not summary.passed:
        return ICON_FAILED, "Failed"
    return ICON_PASSED, "Passed"


def _by_name(verdicts: Iterable[Verdict]) -> list[Verdict]:
    """Verdicts by grader name: RunGrade promises that order; sorting again makes it certain."""
    return sorted(verdicts, key=lambda verdict: verdict.name)


def _is_problem(verdict: Verdict) -> bool:
    return not verdict.passed or verdict.error is not None


def _task_has_problems(task: TaskGrade) -> bool:
    return not task.passed or any(_is_problem(v) for run in task.runs for v in run.verdicts)


def _task_icon(task: TaskGrade) -> str:
    if any(v.error is not None for run in task.runs for v in run.verdicts):
        return ICON_ERROR
    return ICON_PASSED if task.passed else ICON_FAILED


def _runs_line(task: TaskGrade) -> str:
    """`1 of 3 runs passed · 1 errored in execution`."""
    passed = sum(1 for run in task.runs if run.status == STATUS_PASSED)
    errored = sum(1 for run in task.runs if run.status == STATUS_ERROR)
    text = f"{passed} of {plural(len(task.runs), 'run')} passed"
    if errored:
        text += f" · {errored} errored in execution"
    return text


@dataclass(frozen=True)
class _GraderTally:
    name: str
    failed: int
    errors: int
    kept: bool


def _failing_graders(task: TaskGrade) -> list[_GraderTally]:
    """Per grader name (sorted): how many runs it failed or errored, and if any was kept."""
    tallies: dict[str, list[int]] = {}
    for run in task.runs:
        for verdict in run.verdicts:
            if not _is_problem(verdict):
                continue
            tally = tallies.setdefault(verdict.name, [0, 0, 0])
            tally[1 if verdict.error is not None else 0] += 1
            tally[2] |= not verdict.regraded
    return [
        _GraderTally(name, tally[0], tally[1], bool(tally[2]))
        for name, tally in sorted(tallies.items())
    ]


def _task_label_md(task: TaskGrade) -> str:
    display = one_line(task.display_name)
    if display and display != task.test_id:
        return f"{_md_name(display)} ({_md_name(task.test_id)})"
    return _md_name(task.test_id)


def _task_label_html(task: TaskGrade) -> str:
    display = one_line(task.display_name)
    if display and display != task.test_id:
        return f"{_html_name(display)} ({_html_name(task.test_id)})"
    return _html_name(task.test_id)


def _several_results(summary: GradeSummary) -> bool:
    names = set(summary.results_names) | {task.results_name for task in summary.tasks}
    return len(names) > 1


def _by_results(summary: GradeSummary) -> list[tuple[str, list[TaskGrade]]]:
    """Tasks grouped by results file: the files in the summary's order, then any others."""
    order = list(dict.fromkeys([*summary.results_names, *(t.results_name for t in summary.tasks)]))
    groups: dict[str, list[TaskGrade]] = {name: [] for name in order}
    for task in summary.tasks:
        groups[task.results_name].append(task)
    return [(name, tasks) for name, tasks in groups.items() if tasks]


# --- blocks ----------------------------------------------------------------------------------


def _verdict_line(summary: GradeSummary, counts: _Counts) -> str:
    icon, label = _verdict(summary, counts)
    parts = [f"**{icon} {label}**"]
    if counts.runs == 0:
        parts.append("no task of the eval had runs to grade in the results")
    else:
        parts.append(f"{counts.passed} of {plural(counts.runs, 'run')} passed")
        if counts.errored:
            parts.append(f"{counts.errored} errored in execution")
        if counts.grader_errors:
            parts.append(plural(counts.grader_errors, "grader error"))
    if summary.skipped:
        parts.append(f"{plural(len(summary.skipped), 'task')} skipped")
    return " · ".join(parts)


def _counts_table(counts: _Counts) -> str:
    return "\n".join(
        [
            "| Tasks | Runs graded | Runs failed | Errored in execution | Grader errors"
            " | Overall score |",
            "| ---: | ---: | ---: | ---: | ---: | ---: |",
            f"| {counts.tasks} | {counts.graded} of {counts.runs} | {counts.failed}"
            f" | {counts.errored} | {counts.grader_errors} | {format_score(counts.score)} |",
        ]
    )


def _source_line(summary: GradeSummary) -> str:
    names = ", ".join(_md_name(name) for name in summary.results_names) or "none"
    label = "Results files" if len(summary.results_names) > 1 else "Results file"
    return f"Eval: {_md_name(summary.eval_path)} · {label}: {names}"


def _heading(summary: GradeSummary) -> str:
    name = one_line(summary.eval_name)
    return f"## waza-ci: {_md_name(name)}" if name else "## waza-ci"


def _tally_text(tally: _GraderTally) -> str:
    parts = []
    if tally.failed:
        parts.append(f"{tally.failed} failed")
    if tally.errors:
        parts.append(plural(tally.errors, "error"))
    if tally.kept:
        parts.append("kept")
    return f"{_md_name(tally.name)} ({', '.join(parts)})"


def _task_row(task: TaskGrade) -> str:
    tallies = _failing_graders(task)
    graders = ", ".join(_tally_text(t) for t in tallies) or "—"
    return (
        f"| {_task_icon(task)} | {_task_label_md(task)} | {_runs_line(task)}"
        f" | {format_score(task.overall_score)} | {graders} |"
    )


_TABLE_HEAD = "| Result | Task | Runs | Score | Failing graders |\n| :-: | --- | --- | ---: | --- |"


def _task_tables(summary: GradeSummary, *, only_problems: bool = False) -> list[str]:
    """A `### Tasks` table, or one per results file when there are several."""
    several = _several_results(summary)
    blocks: list[str] = []
    hidden = 0
    for name, tasks in _by_results(summary):
        shown = [t for t in tasks if _task_has_problems(t)] if only_problems else tasks
        hidden += len(tasks) - len(shown)
        blocks.append(f"### Tasks in {_md_name(name)}" if several else "### Tasks")
        if shown:
            blocks.append("\n".join([_TABLE_HEAD, *(_task_row(t) for t in shown)]))
        else:
            blocks.append("_Every task passed._")
    if hidden:
        blocks.append(f"_{plural(hidden, 'passing task')} not listed._")
    if any(t.kept for task in summary.tasks for t in _failing_graders(task)):
        blocks.append(
            "_kept_: a saved verdict from the results file, kept unchanged "
            "(waza-ci did not re-run that grader)."
        )
    return blocks


def _skipped_blocks(summary: GradeSummary) -> list[str]:
    if not summary.skipped:
        return []
    several = _several_results(summary)
    items = []
    for skipped in summary.skipped:
        where = f" in {_md_name(skipped.results_name)}" if several else ""
        items.append(f"- {_md_name(skipped.test_id)}{where}: {_md_name(skipped.reason)}")
    return ["### Skipped tasks", "\n".join(items)]


def _pre_text(text: str) -> str:
    return clean(text).lstrip("\n").rstrip()


def _texts(tasks: Iterable[TaskGrade]) -> Iterable[str]:
    """Every text the failure sections of `tasks` put in a `<pre>`."""
    for task in tasks:
        for run in task.runs:
            if run.status == STATUS_ERROR:
                yield run.error_msg or ""
            for verdict in run.verdicts:
                if _is_problem(verdict):
                    yield verdict.feedback
                    yield verdict.error or ""


def _longer_than(text: str, cap: int) -> bool:
    return utf8_len(_pre_text(text)) > cap


def _pre(text: str, cap: int | None) -> list[str]:
    """A `<pre>` block of `text`, cut to `cap` UTF-8 bytes before escaping (never mid-escape)."""
    raw = _pre_text(text)
    cut = raw if cap is None else cut_utf8(raw, cap)
    body = escape_html(cut, multiline=True)
    omitted = utf8_len(raw) - utf8_len(cut)
    if omitted:
        body += f"\n… [{omitted:,} more bytes cut]"
    return ["<pre>", body, "</pre>"]


def _verdict_lines(run: RunGrade, verdict: Verdict, cap: int | None) -> list[str]:
    state = "error" if verdict.error is not None else "failed"
    icon = ICON_ERROR if verdict.error is not None else ICON_FAILED
    kept = " · kept (saved verdict, not re-run)" if not verdict.regraded else ""
    lines = [
        f"<p><b>Run {run.run_number}</b> · {icon} <b>{_html_name(verdict.name)}</b>"
        f" ({_html_name(verdict.kind)}) · {state} · score {format_score(verdict.score)}"
        f"{kept}</p>",
        "",
    ]
    has_feedback = bool(verdict.feedback.strip())
    if verdict.error is not None:
        lines += [*_pre(verdict.error, cap), ""]
        if has_feedback and verdict.feedback.strip() != verdict.error.strip():
            lines += ["<p>Feedback:</p>", "", *_pre(verdict.feedback, cap), ""]
    elif has_feedback:
        lines += [*_pre(verdict.feedback, cap), ""]
    else:
        lines += ["<p><i>No feedback.</i></p>", ""]
    lines += [line for note in verdict.notes for line in (f"<p><i>{escape_html(note)}</i></p>", "")]
    return lines


def _task_section(task: TaskGrade, *, several: bool, cap: int | None) -> str:
    """One `<details>` per task that did not pass: per run, per failing grader, the feedback."""
    where = f" · {_html_name(task.results_name)}" if several else ""
    lines = [
        "<details>",
        f"<summary>{_task_icon(task)} {_task_label_html(task)}{where} — {_runs_line(task)}"
        "</summary>",
        "",
    ]
    for run in task.runs:
        if run.status == STATUS_ERROR:
            lines += [
                f"<p><b>Run {run.run_number}</b> · {ICON_ERROR} errored in the original"
                " execution; not graded</p>",
                "",
                *_pre(run.error_msg or "(no error message recorded)", cap),
                "",
            ]
            continue
        for verdict in _by_name(run.verdicts):
            if _is_problem(verdict):
                lines += _verdict_lines(run, verdict, cap)
    lines.append("</details>")
    return "\n".join(lines)


_FAILURES_HEADING = "### Failures"


# --- assembling within a budget ---------------------------------------------------------------


def _join(blocks: Iterable[str]) -> str:
    """Blocks separated by a blank line, ending with a newline."""
    return "\n\n".join(blocks) + "\n"


def _joined_size(blocks: Sequence[str]) -> int:
    return sum(utf8_len(b) for b in blocks) + 2 * max(len(blocks) - 1, 0) + 1


def _fit_lines(lines: Sequence[str], budget: int) -> tuple[list[str], int]:
    """The longest prefix of `lines` that, with closing tags for what it leaves open, fits.

    Returns (lines to keep, closers included; number of lines dropped). `budget` counts the
    lines joined by newlines. Only our own tags are tracked: they always stand alone on a line,
    and escaped text can never produce such a line.
    """
    stack: list[str] = []
    used = 0
    best_count = 0
    best_closers: list[str] = []
    for index in range(len(lines) + 1):
        closers = [_OPEN_TAGS[tag] for tag in reversed(stack)]
        if used + sum(utf8_len(c) + 1 for c in closers) <= budget:
            best_count, best_closers = index, closers
        if index == len(lines):
            break
        line = lines[index]
        used += utf8_len(line) + 1
        if line in _OPEN_TAGS:
            stack.append(line)
        elif line in _CLOSE_TAGS and stack:
            stack.pop()
    kept = list(lines[:best_count])
    while kept and not kept[-1].strip():
        kept.pop()
    return kept + best_closers, len(lines) - best_count


def _limit_phrase(limit: int, default: int, what: str) -> str:
    text = f"to fit in {format_bytes(limit)}"
    return text + f" (GitHub's {what} limit)" if limit == default else text


def _job_note(
    limit: int, *, cap: int | None, omitted: int, total: int, lines: int | None = None
) -> str:
    """The trim note; `lines` is set when the tables were cut (only problem tasks listed)."""
    clauses = []
    if cap is not None:
        clauses.append(f"feedback and error texts are cut to {format_bytes(cap)} each")
    if omitted and omitted == total:
        clauses.append(f"all {plural(total, 'failure section')} are omitted")
    elif omitted:
        clauses.append(f"the last {omitted} of {plural(total, 'failure section')} are omitted")
    if lines is not None:
        clauses.append("only the tasks that did not pass are listed")
    if lines:
        clauses.append(f"the last {plural(lines, 'line')} of the task tables are omitted")
    fit = _limit_phrase(limit, JOB_SUMMARY_LIMIT, "job-summary")
    return (
        f"> {ICON_ERROR} **Report trimmed** {fit}: {'; '.join(clauses)}."
        " The regraded results file keeps every verdict's full feedback."
    )


def _check_limit(limit_bytes: int) -> None:
    if limit_bytes < MIN_LIMIT:
        raise ValueError(f"limit_bytes must be at least {MIN_LIMIT}, got {limit_bytes}")


def _take_sections(
    tasks: Sequence[TaskGrade], *, several: bool, cap: int | None, budget: int
) -> tuple[list[str], bool]:
    """Render sections in order while they fit `budget` (each costs its bytes + a blank line).

    Stopping at the first that does not fit is "drop sections from the end"; stopping early
    also means a huge summary is never rendered in full.
    """
    kept: list[str] = []
    used = 0
    for task in tasks:
        section = _task_section(task, several=several, cap=cap)
        used += utf8_len(section) + 2
        if used > budget:
            return kept, False
        kept.append(section)
    return kept, True


def render_markdown(summary: GradeSummary, *, limit_bytes: int = JOB_SUMMARY_LIMIT) -> str:
    """The job-summary report: heading, verdict, counts, task tables, failures, skipped tasks.

    At most `limit_bytes` UTF-8 bytes. When the full report is bigger it is trimmed, always the
    same way and said so in a note under the verdict: first every feedback and error text is
    cut to the largest of FEEDBACK_CAPS that makes all failure sections fit; failing that,
    failure sections are dropped from the end at the smallest cap; failing that (the task
    tables alone are too big), only tasks that did not pass are listed and whole lines are cut
    from the end of the tables.
    """
    _check_limit(limit_bytes)
    counts = _count(summary)
    several = _several_results(summary)
    head = [_heading(summary), _verdict_line(summary, counts)]
    body = [_counts_table(counts), _source_line(summary), *_task_tables(summary)]
    body += _skipped_blocks(summary)
    problem_tasks = [task for task in summary.tasks if _task_has_problems(task)]
    extra = [_FAILURES_HEADING] if problem_tasks else []

    budget = limit_bytes - _joined_size(head + body + extra)
    # A text bigger than the whole budget can never fit, so capping at the budget changes
    # nothing that could be returned here, and spares rendering a huge text in full.
    sections, complete = _take_sections(
        problem_tasks, several=several, cap=limit_bytes, budget=budget
    )
    if complete and budget >= 0:
        return _join(head + body + extra + sections)

    total = len(problem_tasks)
    widest_note = _job_note(limit_bytes, cap=FEEDBACK_CAPS[-1], omitted=total, total=total)
    budget = limit_bytes - _joined_size([*head, widest_note, *body, *extra])
    if budget > 0:
        for cap in FEEDBACK_CAPS:
            sections, complete = _take_sections(
                problem_tasks, several=several, cap=cap, budget=budget
            )
            if complete or cap == FEEDBACK_CAPS[-1]:
                omitted = total - len(sections)
                shown = problem_tasks[: len(sections)]
                cut = cap if any(_longer_than(text, cap) for text in _texts(shown)) else None
                note = _job_note(limit_bytes, cap=cut, omitted=omitted, total=total)
                shown_extra = extra if sections else []
                return _join([*head, note, *body, *shown_extra, *sections])

    # The tables alone do not fit: list only the tasks that did not pass, then cut lines.
    body = [_counts_table(counts), _source_line(summary)]
    body += _task_tables(summary, only_problems=True) + _skipped_blocks(summary)
    lines = _join(body).rstrip("\n").split("\n")
    widest_note = _job_note(limit_bytes, cap=None, omitted=total, total=total, lines=len(lines))
    budget = limit_bytes - _joined_size([*head, widest_note]) - 2
    kept, dropped = _fit_lines(lines, budget)
    note = _job_note(limit_bytes, cap=None, omitted=total, total=total, lines=dropped)
    return _join([*head, note, "\n".join(kept)])


# --- the check run's compact form ---------------------------------------------------------------


def _first_line(text: str) -> str:
    for line in clean(text).split("\n"):
        if line.strip():
            return shorten(one_line(line), FIRST_LINE_CHARS)
    return ""


def _first_failures(summary: GradeSummary) -> list[str]:
    """Up to FIRST_FAILURES list items quoting the first line of each failing verdict."""
    items: list[str] = []
    total = 0
    for task in summary.tasks:
        for run in task.runs:
            entries: list[tuple[str, str, str]] = []
            if run.status == STATUS_ERROR:
                entries.append((ICON_ERROR, "errored in execution", run.error_msg or ""))
            for verdict in _by_name(run.verdicts):
                if _is_problem(verdict):
                    icon = ICON_ERROR if verdict.error is not None else ICON_FAILED
                    text = verdict.error if verdict.error is not None else verdict.feedback
                    kept = " (kept)" if not verdict.regraded else ""
                    entries.append((icon, f"{_md_name(verdict.name)}{kept}", text))
            for icon, what, text in entries:
                total += 1
                if len(items) < FIRST_FAILURES:
                    line = escape_markdown(_first_line(text)) or "_no feedback_"
                    items.append(
                        f"- {icon} **{_md_name(task.key)}** · run {run.run_number} · {what}: {line}"
                    )
    if total > len(items):
        items.append(f"- … and {total - len(items)} more")
    return ["### First failures", "\n".join(items)] if items else []


def _check_note(limit: int, lines: int) -> str:
    return (
        f"> {ICON_ERROR} **Summary trimmed** "
        f"{_limit_phrase(limit, CHECK_SUMMARY_LIMIT, 'check-run summary')}: the last "
        f"{plural(lines, 'line')} are omitted. The job summary has the full report."
    )


def render_check_summary(summary: GradeSummary, *, limit_bytes: int = CHECK_SUMMARY_LIMIT) -> str:
    """The check run's output.summary: verdict, counts, task table, the first failures.

    At most `limit_bytes` UTF-8 bytes. When bigger, the table is re-rendered with only the
    tasks that did not pass; if still bigger, whole lines are cut from the end (skipped tasks,
    then first failures, then table rows) and a note under the verdict says how many.
    """
    _check_limit(limit_bytes)
    counts = _count(summary)
    head = [_verdict_line(summary, counts)]
    tail = [*_first_failures(summary), *_skipped_blocks(summary)]
    body = [_counts_table(counts), _source_line(summary), *_task_tables(summary), *tail]
    document = _join(head + body)
    if utf8_len(document) <= limit_bytes:
        return document
    body = [_counts_table(counts), _source_line(summary)]
    body += [*_task_tables(summary, only_problems=True), *tail]
    lines = _join(body).rstrip("\n").split("\n")
    budget = limit_bytes - _joined_size([*head, _check_note(limit_bytes, len(lines))]) - 2
    kept, dropped = _fit_lines(lines, budget)
    if not dropped:
        return _join(head + body)
    return _join([*head, _check_note(limit_bytes, dropped), "\n".join(kept)])


def check_title(summary: GradeSummary) -> str:
    """One plain line for the check run's output.title, e.g. `3 of 4 runs passed · 1 grader error`.

    Built from counts only, so it carries no untrusted text.
    """
    counts = _count(summary)
    if counts.runs == 0:
        skipped = f" · {plural(len(summary.skipped), 'task')} skipped" if summary.skipped else ""
        return "Nothing graded" + skipped
    parts = [f"{counts.passed} of {plural(counts.runs, 'run')} passed"]
    if counts.errored:
        parts.append(f"{counts.errored} errored in execution")
    if counts.grader_errors:
        parts.append(plural(counts.grader_errors, "grader error"))
    return " · ".join(parts)
