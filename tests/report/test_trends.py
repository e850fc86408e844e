"""The history's pictures: the job summary's Mermaid chart (judged by mermaid itself), the text
trends, and the HTML report's inline SVG (looked at in Chromium)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import DEMO, run_cli_process
from tests.report.browser import open_report
from tests.report.mermaid import Mermaid, mermaid
from waza_ci.gate.baseline import PassCount
from waza_ci.gate.history import HistoryView, TaskTrend, TrendPoint
from waza_ci.report.html.trends import eval_chart, task_sparkline
from waza_ci.report.trends import mermaid_chart, sparkline

if TYPE_CHECKING:
    from playwright.sync_api import Browser

__all__ = ["mermaid"]  # the fixture


def view(
    rates: list[tuple[int, int]], now: tuple[int, int], labels: list[str] | None = None
) -> HistoryView:
    names = labels or [f"#{i + 1}" for i in range(len(rates))]
    points = tuple(TrendPoint(n, PassCount(p, t)) for n, (p, t) in zip(names, rates, strict=True))
    task = TaskTrend(
        "t", tuple(PassCount(p, t) for p, t in rates), PassCount(10, 20), PassCount(*now)
    )
    return HistoryView("h.jsonl", 10, points, PassCount(*now), (task,), True, "")


def chart_source(markdown: str) -> str:
    match = re.search(r"```mermaid\n(.*?)```", markdown, re.S)
    assert match is not None, "no Mermaid block"
    return match.group(1)


@pytest.mark.parametrize(
    "shape",
    [
        view([(2, 2)] * 10, (0, 2), [f"{i:07x}" for i in range(10)]),
        view([(1, 2)], (2, 2)),
        view([(3, 7), (0, 0), (7, 7)], (1, 3), ["abcdef0", "abcdef0-2", "#3"]),
    ],
)
def test_the_chart_parses_and_renders_with_mermaid(mermaid: Mermaid, shape: HistoryView) -> None:
    source = chart_source(mermaid_chart(shape))
    result = mermaid.run(source)
    assert result["ok"], result.get("error")
    assert result["type"] == "xychart"
    assert "this run" in result["svg"] and "<svg" in result["svg"]


def test_mermaid_refuses_a_broken_chart(mermaid: Mermaid) -> None:
    """The judge judges: a chart with a word among its numbers does not parse."""
    source = chart_source(mermaid_chart(view([(2, 2)], (0, 2)))).replace("line [", "line [x, ")
    result = mermaid.run(source)
    assert not result["ok"] and "Parse error" in result["error"]


def test_sparklines_show_the_rate_of_each_record() -> None:
    assert sparkline([PassCount(2, 2), PassCount(0, 2), None, PassCount(1, 2)]) == "█▁·▅"


def test_the_svg_uses_no_colour_to_say_anything() -> None:
    """Readable without colour: every mark is the text's colour, white or none; shapes, dashes
    and words tell the past from this run and the band."""
    trend = view([(1, 2)] * 6, (0, 2)).tasks[0]
    for svg in (eval_chart(view([(1, 2)] * 6, (0, 2))), task_sparkline(trend)):
        colours = set(re.findall(r'(?:fill|stroke)="([^"]*)"', svg))
        assert colours <= {"currentColor", "white", "none"}, colours
        assert "style=" not in svg and "<script" not in svg


@pytest.fixture
def history_report(tmp_path: Path) -> Path:
    """The demo graded against a flaky history of four recorded gradings: summary and HTML."""
    history = tmp_path / "h.jsonl"
    for i in range(4):
        demo = tmp_path / f"main-{i}"
        shutil.copytree(DEMO, demo)
        if i % 2:
            doc = json.loads((demo / "results.json").read_text(encoding="utf-8"))
            for task in doc["tasks"]:
                if task["test_id"] == "bump-version":
                    task["runs"][0]["final_output"] = "Bumped the version to 1.2.0."
            (demo / "results.json").write_text(json.dumps(doc), encoding="utf-8")
        args = ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]
        env = {"GITHUB_SHA": str(i) * 40}
        done = run_cli_process([*args, "--history", str(history), "--record"], cwd=demo, env=env)
        assert done.code in (0, 1), done.stderr
    demo = tmp_path / "main-1"
    args = ["grade", "eval.yaml", "--results", "results.json", "--workspace", "workspace"]
    done = run_cli_process(
        [*args, "--history", str(history), "--summary", "s.md", "--html", "r.html"], cwd=demo
    )
    assert done.code == 1, done.stderr
    return demo


def test_the_summary_of_a_real_grading_holds_a_chart_mermaid_renders(
    mermaid: Mermaid, history_report: Path
) -> None:
    summary = (history_report / "s.md").read_text(encoding="utf-8")
    source = chart_source(summary)
    assert '["0000000", "1111111", "2222222", "3333333", "this run"]' in source
    result = mermaid.run(source)
    assert result["ok"], result.get("error")
    assert "| `bump-version` | ▇▅▇▅ → ▅ |" in summary.replace("█", "▇")


def test_the_html_report_draws_the_trends_in_chromium(
    browser: Browser, history_report: Path
) -> None:
    with open_report(browser, history_report / "r.html", javascript=False) as opened:
        chart = opened.page.locator("svg.trend")
        box = chart.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 100
        assert "this run" in chart.inner_html()
        spark = opened.page.locator("table.trends svg.spark")
        assert spark.count() == 1 and spark.bounding_box() is not None
        row = opened.page.locator("table.trends tr", has_text="bump-version").inner_text()
        assert "flaky, 95% band" in row
        assert opened.outside == [] and opened.errors == []
    with open_report(browser, history_report / "r.html") as opened:  # and with the script on
        assert opened.page.locator("svg.trend").is_visible()
        assert opened.errors == [] and opened.outside == []
