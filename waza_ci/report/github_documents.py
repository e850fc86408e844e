"""Evaluation -> the three Markdown documents GitHub shows, each within its size limit. Pure.

* the job summary (1 MiB): heading, the first screen, then every failing grader's details;
* the check run's `output.summary` (65,535 bytes): the first screen;
* the check run's `output.text` (65,535 bytes): the details.

Check-run fields carry no 4-byte UTF-8 (GitHub rejects it there): such characters read
`U+1F600`. The job summary keeps them. Sizes are UTF-8 bytes. Deterministic: same report,
same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from waza_ci.english import plural
from waza_ci.policy import ListMode
from waza_ci.report.details import DetailSection, most_trimmed, render_details, sections_of
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.gfm import CHECK_RUN, JOB_SUMMARY, Medium, code
from waza_ci.report.github_limits import CHECK_OUTPUT_BYTES, CHECK_TITLE_CHARS, JOB_SUMMARY_BYTES
from waza_ci.report.markdown_screen import first_screen
from waza_ci.report.model import Report
from waza_ci.report.text_safety import format_bytes, lines_that_fit, one_line, utf8_len
from waza_ci.report.words import ICON_ERROR, verdict_label, verdict_parts

MIN_LIMIT = 4_096
"""The smallest budget that always holds the heading, the verdict line and a trim note."""

SUMMARY_ROWS = 50
"""Failure rows on the job summary's first screen (the details list every one)."""
CHECK_SUMMARY_ROWS = 30


def _join(blocks: Iterable[str]) -> str:
    return "\n\n".join(blocks) + "\n"


def _size(blocks: Sequence[str]) -> int:
    return utf8_len(_join(blocks)) if blocks else 0


def _check_limit(limit_bytes: int) -> None:
    if limit_bytes < MIN_LIMIT:
        raise ValueError(f"limit_bytes must be at least {MIN_LIMIT}, got {limit_bytes}")


def _heading(report: Report, medium: Medium) -> str:
    name = one_line(report.eval_name)
    return f"## waza-ci: {code(name, medium, in_table=False)}" if name else "## waza-ci"


def _trim_note(limit: int, what: str, cut: int, dropped: int) -> str:
    clauses = []
    if cut:
        clauses.append(f"{plural(cut, 'long output')} shown as head and tail")
    if dropped:
        clauses.append(f"the last {plural(dropped, 'detail section')} left out")
    return (
        f"> {ICON_ERROR} **Trimmed to fit {format_bytes(limit)}** ({what}): "
        f"{'; '.join(clauses)}. The report JSON (`report-json`) and the regraded results file"
        " keep every text as captured."
    )


def _fit_first_screen(blocks: list[str], budget: int, limit: int) -> list[str]:
    """The first screen alone over `budget` (a tiny limit, very long names): the verdict line,
    a note, then whole lines up to the budget, closing a `<details>` left open."""
    if _size(blocks) <= budget:
        return blocks
    verdict, rest = blocks[0], blocks[1:]
    lines = _join(rest).rstrip("\n").split("\n")
    note = (
        f"> {ICON_ERROR} **Trimmed to fit {format_bytes(limit)}**: the end of this"
        " screen is left out."
    )
    budget -= utf8_len(verdict) + 2 + utf8_len(note) + 2 + len("</details>") + 2
    kept = lines[: lines_that_fit(lines, budget)]
    opened = sum(1 for line in kept if line == "<details>") - sum(
        1 for line in kept if line == "</details>"
    )
    tail = ["", "</details>"] if opened > 0 else []
    return [verdict, note, "\n".join(kept + tail)]


def render_markdown(
    evaluation: Evaluation,
    *,
    mode: ListMode = ListMode.FAILURES,
    limit_bytes: int = JOB_SUMMARY_BYTES,
    extra: Sequence[str] = (),
) -> str:
    """The job summary: heading, first screen, details; at most `limit_bytes` UTF-8 bytes.
    `extra`: Markdown blocks for the first screen, after the failures (see first_screen)."""
    return _document(
        evaluation,
        JOB_SUMMARY,
        mode=mode,
        extra=extra,
        limit_bytes=limit_bytes,
        rows=SUMMARY_ROWS,
        heading=True,
        details=True,
        what="job summary",
    )


def render_check_summary(
    evaluation: Evaluation,
    *,
    mode: ListMode = ListMode.FAILURES,
    limit_bytes: int = CHECK_OUTPUT_BYTES,
    extra: Sequence[str] = (),
) -> str:
    """The check run's output.summary: the first screen."""
    return _document(
        evaluation,
        CHECK_RUN,
        mode=mode,
        extra=extra,
        limit_bytes=limit_bytes,
        rows=CHECK_SUMMARY_ROWS,
        heading=False,
        details=False,
        what="check-run summary",
    )


def render_check_text(evaluation: Evaluation, *, limit_bytes: int = CHECK_OUTPUT_BYTES) -> str:
    """The check run's output.text: every failing grader's distinct outputs (or a line
    saying there are none)."""
    _check_limit(limit_bytes)
    sections = sections_of(evaluation.model, CHECK_RUN)
    if not sections:
        return "Every grader passed on every run: there is nothing to detail.\n"
    head = ["### Details"]
    widest = _widest_note(limit_bytes, "check-run text", sections)
    details = render_details(sections, CHECK_RUN, limit_bytes - _size([*head, *widest]) - 2)
    note = _note_for(limit_bytes, "check-run text", details.cut_texts, details.dropped_sections)
    return _join([*head, *note, *details.blocks])


def _note_for(limit: int, what: str, cut: int, dropped: int) -> list[str]:
    return [_trim_note(limit, what, cut, dropped)] if cut or dropped else []


def _widest_note(limit: int, what: str, sections: Sequence[DetailSection]) -> list[str]:
    """The trim note as wide as these sections can make it, which the details' budget keeps
    room for before their counts are known: a note only grows with its counts (digits, a
    plural's `s`), and neither count can pass its `most_trimmed` bound. No sections, no note."""
    return _note_for(limit, what, *most_trimmed(sections))


def _document(
    evaluation: Evaluation,
    medium: Medium,
    *,
    mode: ListMode,
    limit_bytes: int,
    rows: int,
    heading: bool,
    details: bool,
    what: str,
    extra: Sequence[str],
) -> str:
    _check_limit(limit_bytes)
    report = evaluation.model
    head = [_heading(report, medium)] if heading else []
    sections = sections_of(report, medium) if details else []
    widest = _widest_note(limit_bytes, what, sections)
    screen = first_screen(
        report, evaluation.decision, medium, max_rows=rows, mode=mode, extra=extra
    )
    screen = _fit_first_screen(screen, limit_bytes - _size([*head, *widest]) - 2, limit_bytes)
    if not sections:
        return _join([*head, *screen])
    detail_heading = ["### Details"]
    budget = limit_bytes - _size([*head, *widest, *screen, *detail_heading]) - 2
    if budget <= 0:
        return _join([*head, *screen])
    found = render_details(sections, medium, budget)
    note = _note_for(limit_bytes, what, found.cut_texts, found.dropped_sections)
    shown = detail_heading + found.blocks if found.blocks else []
    return _join([*head, *screen[:1], *note, *screen[1:], *shown])


def check_title(evaluation: Evaluation) -> str:
    """One plain line for output.title: the decision and the counts (no untrusted text, no
    time: the same grading gives the same title)."""
    parts = [
        verdict_label(evaluation.decision)[1],
        *verdict_parts(evaluation.model, with_time=False),
    ]
    title = " · ".join(parts)
    return title[:CHECK_TITLE_CHARS]
