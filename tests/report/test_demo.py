"""The demo's report, graded for real and compared with golden files reviewed by hand.

Times vary from run to run, so they are replaced by fixed ones before rendering, as they come
out: a grader that starts a process (`program`, `code`) takes tens of milliseconds, an
in-process one microseconds, which its whole-millisecond `duration_ms` records as 0. Everything
else is what the engine produced. `docs/demo-summary.md` (linked from the README) is the same
job summary under a hand-written introduction, and the README's terminal example is the same
first screen.

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
from waza_ci.graders import KINDS
from waza_ci.report.annotations import build_annotations
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.github_documents import render_check_summary, render_check_text, render_markdown
from waza_ci.report.model import SourceLinks, report_json_text
from waza_ci.report.terminal import render_text
from waza_ci.waza.scoring import GradeSummary

GOLDEN = Path(__file__).parent / "golden"
DOCS_SUMMARY = ROOT / "docs" / "demo-summary.md"
LINKS = SourceLinks("https://github.com", "your-org/waza-ci", "4f3c2b1a" * 5)
DOCS_GENERATED = "<!-- Generated below this line by tests/report/test_demo.py; edit above it. -->\n"
"""Splits docs/demo-summary.md: its introduction above, the rendered job summary below."""


def _starts_a_process(kind: str) -> bool:
    grader = KINDS.get(kind)
    return grader is not None and not grader.in_process


def _in_process_kinds(summary: GradeSummary) -> set[str]:
    return {
        v.kind
        for task in summary.tasks
        for run in task.runs
        for v in run.verdicts
        if v.regraded and not _starts_a_process(v.kind)
    }


def _fixed_times(summary: GradeSummary) -> GradeSummary:
    def timed(kind: str, name: str, run_number: int) -> int:
        # A process start, as measured on a quiet machine; an in-process check takes
        # microseconds and records 0 whole milliseconds.
        return 60 + len(name) + 3 * run_number if _starts_a_process(kind) else 0

    tasks = tuple(
        replace(
            task,
            runs=tuple(
                replace(
                    run,
                    verdicts=tuple(
                        replace(v, duration_ms=timed(v.kind, v.name, run.run_number))
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
    return replace(summary, tasks=tasks, elapsed_ms=640)


@pytest.fixture(scope="module")
def demo_summary() -> GradeSummary:
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
    return run_grading(prepare_grading(request)).summary


@pytest.fixture(scope="module")
def demo_report(demo_summary: GradeSummary) -> Evaluation:
    return Evaluation.build(_fixed_times(demo_summary), repo_root=str(ROOT), links=LINKS)


def _check(name: str, rendered: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rendered.encode("utf-8"))
    assert path.exists(), f"{path} is missing; create it with UPDATE_GOLDEN=1 and review it"
    assert rendered == path.read_text(encoding="utf-8"), f"{path} differs; UPDATE_GOLDEN=1"


def _docs_summary_parts() -> tuple[str, str]:
    text = DOCS_SUMMARY.read_text(encoding="utf-8")
    assert DOCS_GENERATED in text, f"{DOCS_SUMMARY} lacks the line {DOCS_GENERATED!r}"
    introduction, generated = text.split(DOCS_GENERATED, 1)
    return introduction, generated.removeprefix("\n")


@pytest.mark.slow
def test_demo_job_summary(demo_report: Evaluation) -> None:
    rendered = render_markdown(demo_report)
    _check("demo-summary.md", rendered)
    introduction, generated = _docs_summary_parts()
    if os.environ.get("UPDATE_GOLDEN") == "1":
        DOCS_SUMMARY.write_text(f"{introduction}{DOCS_GENERATED}\n{rendered}", encoding="utf-8")
        generated = rendered
    assert generated == rendered, f"{DOCS_SUMMARY} differs; UPDATE_GOLDEN=1"


@pytest.mark.slow
def test_demo_times_are_a_process_start_or_microseconds(
    demo_summary: GradeSummary, demo_report: Evaluation
) -> None:
    in_process = _in_process_kinds(demo_summary)
    assert {"behavior", "expected", "file", "text"} <= in_process
    timed = {
        row.grader
        for task in demo_report.model.tasks
        for row in task.graders
        if row.regraded and row.duration_ms
    }
    starting = {
        v.name
        for task in demo_summary.tasks
        for run in task.runs
        for v in run.verdicts
        if v.regraded and _starts_a_process(v.kind)
    }
    assert timed == starting


def test_the_docs_page_names_the_in_process_kinds(demo_summary: GradeSummary) -> None:
    introduction, _ = _docs_summary_parts()
    missing = [k for k in sorted(_in_process_kinds(demo_summary)) if f"`{k}`" not in introduction]
    assert not missing, f"{DOCS_SUMMARY}'s introduction does not name {missing} as in process"


@pytest.mark.slow
def test_demo_check_run(demo_report: Evaluation) -> None:
    _check("demo-check-summary.md", render_check_summary(demo_report))
    _check("demo-check-text.md", render_check_text(demo_report))
    annotations = [a.__dict__ for a in build_annotations(demo_report.model)]
    _check("demo-annotations.json", json.dumps(annotations, indent=2, ensure_ascii=False) + "\n")


def test_demo_terminal_and_json(demo_report: Evaluation) -> None:
    _check("demo-terminal.txt", render_text(demo_report))
    _check("demo-report.json", report_json_text(demo_report.model, demo_report.decision))


def test_demo_first_screen_shows_the_failure_its_reason_and_yaml_link(
    demo_report: Evaluation,
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


def test_readme_shows_the_demo_first_screen(demo_report: Evaluation) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    verdict, *rows = render_text(demo_report).splitlines()
    assert verdict.rsplit(" · ", 1)[0] in readme  # all but the time, which varies
    for row in rows:
        assert row in readme
