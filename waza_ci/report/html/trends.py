"""The history's trends in the HTML report: the eval's share of runs passed over the window, and
each task that changed or is flaky, as inline SVG. Pure.

No script and nothing loaded: the SVG is markup inside the page, which the page's CSP allows
(it pins scripts and styles, and inline SVG is neither), and it uses presentation attributes,
never a `style` attribute. Readable without colour: every mark is `currentColor`, the past is
circles on a solid line, this run a filled square, a flaky task's band two dashed lines, and
every figure is written beside the picture. The labels are ours (short hex commits or a
record's place) and go through `esc` like every other text.
"""

from __future__ import annotations

from collections.abc import Sequence

from waza_ci.gate.baseline import PassCount
from waza_ci.gate.history import HistoryView, TaskTrend
from waza_ci.gate.history_limits import TRENDS_LISTED
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.html.first_screen import esc
from waza_ci.report.trends import NOW_LABEL, band_words, listed_trends

_W, _H = 640, 200
_LEFT, _RIGHT, _TOP, _BOTTOM = 44, 620, 16, 160
_SPARK_W, _SPARK_H = 160, 28


def _y(rate: float, top: float, bottom: float) -> float:
    return round(bottom - rate * (bottom - top), 1)


def _xs(count: int, left: float, right: float) -> list[float]:
    if count == 1:
        return [round((left + right) / 2, 1)]
    step = (right - left) / (count - 1)
    return [round(left + i * step, 1) for i in range(count)]


def _count(count: PassCount | None) -> str:
    if count is None:
        return "—"
    return f"{count.passed}/{count.total} ({count.rate * 100:.0f}%)"


def eval_chart(view: HistoryView) -> str:
    """The eval's runs passed per record (circles, a solid line), then this run (a square)."""
    rates = [p.runs.rate for p in view.points] + [view.now.rate]
    labels = [p.label for p in view.points] + [NOW_LABEL]
    xs = _xs(len(rates), _LEFT + 12, _RIGHT - 12)
    ys = [_y(rate, _TOP, _BOTTOM) for rate in rates]
    past = " ".join(f"{x},{y}" for x, y in zip(xs[:-1], ys[:-1], strict=True))
    title = (
        f"Runs passed, the last {len(view.points)} recorded gradings then this run: "
        + ", ".join(f"{label} {rate * 100:.0f}%" for label, rate in zip(labels, rates, strict=True))
    )
    parts = [
        f'<svg class="trend" role="img" viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}"'
        ' xmlns="http://www.w3.org/2000/svg" font-size="11" font-family="system-ui, sans-serif">',
        f"<title>{esc(title)}</title>",
    ]
    for rate in (0.0, 0.5, 1.0):
        y = _y(rate, _TOP, _BOTTOM)
        dash = "" if rate == 0.0 else ' stroke-dasharray="2 4"'
        parts.append(
            f'<line x1="{_LEFT}" y1="{y}" x2="{_RIGHT}" y2="{y}" stroke="currentColor"'
            f' stroke-opacity="0.35"{dash}/>'
            f'<text x="{_LEFT - 6}" y="{y + 4}" text-anchor="end" fill="currentColor">'
            f"{rate * 100:.0f}%</text>"
        )
    if len(xs) > 2:
        parts.append(
            f'<polyline points="{past}" fill="none" stroke="currentColor" stroke-width="2"/>'
        )
    parts += [
        f'<circle cx="{x}" cy="{y}" r="3.5" fill="white" stroke="currentColor" stroke-width="2"/>'
        for x, y in zip(xs[:-1], ys[:-1], strict=True)
    ]
    now_x, now_y = xs[-1], ys[-1]
    parts.append(
        f'<line x1="{now_x}" y1="{_TOP}" x2="{now_x}" y2="{_BOTTOM}" stroke="currentColor"'
        ' stroke-dasharray="5 3"/>'
        f'<rect x="{now_x - 5}" y="{now_y - 5}" width="10" height="10" fill="currentColor"/>'
        f'<text x="{now_x - 8}" y="{max(now_y - 9, _TOP + 10)}" text-anchor="end"'
        f' fill="currentColor" font-weight="bold">this run {view.now.rate * 100:.0f}%</text>'
    )
    every = max(1, -(-len(labels) // 12))  # at most a dozen labels under the axis
    for i, (x, label) in enumerate(zip(xs, labels, strict=True)):
        if i % every == 0 or i == len(labels) - 1:
            parts.append(
                f'<text x="{x}" y="{_BOTTOM + 18}" text-anchor="middle" fill="currentColor">'
                f"{esc(label)}</text>"
            )
    parts.append(
        f'<text x="{_LEFT}" y="{_H - 6}" fill="currentColor">○ a recorded grading · ■ this run'
        " · share of runs passed</text></svg>"
    )
    return "".join(parts)


def task_sparkline(trend: TaskTrend) -> str:
    """One task's pass rate per record (circles), this run (a square), and, when it is flaky,
    its 95 % band as two dashed lines."""
    rates: Sequence[float | None] = [
        None if p is None or not p.total else p.rate for p in trend.points
    ]
    xs = _xs(len(rates) + 1, 6, _SPARK_W - 8)
    top, bottom = 4, _SPARK_H - 4
    parts = [
        f'<svg class="spark" role="img" viewBox="0 0 {_SPARK_W} {_SPARK_H}" width="{_SPARK_W}"'
        f' height="{_SPARK_H}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{esc(_spark_title(trend))}</title>",
    ]
    if trend.flaky:
        for bound in trend.band:
            y = _y(bound, top, bottom)
            parts.append(
                f'<line x1="2" y1="{y}" x2="{_SPARK_W - 2}" y2="{y}" stroke="currentColor"'
                ' stroke-dasharray="3 2" stroke-opacity="0.6"/>'
            )
    known = [(x, _y(r, top, bottom)) for x, r in zip(xs, rates, strict=False) if r is not None]
    if len(known) > 1:
        points = " ".join(f"{x},{y}" for x, y in known)
        parts.append(f'<polyline points="{points}" fill="none" stroke="currentColor"/>')
    parts += [
        f'<circle cx="{x}" cy="{y}" r="2.5" fill="white" stroke="currentColor"/>' for x, y in known
    ]
    if trend.now is not None and trend.now.total:
        y = _y(trend.now.rate, top, bottom)
        parts.append(
            f'<rect x="{xs[-1] - 3.5}" y="{y - 3.5}" width="7" height="7" fill="currentColor"/>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _spark_title(trend: TaskTrend) -> str:
    past = ", ".join("none" if p is None else f"{p.rate * 100:.0f}%" for p in trend.points)
    return f"runs passed per record: {past}; this run {_count(trend.now)}"


def history_section(evaluation: Evaluation) -> list[str]:
    """The first screen's history: what judged, the eval's trend, the tasks' trends."""
    view = evaluation.history
    if view is None:
        return []
    judged = "judged each task" if view.judged else "judged nothing"
    blocks = [
        '<h2 id="history">History</h2>',
        f"<p>The history <code>{esc(view.file)}</code> {judged}: {esc(view.note)}.</p>",
    ]
    if view.points:
        blocks.append(f"<figure>{eval_chart(view)}</figure>")
    listed = listed_trends(view, evaluation.comparison)
    if listed:
        rows = []
        for trend, change in listed[:TRENDS_LISTED]:
            notes = []
            if change is not None and change.regression:
                notes.append("<b>regression</b>")
            elif change is not None and change.within_noise:
                notes.append("within noise")
            if trend.flaky:
                inside = "inside" if trend.inside_band else "outside"
                notes.append(f"flaky, {esc(band_words(trend))}; now {inside} it")
            rows.append(
                f"<tr><td><code>{esc(trend.key)}</code></td><td>{task_sparkline(trend)}</td>"
                f'<td class="num">{_count(trend.pooled)}</td>'
                f'<td class="num">{_count(trend.now)}</td><td>{"; ".join(notes)}</td></tr>'
            )
        blocks += [
            '<table class="trends"><thead><tr><th>Task</th><th>Trend (○ recorded, ■ this run)'
            '</th><th class="num">History</th><th class="num">Now</th><th>Notes</th></tr>'
            "</thead><tbody>",
            *rows,
            "</tbody></table>",
        ]
        if len(listed) > TRENDS_LISTED:
            blocks.append(f'<p class="more">… {len(listed) - TRENDS_LISTED} more task(s).</p>')
    return blocks
