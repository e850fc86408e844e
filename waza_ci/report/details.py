"""Report -> the detail sections (each failing grader's distinct outputs), within a byte budget.

Every (task, grader) that did not pass gets a collapsible section: its YAML line, then each
distinct text once, headed "× N runs" with the run numbers. Long texts keep their head and
their tail (assertions are usually at the end). The budget is shared out so that as much of
it as possible is used: texts smaller than the fair share are kept whole, and the rest share
what is left equally (water-filling); only if even the section headings do not fit are whole
sections dropped from the end, and the note says how many.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from waza_ci.english import agreed, plural
from waza_ci.report.gfm import Medium, code, fence_overhead, fenced, html_code, link
from waza_ci.report.model import FeedbackGroup, GraderRow, Report, TaskResult
from waza_ci.report.reasons import format_duration
from waza_ci.report.text_safety import head_tail, utf8_len
from waza_ci.report.words import ICON_ERROR, ICON_FAILED
from waza_ci.waza.scoring import Status

MIN_TEXT_BYTES = 256
"""No text is cut below this: past that point, dropping sections says more than crumbs."""


@dataclass(frozen=True)
class DetailSection:
    """One failing grader's (or task's errored runs') section, before the budget is shared."""

    head: str
    groups: tuple[tuple[str, str], ...]
    """(heading line, text to fence)"""
    tail: str = "</details>"


def _runs(group: FeedbackGroup) -> str:
    numbers = ", ".join(str(n) for n in group.runs)
    label = agreed(len(group.runs), "run")
    return f"**× {len(group.runs)} {label}** ({label} {numbers}):"


def _row_section(row: GraderRow, medium: Medium) -> DetailSection:
    icon = ICON_ERROR if row.status is Status.ERROR else ICON_FAILED
    what = "errored" if row.status is Status.ERROR else "failed"
    where = link(code(str(row.source), medium, in_table=False), row.source.url)
    time = (
        " · kept verdict"
        if row.not_run == "kept"
        else " · not graded"
        if row.not_run
        else f" · {format_duration(row.duration_ms)}"
    )
    head = "\n".join(
        [
            "<details>",
            f"<summary>{icon} {html_code(row.task_key, medium)} · {html_code(row.grader, medium)}"
            f" — {row.runs_failed} of {plural(row.runs_total, 'run')} {what}</summary>",
            "",
            f"Defined at {where}{time}",
        ]
    )
    return DetailSection(head, tuple((_runs(g), g.text) for g in row.feedback))


def _errored_section(task: TaskResult, medium: Medium) -> DetailSection | None:
    if task.errored_runs is None:
        return None
    head = "\n".join(
        [
            "<details>",
            f"<summary>{ICON_ERROR} {html_code(task.key, medium)} — "
            f"{plural(task.errored_runs.count, 'run')} errored in the original execution"
            " (not graded)</summary>",
            "",
            "Task defined at "
            + link(code(str(task.source), medium, in_table=False), task.source.url),
        ]
    )
    return DetailSection(head, tuple((_runs(g), g.text) for g in task.errored_runs.feedback))


def sections_of(report: Report, medium: Medium) -> list[DetailSection]:
    sections = [_row_section(row, medium) for row in report.problems]
    for task in report.tasks:
        section = _errored_section(task, medium)
        if section is not None:
            sections.append(section)
    return sections


def _render(section: DetailSection, texts: Sequence[str], medium: Medium) -> str:
    parts = [section.head]
    for (heading, _), text in zip(section.groups, texts, strict=True):
        parts += ["", heading, "", fenced(text, medium)]
    parts += ["", section.tail]
    return "\n".join(parts)


def _overhead(section: DetailSection, medium: Medium) -> int:
    """Bytes of the section without its texts (fences included)."""
    size = utf8_len(section.head) + utf8_len(section.tail) + 2
    for heading, text in section.groups:
        size += utf8_len(heading) + 4 + fence_overhead(medium.prep(text))
    return size


def _fair_cap(sizes: Sequence[int], budget: int) -> int | None:
    """The largest per-text cap c with Σ min(size, c) ≤ budget; None when all fit whole."""
    if sum(sizes) <= budget:
        return None
    remaining = budget
    ordered = sorted(sizes)
    for index, size in enumerate(ordered):
        share = remaining // (len(ordered) - index)
        if size > share:
            return share
        remaining -= size
    return None


@dataclass(frozen=True)
class Details:
    blocks: list[str]
    cut_texts: int
    dropped_sections: int


def most_trimmed(sections: Sequence[DetailSection]) -> tuple[int, int]:
    """(cut texts, dropped sections) at their most: what `render_details` can report for
    `sections` at any budget is at most every text cut and every section dropped."""
    return _text_count(sections), len(sections)


def render_details(every: Sequence[DetailSection], medium: Medium, budget: int) -> Details:
    """The sections of `sections_of` within `budget` UTF-8 bytes (blank lines between them
    included)."""
    sections = list(every)
    overheads = [_overhead(s, medium) + 2 for s in sections]
    # Running totals: dropping sections one by one from the end stays linear.
    needed = sum(overheads) + MIN_TEXT_BYTES * _text_count(sections)
    while sections and needed > budget:
        needed -= overheads.pop() + MIN_TEXT_BYTES * len(sections.pop().groups)
    texts = [medium.prep(text) for s in sections for _, text in s.groups]
    cap = _fair_cap([utf8_len(t) for t in texts], budget - sum(overheads))
    cut_count = 0
    if cap is not None:
        cap = max(cap, MIN_TEXT_BYTES)
        shown = []
        for text in texts:
            short = head_tail(text, cap)
            cut_count += short is not text
            shown.append(short)
        texts = shown
    blocks = []
    position = 0
    for section in sections:
        count = len(section.groups)
        blocks.append(_render(section, texts[position : position + count], medium))
        position += count
    return Details(blocks, cut_count, len(every) - len(sections))


def _text_count(sections: Sequence[DetailSection]) -> int:
    return sum(len(s.groups) for s in sections)
