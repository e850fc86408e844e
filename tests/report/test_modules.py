"""The grader modules of `ref:` graders in every report: the terminal, the Markdown summary,
the HTML report and the report JSON name the module, its commit and digest, and each ref
grader's row shows the ref beside its YAML line; a hostile ref is text everywhere."""

from __future__ import annotations

from dataclasses import replace

import cmarkgfm

from tests.report import factories
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.github_documents import render_markdown
from waza_ci.report.html.first_screen import render_first_screen
from waza_ci.report.model import report_json
from waza_ci.report.terminal import render_text
from waza_ci.waza.modules.ref import ModulePin
from waza_ci.waza.scoring import GradeSummary

REF = "github.com/acme/graders#<img src=x onerror=alert(1)>`|@v1.0.0"
PIN = ModulePin(REF, "3f2a9c1e0b7d4a5f6e8c9b0a1d2e3f4a5b6c7d8e", "sha256:" + "ab" * 32)


def with_module(summary: GradeSummary, grader: str = "tests_pass") -> GradeSummary:
    tasks = tuple(
        replace(
            task,
            graders={
                name: replace(ref, module=PIN) if name == grader else ref
                for name, ref in task.graders.items()
            },
        )
        for task in summary.tasks
    )
    return replace(summary, tasks=tasks)


def evaluation(summary: GradeSummary) -> Evaluation:
    return Evaluation.build(summary, repo_root=factories.REPO)


def test_the_terminal_names_the_module_of_a_passing_ref_grader() -> None:
    text = render_text(evaluation(with_module(factories.passing_summary())))
    (line,) = [line for line in text.splitlines() if "by reference" in line]
    assert line.startswith("  graders by reference: tests_pass (evals/code-review/eval.yaml:18)")
    assert "3f2a9c1e0b7d" in line and "sha256:abababababab…" in line and REF in line


def test_a_failing_ref_graders_row_shows_the_ref_beside_its_line() -> None:
    evaluated = evaluation(with_module(factories.failing_summary()))
    model = evaluated.model
    rows = [row for row in model.problems if row.grader == "tests_pass"]
    assert rows and all(str(row.source).endswith(f"eval.yaml:18 (ref {REF})") for row in rows)
    assert f"eval.yaml:18 (ref {REF})" in render_text(evaluated)
    data = report_json(model, evaluated.decision)
    row_json = next(g for t in data["tasks"] for g in t["graders"] if g["grader"] == "tests_pass")
    assert row_json["source"]["ref"] == REF


def test_the_summary_names_the_module_as_code_and_injects_nothing() -> None:
    markdown = render_markdown(evaluation(with_module(factories.passing_summary())))
    assert "Graders by reference:" in markdown
    page = cmarkgfm.github_flavored_markdown_to_html(markdown)
    assert "<img" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_the_html_report_names_the_module_escaped() -> None:
    screen = render_first_screen(evaluation(with_module(factories.passing_summary())), [])
    assert "Graders by reference:" in screen
    assert "&lt;img src=x onerror=alert(1)&gt;" in screen and "<img" not in screen


def test_the_report_json_lists_each_module_with_the_graders_that_used_it() -> None:
    evaluated = evaluation(with_module(factories.passing_summary()))
    data = report_json(evaluated.model, evaluated.decision)
    assert data["modules"] == [
        {
            "ref": REF,
            "commit": PIN.commit,
            "digest": PIN.digest,
            "graders": [
                {
                    "grader": "tests_pass",
                    "source": {"path": "evals/code-review/eval.yaml", "line": 18, "url": None},
                }
            ],
        }
    ]


def test_without_ref_graders_no_report_mentions_modules() -> None:
    evaluated = evaluation(factories.passing_summary())
    model = evaluated.model
    assert model.modules == () and report_json(model, evaluated.decision)["modules"] == []
    assert "by reference" not in render_text(evaluated) + render_markdown(evaluated)
