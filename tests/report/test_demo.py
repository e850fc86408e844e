"""The demo's report, graded for real and compared with golden files reviewed by hand.

Times vary from run to run, so they are replaced by fixed ones before rendering; everything
else is what the engine produced. `docs/demo-summary.md` (linked from the README) is the same
job summary, and the README's terminal example is the same first screen.

Regenerate on purpose, then read the diff:
    UPDATE_GOLDEN=1 .venv/bin/pytest tests/report/test_demo.py
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import DEMO, ROOT
from waza_ci.engine import GradeRequest, prepare_grading, run_grading
from waza_ci.report.annotations import build_annotations
from waza_ci.report.build import build_report
from waza_ci.report.markdown import render_check_summary, render_check_text, render_markdown
from waza_ci.report.model import Report, SourceLinks, report_json_text
from waza_ci.report.text import render_text
from waza_ci.waza.scoring import GradeSummary

GOLDEN = Path(__file__).parent / "golden"
DOCS_SUMMARY = ROOT / "docs" / "demo-summary.md"
LINKS = SourceLinks("https://github.com", "your-org/waza-ci", "4f3c2b1a" * 5)


def _fixed_times(summary: GradeSummary) -> GradeSummary:
    def timed(verdict_duration: int, name: str, run_number: int) -> int:
        return 40 + 3 * len(name) + 7 * run_number if verdict_duration else 0

    tasks = tuple(
        replace(
            task,
            runs=tuple(
                replace(
                    run,
                    verdicts=tuple(
                        replace(v, duration_ms=timed(v.duration_ms or 1, v.name, run.run_number))
                        if v.regraded
                        else v
                        for v in run.verdicts
                    ),
                )
                for run in task.runs
            ),
        )
        for task in summary.tasks
    )
    return replace(summary, tasks=tasks, elapsed_ms=1_234)


@pytest.fixture(scope="module")
def demo_report() -> Report:
    request = GradeRequest(
        eval_path=DEMO / "eval.yaml",
        results=[str(DEMO / "results.json")],
        task=None,
        workspace=DEMO / "workspace",
        working_directory=DEMO,
        jobs=2,
        grader_env=dict(os.environ),
        temp_dir=tempfile.gettempdir(),
    )
    summary = run_grading(prepare_grading(request)).summary
    return build_report(_fixed_times(summary), repo_root=str(ROOT), links=LINKS)


def _check(name: str, rendered: str, *also: Path) -> None:
    paths = [GOLDEN / name, *also]
    if os.environ.get("UPDATE_GOLDEN") == "1":
        for path in paths:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(rendered.encode("utf-8"))
    for path in paths:
        assert path.exists(), f"{path} is missing; create it with UPDATE_GOLDEN=1 and review it"
        assert rendered == path.read_text(encoding="utf-8"), f"{path} differs; UPDATE_GOLDEN=1"


def test_demo_job_summary(demo_report: Report) -> None:
    _check("demo-summary.md", render_markdown(demo_report), DOCS_SUMMARY)


def test_demo_check_run(demo_report: Report) -> None:
    _check("demo-check-summary.md", render_check_summary(demo_report))
    _check("demo-check-text.md", render_check_text(demo_report))
    annotations = [a.__dict__ for a in build_annotations(demo_report)]
    _check("demo-annotations.json", json.dumps(annotations, indent=2, ensure_ascii=False) + "\n")


def test_demo_terminal_and_json(demo_report: Report) -> None:
    _check("demo-terminal.txt", render_text(demo_report))
    _check("demo-report.json", report_json_text(demo_report))


def test_demo_first_screen_shows_the_failure_its_reason_and_yaml_link(
    demo_report: Report,
) -> None:
    first_screen = render_check_summary(demo_report).split("<details>")[0]
    assert "**❌ Failed**" in first_screen
    assert (
        f"[`entries_link_prs`](https://github.com/your-org/waza-ci/blob/{'4f3c2b1a' * 5}"
        "/examples/demo/tasks/changelog.yaml#L22)"
    ) in first_screen
    assert "AssertionError: 2 of 2 entries in '## 1.2.0' do not name their pull request" in (
        first_screen
    )
    assert "| 2 / 2 |" in first_screen


def test_readme_shows_the_demo_first_screen(demo_report: Report) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    verdict, *rows = render_text(demo_report).splitlines()
    assert verdict.rsplit(" · ", 1)[0] in readme  # all but the time, which varies
    for row in rows:
        assert row in readme
