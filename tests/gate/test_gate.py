"""`waza-ci gate`: the cases of waza's cmd_gate_test.go (commit 7c09a06), restated, plus ours.

Each waza case builds two results files with an explicit `summary.success_rate` and a task list,
runs the gate and checks the exit code and report; names mirror waza's test names.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, make_results, make_run, run_cli_process
from waza_ci.cli import gate as gate_cli
from waza_ci.gate.waza_gate import (
    GATE_EXIT_CONFIG_ERROR,
    GATE_EXIT_GOLDEN_FAILURE,
    GATE_EXIT_PASS,
    GATE_EXIT_REGRESSION,
    GateOptions,
    GateOutcome,
    GateTask,
    TaskPolicy,
    evaluate_gate,
)
from waza_ci.report.gfm import JOB_SUMMARY, code
from waza_ci.report.waza_gate_formats import render_gate_markdown


def outcome(success_rate: float, *tasks: dict[str, Any]) -> dict[str, Any]:
    """A results document like waza's makeOutcome: explicit success rate, tasks as given."""
    doc = make_results({})
    doc["summary"] = {"total_tests": len(tasks), "success_rate": success_rate}
    doc["tasks"] = [{"display_name": "", "runs": [make_run()], **task} for task in tasks]
    return doc


def task(test_id: str, status: str = "passed", **fields: Any) -> dict[str, Any]:
    return {"test_id": test_id, "status": status, **fields}


def write(tmp_path: Path, name: str, doc: dict[str, Any]) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def run_gate(
    tmp_path: Path,
    base: dict[str, Any],
    curr: dict[str, Any],
    *extra: str,
    fmt: str = "json",
    step_summary: str | None = None,
) -> tuple[int, str]:
    out = io.StringIO()
    args = [
        "--baseline",
        write(tmp_path, "baseline.json", base),
        "--current",
        write(tmp_path, "current.json", curr),
        "--format",
        fmt,
        *extra,
    ]
    code = gate_cli.main(args, out, step_summary)
    return code, out.getvalue()


# --- waza's cases -------------------------------------------------------------------------------


def test_pass_when_no_regression(tmp_path: Path) -> None:
    base = outcome(0.90, task("t1"), task("t2"))
    code, out = run_gate(tmp_path, base, outcome(0.90, task("t1"), task("t2")))
    assert code == GATE_EXIT_PASS
    assert json.loads(out)["exit_code"] == GATE_EXIT_PASS
    assert json.loads(out)["outcome"] == "pass"


def test_regression_exceeds_threshold(tmp_path: Path) -> None:
    code, out = run_gate(tmp_path, outcome(0.95, task("t1")), outcome(0.80, task("t1", "failed")))
    assert code == GATE_EXIT_REGRESSION
    assert json.loads(out)["outcome"] == "regression"


def test_regression_within_threshold_passes(tmp_path: Path) -> None:
    code, _ = run_gate(
        tmp_path,
        outcome(0.95, task("t1")),
        outcome(0.92, task("t1")),
        "--max-regression-pct",
        "5",
    )
    assert code == GATE_EXIT_PASS


def test_the_threshold_is_read_as_go_reads_it(tmp_path: Path) -> None:
    # strconv.ParseFloat takes a hexadecimal literal (0x1.4p2 = 5), which float() does not.
    code, out = run_gate(
        tmp_path,
        outcome(0.95, task("t1")),
        outcome(0.92, task("t1")),
        "--max-regression-pct",
        "0x1.4p2",
    )
    assert code == GATE_EXIT_PASS
    assert json.loads(out)["max_regression_pct"] == 5


def test_default_zero_threshold_fails_any_regression(tmp_path: Path) -> None:
    code, out = run_gate(tmp_path, outcome(0.95, task("t1")), outcome(0.92, task("t1")))
    assert code == GATE_EXIT_REGRESSION
    report = json.loads(out)
    assert report["max_regression_pct"] == 0
    assert report["regression_exceeds_threshold"] is True


def test_golden_failure_takes_precedence_over_regression(tmp_path: Path) -> None:
    code, out = run_gate(
        tmp_path,
        outcome(0.95, task("g1", golden=True)),
        outcome(0.50, task("g1", "failed", golden=True)),
    )
    assert code == GATE_EXIT_GOLDEN_FAILURE
    report = json.loads(out)
    assert report["outcome"] == "golden_failure"
    assert report["regression_exceeds_threshold"] is True
    assert report["golden_failures"] == [
        {
            "test_id": "g1",
            "display_name": "",
            "baseline_status": "passed",
            "current_status": "failed",
        }
    ]


def test_golden_must_pass_false_allows_golden_failure(tmp_path: Path) -> None:
    code, out = run_gate(
        tmp_path,
        outcome(0.90, task("g1", golden=True)),
        outcome(0.90, task("g1", "failed", golden=True)),
        "--golden-must-pass=false",
    )
    assert code == GATE_EXIT_PASS
    assert json.loads(out)["golden_must_pass"] is False


def test_golden_detected_from_baseline_even_if_missing_in_current(tmp_path: Path) -> None:
    code, _ = run_gate(
        tmp_path,
        outcome(0.90, task("g1", golden=True)),
        outcome(0.90, task("g1", "failed", golden=False)),
    )
    assert code == GATE_EXIT_GOLDEN_FAILURE


def test_new_tasks_policy_fail_fails(tmp_path: Path) -> None:
    code, out = run_gate(
        tmp_path,
        outcome(0.90, task("t1")),
        outcome(0.90, task("t1"), task("t2")),
        "--on-new-tasks",
        "fail",
    )
    assert code == GATE_EXIT_REGRESSION
    report = json.loads(out)
    assert report["new_tasks"] == ["t2"]
    assert report["errors"] == ["current adds 1 task(s) not in baseline: t2"]


def test_new_tasks_policy_warn(tmp_path: Path) -> None:
    code, out = run_gate(
        tmp_path,
        outcome(0.90, task("t1")),
        outcome(0.90, task("t1"), task("t2")),
        "--on-new-tasks",
        "warn",
    )
    assert code == GATE_EXIT_PASS
    assert json.loads(out)["warnings"] == ["current adds 1 task(s) not in baseline: t2"]


def test_removed_tasks_policy_fail(tmp_path: Path) -> None:
    code, _ = run_gate(
        tmp_path,
        outcome(0.90, task("t1"), task("t2")),
        outcome(0.90, task("t1")),
        "--on-removed-tasks",
        "fail",
    )
    assert code == GATE_EXIT_REGRESSION


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["--current", "x.json"], id="missing baseline"),
        pytest.param(["--baseline", "x.json"], id="missing current"),
        pytest.param(["--baseline", "a", "--current", "b", "--on-new-tasks", "bogus"], id="new"),
        pytest.param(
            ["--baseline", "a", "--current", "b", "--on-removed-tasks", "bogus"], id="removed"
        ),
        pytest.param(["--baseline", "a", "--current", "b", "--format", "xml"], id="bad format"),
        pytest.param(
            ["--baseline", "a", "--current", "b", "--max-regression-pct", "-1"], id="negative"
        ),
        pytest.param(
            ["--baseline", "a", "--current", "b", "--max-regression-pct", "nan"], id="nan"
        ),
        pytest.param(
            ["--baseline", "a", "--current", "b", "--max-regression-pct", "1e400"], id="overflow"
        ),
        pytest.param(
            ["--baseline", "a", "--current", "b", "--max-regression-pct", " 5"], id="spaced"
        ),
        pytest.param(["--baseline", "a", "--current", "b", "--bogus"], id="unknown flag"),
    ],
)
def test_config_errors(tmp_path: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = gate_cli.main(args, io.StringIO(), None)
    except SystemExit as exit_:  # argparse's own errors
        code = int(exit_.code or 0)
    assert code == GATE_EXIT_CONFIG_ERROR
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_config_error_on_unreadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--baseline", str(tmp_path / "does-not-exist.json")]
    args += ["--current", str(tmp_path / "also-missing.json")]
    assert gate_cli.main(args, io.StringIO(), None) == GATE_EXIT_CONFIG_ERROR
    err = capsys.readouterr().err
    assert "loading baseline" in err and "does-not-exist.json" in err


def test_format_github_actions_emits_annotations(tmp_path: Path) -> None:
    summary = tmp_path / "step-summary.md"
    code, out = run_gate(
        tmp_path,
        outcome(0.95, task("g1", golden=True)),
        outcome(0.50, task("g1", "failed", golden=True)),
        fmt="github-actions",
        step_summary=str(summary),
    )
    assert code == GATE_EXIT_GOLDEN_FAILURE
    assert "::error title=Waza regression::Pass rate dropped 45.00pp (limit 0.00pp)" in out
    assert "::error title=Golden task failed::g1 () — current status failed" in out
    assert "Waza regression gate" in summary.read_text(encoding="utf-8")


def test_format_markdown_and_human(tmp_path: Path) -> None:
    base, curr = outcome(0.90, task("t1")), outcome(0.90, task("t1"))
    code, markdown = run_gate(tmp_path, base, curr, fmt="markdown")
    assert code == GATE_EXIT_PASS
    assert markdown.startswith("## ✅ Waza regression gate — `PASS`\n")
    code, human = run_gate(tmp_path, base, curr, fmt="human")
    assert code == GATE_EXIT_PASS
    assert " REGRESSION GATE" in human
    assert "  outcome: PASS  (exit 0)" in human


def test_report_fields_for_json(tmp_path: Path) -> None:
    code, out = run_gate(
        tmp_path,
        outcome(0.90, task("t1"), task("drop")),
        outcome(0.85, task("t1"), task("new")),
        "--on-new-tasks",
        "warn",
        "--on-removed-tasks",
        "warn",
    )
    report = json.loads(out)
    assert code == GATE_EXIT_REGRESSION
    assert report["new_tasks"] == ["new"]
    assert report["removed_tasks"] == ["drop"]
    assert report["pass_rate_delta"] < 0
    assert report["regression_pct"] > 0
    # Every key of waza's GateReport, in its order (empty lists are left out, as omitempty does).
    assert list(report) == [
        "baseline_file",
        "current_file",
        "baseline_pass_rate",
        "current_pass_rate",
        "pass_rate_delta",
        "max_regression_pct",
        "regression_pct",
        "regression_exceeds_threshold",
        "golden_total",
        "golden_must_pass",
        "new_tasks",
        "removed_tasks",
        "on_new_tasks",
        "on_removed_tasks",
        "warnings",
        "exit_code",
        "outcome",
    ]


def test_format_github_actions_demotes_golden_when_policy_relaxed(tmp_path: Path) -> None:
    code, out = run_gate(
        tmp_path,
        outcome(0.90, task("g1", golden=True)),
        outcome(0.90, task("g1", "failed", golden=True)),
        "--golden-must-pass=false",
        fmt="github-actions",
    )
    assert code == GATE_EXIT_PASS
    assert "::warning title=Golden task failed (non-blocking)::" in out
    assert "::error title=Golden task failed::" not in out


# --- beyond waza's tests ------------------------------------------------------------------------


def test_a_golden_task_missing_from_current_fails_with_status_na() -> None:
    base = GateOutcome(1.0, (GateTask("g1", "Gold", golden=True, status="passed"),))
    report = evaluate_gate(base, GateOutcome(1.0, ()), GateOptions())
    assert report.exit_code == GATE_EXIT_GOLDEN_FAILURE
    assert report.golden_failures[0].current_status == "n/a"
    assert report.golden_failures[0].display_name == "Gold"
    # removed-task policy defaults to warn
    assert report.warnings == ("current is missing 1 task(s) present in baseline: g1",)


def test_the_exit_code_order_is_golden_then_regression_then_policy() -> None:
    base = GateOutcome(1.0, (GateTask("t1", status="passed"),))
    curr = GateOutcome(1.0, (GateTask("t1", status="passed"), GateTask("t2", status="passed")))
    report = evaluate_gate(base, curr, GateOptions(on_new_tasks=TaskPolicy.FAIL))
    assert (report.exit_code, report.regression_exceeds_threshold) == (GATE_EXIT_REGRESSION, False)


def test_a_rise_in_pass_rate_is_no_regression() -> None:
    report = evaluate_gate(GateOutcome(0.5, ()), GateOutcome(0.75, ()), GateOptions())
    assert report.regression_pct == 0.0
    assert report.pass_rate_delta == 0.25
    assert report.passed


def test_golden_flag_of_wrong_type_is_a_config_error_naming_the_json_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run_gate(tmp_path, outcome(1.0, task("t1", golden="yes")), outcome(1.0, task("t1")))
    assert code == GATE_EXIT_CONFIG_ERROR
    assert "$.tasks[0].golden" in capsys.readouterr().err


def test_go_bool_spellings_for_golden_must_pass(tmp_path: Path) -> None:
    base = outcome(0.9, task("g1", golden=True))
    curr = outcome(0.9, task("g1", "failed", golden=True))
    assert run_gate(tmp_path, base, curr, "--golden-must-pass=F")[0] == GATE_EXIT_PASS
    assert run_gate(tmp_path, base, curr, "--golden-must-pass")[0] == GATE_EXIT_GOLDEN_FAILURE


def test_untrusted_task_ids_cannot_break_markdown_or_workflow_commands(tmp_path: Path) -> None:
    evil = "x`|y\n::add-mask::z"
    base = outcome(0.9, task(evil, golden=True))
    curr = outcome(0.9, task(evil, "failed", golden=True))
    _, out = run_gate(tmp_path, base, curr, fmt="github-actions")
    assert "\n::add-mask::" not in out
    markdown = render_gate_markdown(
        evaluate_gate(
            GateOutcome(1, (GateTask(evil, golden=True, status="passed"),)),
            GateOutcome(1, (GateTask(evil, golden=True, status="failed"),)),
            GateOptions(),
        )
    )
    rows = [line for line in markdown.splitlines() if line.startswith("| ``x")]
    # The | inside the id is escaped, not a cell border: the regressed task's row has three
    # cells, the golden failure's two.
    assert [row.count(" | ") for row in rows] == [2, 1]
    assert code("a`b", JOB_SUMMARY) == "``a`b``"


@pytest.mark.slow
def test_the_gate_subcommand_exits_like_waza_gate_from_a_real_process(tmp_path: Path) -> None:
    base = write(tmp_path, "b.json", outcome(0.95, task("t1")))
    curr = write(tmp_path, "c.json", outcome(0.80, task("t1", "failed")))
    done = run_cli_process(["gate", "--baseline", base, "--current", curr], cwd=tmp_path)
    assert done.code == GATE_EXIT_REGRESSION
    assert "outcome: REGRESSION  (exit 1)" in done.stdout
    usage = run_cli_process(["gate", "--baseline", base, "--nope"], cwd=tmp_path)
    assert usage.code == GATE_EXIT_CONFIG_ERROR
    assert usage.stderr.count("\n") == 1
    assert "gate" in run_cli_process(["--help"], cwd=ROOT).stdout


@pytest.mark.slow
def test_golden_field_round_trips_through_a_regraded_file(tmp_path: Path) -> None:
    # waza's TestGoldenYAMLFieldRoundtrip, for waza-ci: `golden: true` in a results file
    # survives `waza-ci grade --output` and the gate reads it from there.
    project = tmp_path / "project"
    (project / "tasks").mkdir(parents=True)
    (project / "eval.yaml").write_text('name: e\ntasks: ["tasks/*.yaml"]\n', encoding="utf-8")
    (project / "tasks" / "g1.yaml").write_text("id: g1\nname: G1\n", encoding="utf-8")
    doc = make_results({"g1": [make_run()]}, eval_name="e")
    doc["tasks"][0]["golden"] = True
    (project / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    regraded = tmp_path / "regraded.json"
    grade = ["grade", "eval.yaml", "--results", "results.json", "--output", str(regraded)]
    grade += ["--fail-on", "errors"]  # the task has no graders: not graded, which fails it
    assert run_cli_process(grade, cwd=project).code == 0
    assert json.loads(regraded.read_text(encoding="utf-8"))["tasks"][0]["golden"] is True
    out = io.StringIO()
    args = ["--baseline", str(regraded), "--current", str(regraded), "-f", "json"]
    assert gate_cli.main(args, out, None) == GATE_EXIT_PASS
    assert json.loads(out.getvalue())["golden_total"] == 1


# --- ours: which evals, and which tasks ---------------------------------------------------------


def of_eval(doc: dict[str, Any], name: str, skill: str = "") -> dict[str, Any]:
    return {**doc, "eval_name": name, "skill": skill}


def test_two_different_evals_are_named_in_every_format_and_keep_waza_s_exit_code(
    tmp_path: Path,
) -> None:
    # Scaffolded sibling evals share task ids: matching ids say nothing about whose they are.
    base = of_eval(outcome(0.5, task("t1"), task("t2", "failed")), "docs-sync-eval", "docs-sync")
    curr = of_eval(outcome(0.5, task("t1"), task("t2", "failed")), "sdlc-eval", "sdlc")
    both = ("'docs-sync-eval' (skill 'docs-sync')", "'sdlc-eval' (skill 'sdlc')")
    warning = f"the baseline is of eval {both[0]}, the current file of eval {both[1]}"
    summary = tmp_path / "summary.md"
    outputs = {
        fmt: run_gate(tmp_path, base, curr, fmt=fmt, step_summary=str(summary))
        for fmt in ("json", "human", "markdown", "github-actions")
    }
    assert {code for code, _ in outputs.values()} == {GATE_EXIT_PASS}  # waza's codes stay
    for _, text in outputs.values():
        assert warning in text
    report = json.loads(outputs["json"][1])
    assert set(report) <= set(WAZA_REPORT_KEYS)  # waza's keys only; the warning says it
    human = outputs["human"][1]
    assert "(eval docs-sync-eval, skill docs-sync)" in human
    assert "(eval sdlc-eval, skill sdlc)" in human
    assert "  outcome: PASS  (exit 0)  ! of two different evals (see the warning)" in human
    markdown = outputs["markdown"][1]
    assert markdown.startswith("## ⚠️ Waza regression gate — `PASS`\n")
    assert "(eval `docs-sync-eval`, skill `docs-sync`) · current" in markdown
    assert (
        "::warning title=Waza gate::baseline and current are of different evals"
        in (outputs["github-actions"][1])
    )
    assert warning in summary.read_text(encoding="utf-8")


WAZA_REPORT_KEYS = [
    "baseline_file",
    "current_file",
    "baseline_pass_rate",
    "current_pass_rate",
    "pass_rate_delta",
    "max_regression_pct",
    "regression_pct",
    "regression_exceeds_threshold",
    "golden_failures",
    "golden_total",
    "golden_must_pass",
    "new_tasks",
    "removed_tasks",
    "on_new_tasks",
    "on_removed_tasks",
    "warnings",
    "errors",
    "exit_code",
    "outcome",
]


@pytest.mark.parametrize(
    ("base_eval", "curr_eval"),
    [
        (("e", "s"), ("e", "s")),
        (("", ""), ("e", "s")),  # an old file that does not say: not another eval
        (("e", ""), ("e", "s")),
    ],
)
def test_one_eval_or_an_unnamed_side_gets_no_warning(
    tmp_path: Path, base_eval: tuple[str, str], curr_eval: tuple[str, str]
) -> None:
    base = of_eval(outcome(0.9, task("t1")), *base_eval)
    curr = of_eval(outcome(0.9, task("t1")), *curr_eval)
    code, out = run_gate(tmp_path, base, curr, fmt="human")
    assert code == GATE_EXIT_PASS
    assert "different evals" not in out
    assert "warnings:" not in out


def test_human_and_markdown_name_each_task_regressed_added_and_removed(tmp_path: Path) -> None:
    base = outcome(0.75, task("kept"), task("broke"), task("still-bad", "failed"), task("drop"))
    curr = outcome(0.25, task("kept"), task("broke", "failed"), task("still-bad", "failed"))
    curr["tasks"].append(task("added", "error", runs=[make_run()]))
    code, human = run_gate(tmp_path, base, curr, fmt="human")
    assert code == GATE_EXIT_REGRESSION
    assert "  regressed tasks (passed in the baseline): 1\n    ✗ broke: passed -> failed\n" in human
    assert "  new tasks (allow): added" in human
    assert "  removed tasks (warn): drop" in human
    for other in ("kept:", "still-bad:"):
        assert other not in human
    code, markdown = run_gate(tmp_path, base, curr, fmt="markdown")
    assert code == GATE_EXIT_REGRESSION
    assert "### Regressed tasks\n\n| Task | Baseline | Current |\n|---|---|---|\n" in markdown
    assert "| `broke` | `passed` | `failed` |\n" in markdown
    assert "- New tasks (policy `allow`): `added`" in markdown
    assert "- Removed tasks (policy `warn`): `drop`" in markdown
    assert "`still-bad`" not in markdown and "`kept`" not in markdown
    _, as_json = run_gate(tmp_path, base, curr, fmt="json")
    assert "regressed" not in as_json  # waza's JSON report has no such key


def test_regressed_tasks_are_those_that_passed_and_do_not_now() -> None:
    report = evaluate_gate(
        GateOutcome(1, (GateTask("a", status="passed"), GateTask("b", status="passed"))),
        GateOutcome(0.5, (GateTask("a", status="error"), GateTask("c", status="failed"))),
        GateOptions(),
    )
    assert [(t.test_id, t.current_status) for t in report.regressed_tasks] == [("a", "error")]
    assert report.removed_tasks == ("b",) and report.new_tasks == ("c",)
