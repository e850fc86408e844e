"""The history as pictures in text: the eval's share of runs passed over the window as a Mermaid
`xychart-beta` (GitHub renders it in the job summary) with this run marked, and each task that
changed or is flaky as a sparkline (`▁▃▅▇`) with its numbers beside. Pure.

Nothing untrusted enters the chart: its labels are ours (a short hex commit or a record's place,
gate/history.py), its title and axis fixed words, its values numbers. Task keys (untrusted) only
appear in the table, as code spans.
"""

from __future__ import annotations

from collections.abc import Sequence

from waza_ci.gate.baseline import BaselineComparison, Change, PassCount, TaskChange
from waza_ci.gate.history import HistoryView, TaskTrend
from waza_ci.gate.history_limits import TRENDS_LISTED
from waza_ci.report.gfm import JOB_SUMMARY, code
from waza_ci.report.text_safety import for_log

HEADING = "### History"
NOW_LABEL = "this run"
_LEVELS = "▁▂▃▄▅▆▇█"
_MISSING = "·"


def against(comparison: BaselineComparison) -> str:
    """` against the history` (or both) when not the baseline alone, which says nothing new."""
    return "" if comparison.against == "the baseline" else f" against {comparison.against}"


def percent(count: PassCount) -> float:
    return round(count.rate * 100, 1)


def mermaid_chart(view: HistoryView) -> str:
    """The eval's share of runs passed per record, then this run (a bar marks it)."""
    labels = [point.label for point in view.points] + [NOW_LABEL]
    values = [percent(point.runs) for point in view.points] + [percent(view.now)]
    marks = [0.0] * len(view.points) + [percent(view.now)]
    axis = ", ".join(f'"{label}"' for label in labels)
    return "\n".join(
        [
            "```mermaid",
            "xychart-beta",
            f'    title "Runs passed (%): the last {len(view.points)} recorded, then this run"',
            f"    x-axis [{axis}]",
            '    y-axis "runs passed (%)" 0 --> 100',
            f"    bar [{', '.join(_number(v) for v in marks)}]",
            f"    line [{', '.join(_number(v) for v in values)}]",
            "```",
        ]
    )


def _number(value: float) -> str:
    return f"{value:g}"


def sparkline(points: Sequence[PassCount | None]) -> str:
    """One character per record: its pass rate as a bar's height, `·` where it had no run."""
    return "".join(
        _MISSING if p is None or not p.total else _LEVELS[round(p.rate * (len(_LEVELS) - 1))]
        for p in points
    )


def _count(count: PassCount | None) -> str:
    if count is None:
        return "—"
    return f"{count.passed}/{count.total} ({count.rate * 100:.0f}%)"


def band_words(trend: TaskTrend) -> str:
    low, high = trend.band
    return f"95% band {low * 100:.0f}% to {high * 100:.0f}%"


def listed_trends(
    view: HistoryView, comparison: BaselineComparison | None
) -> list[tuple[TaskTrend, TaskChange | None]]:
    """The tasks worth a trend: those that regressed, moved within noise, flipped, or are flaky;
    regressions first."""
    changes = {t.key: t for t in comparison.tasks} if comparison is not None else {}
    found: list[tuple[TaskTrend, TaskChange | None]] = []
    for trend in view.tasks:
        change = changes.get(trend.key)
        moved = change is not None and (
            change.regression
            or change.within_noise
            or change.change in (Change.NEWLY_FAILING, Change.FIXED)
        )
        if moved or trend.flaky:
            found.append((trend, change))
    return sorted(found, key=lambda pair: not (pair[1] is not None and pair[1].regression))


def _notes(trend: TaskTrend, change: TaskChange | None) -> str:
    notes = []
    if change is not None and change.regression:
        notes.append("**regression**")
    elif change is not None and change.within_noise:
        notes.append("within noise")
    if trend.flaky:
        inside = "inside" if trend.inside_band else "outside"
        notes.append(f"flaky, {band_words(trend)}; now {inside} it")
    return "; ".join(notes)


def render_history_markdown(view: HistoryView, comparison: BaselineComparison | None) -> str:
    """The job summary's history section: what judged, the chart, the trends."""
    shown = code(view.file, JOB_SUMMARY, in_table=False)
    judged = "judged each task" if view.judged else "judged nothing"
    parts = [HEADING, "", f"The history {shown} {judged}: {_inline(view.note)}.", ""]
    if view.points:
        parts += [mermaid_chart(view), ""]
    listed = listed_trends(view, comparison)
    if listed:
        parts += [
            "| Task | Trend (oldest → this run) | History | Now | Notes |",
            "| --- | --- | ---: | ---: | --- |",
        ]
        for trend, change in listed[:TRENDS_LISTED]:
            parts.append(
                f"| {code(trend.key, JOB_SUMMARY)} | {sparkline(trend.points)} → "
                f"{sparkline([trend.now])} | {_count(trend.pooled)} | {_count(trend.now)} | "
                f"{_notes(trend, change)} |"
            )
        if len(listed) > TRENDS_LISTED:
            parts.append(f"\n… {len(listed) - TRENDS_LISTED} more task(s) with a trend")
    return "\n".join(parts).rstrip("\n") + "\n"


def _inline(text: str) -> str:
    # The note is our words around the file's name: a code span keeps the name from markup.
    return code(text, JOB_SUMMARY, in_table=False)


def render_history_text(view: HistoryView, comparison: BaselineComparison | None) -> list[str]:
    """A few plain lines for stderr / the log."""
    runs = sparkline([p.runs for p in view.points])
    lines = [
        f"waza-ci: history {for_log(view.file)}: {for_log(view.note)}; runs passed "
        f"{runs} -> {sparkline([view.now])} ({_count(view.now)} now)"
    ]
    for trend, change in listed_trends(view, comparison)[:TRENDS_LISTED]:
        mark = (
            " REGRESSION"
            if change is not None and change.regression
            else " (within noise)"
            if change is not None and change.within_noise
            else ""
        )
        flaky = f"; flaky, {band_words(trend)}" if trend.flaky else ""
        lines.append(
            f"  trend{mark}: {for_log(trend.key)} {sparkline(trend.points)} -> "
            f"{sparkline([trend.now])}: history {_count(trend.pooled)}, now {_count(trend.now)}"
            f"{flaky}"
        )
    return lines
