"""The action with a baseline: gate inputs and outputs, `fail-on: regressions`, a missing
baseline. Runs entrypoint.py as the runner does, against the loopback GitHub API."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.action.test_entrypoint import TOKEN, Runner
from tests.action.test_log_injection import (
    INJECTED,
    OUR_COMMANDS,
    RAW_UNSAFE,
    hostile_project,
    log_lines,
)
from tests.conftest import Project, run_cli_process, without_times
from tests.fake_github import FakeGitHub, Fault
from tests.gate.test_baseline import write_good_project


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as server:
        yield server


def _baseline(project: Project, outputs: dict[str, list[str]]) -> Path:
    write_good_project(project, outputs)
    path = project.root / "baseline" / "results.json"
    path.parent.mkdir()
    args = [*project.grade_args(), "--fail-on", "errors", "--output", str(path)]
    assert run_cli_process(args, cwd=project.root).code == 0
    return path


INPUTS = {
    "eval": "eval.yaml",
    "results": "results.json",
    "workspace": "workspace",
    "comment": "off",
}


@pytest.mark.slow
def test_fail_on_regressions_passes_with_old_failures_and_sets_the_outputs(
    tmp_path: Path,
    github: FakeGitHub,
    project: Project,
) -> None:
    _baseline(project, {"old": ["bad"], "fix": ["bad"], "ok": ["good", "good", "good"]})
    write_good_project(project, {"old": ["bad"], "fix": ["good"], "ok": ["good", "bad", "good"]})
    runner = Runner(tmp_path, github, project.root)
    inputs = {**INPUTS, "baseline": "baseline/*.json", "fail-on": "regressions"}
    result = runner.run(inputs)
    assert result.code == 0, result.log
    assert result.outputs["gate"] == "pass"
    assert result.outputs["regressions"] == "0"
    assert result.outputs["fixed"] == "1"
    assert result.outputs["flaky"] == "1"
    assert result.outputs["pass-rate"] == "0.3333"
    assert result.outputs["baseline-pass-rate"] == "0.3333"
    (check,) = github.check_runs
    assert check["conclusion"] == "neutral"  # failures exist, but they do not gate
    assert "### Compared with the baseline" in result.summary
    assert "### Flaky tasks" in result.summary
    # Without the fix, the within-noise flip of `ok` lowers the pass rate by 33pp: waza's
    # aggregate rule fails at its default 0pp and passes at 40pp.
    write_good_project(project, {"old": ["bad"], "fix": ["bad"], "ok": ["good", "bad", "good"]})
    strict = runner.run(inputs)
    assert strict.code == 1
    assert strict.outputs["gate"] == "fail"
    assert strict.outputs["regressions"] == "0"
    assert runner.run({**inputs, "max-regression-pct": "40"}).code == 0


@pytest.mark.slow
def test_a_regression_fails_the_step_and_the_check(
    tmp_path: Path,
    github: FakeGitHub,
    project: Project,
) -> None:
    _baseline(project, {"t1": ["good"]})
    write_good_project(project, {"t1": ["bad"]})
    runner = Runner(tmp_path, github, project.root)
    result = runner.run({**INPUTS, "baseline": "baseline/results.json", "fail-on": "regressions"})
    assert result.code == 1
    assert result.outputs["regressions"] == "1"
    assert result.outputs["gate"] == "fail"
    (check,) = github.check_runs
    assert check["conclusion"] == "failure"
    assert "**Regression gate: ❌ fail**" in check["output"]["summary"]
    assert (
        "| ❌ newly failing | `t1` | 1/1 (100%) | 0/1 (0%) | **regression**; `good` newly failing |"
        in (check["output"]["summary"])
    )


@pytest.mark.slow
def test_a_missing_baseline_fails_the_regressions_gate_unless_allowed(
    tmp_path: Path,
    github: FakeGitHub,
    project: Project,
) -> None:
    write_good_project(project, {"t1": ["bad"]})
    runner = Runner(tmp_path, github, project.root)
    result = runner.run({**INPUTS, "baseline": "gone/*.json", "fail-on": "regressions"})
    assert result.code == 1, result.log  # fails closed: one wrong path must not turn it green
    assert "::warning::no baseline results file found at 'gone/*.json'" in result.stdout
    assert "allow-missing-baseline" in result.stdout  # the step names the fix
    assert (result.outputs["gate"], result.outputs["passed"]) == ("no-baseline", "false")
    assert result.outputs["baseline-pass-rate"] == ""
    assert "no baseline" in result.summary
    first_run = {**INPUTS, "baseline": "gone/*.json", "fail-on": "regressions"}
    allowed = runner.run({**first_run, "allow-missing-baseline": "true"})
    assert allowed.code == 0, allowed.log
    assert (allowed.outputs["gate"], allowed.outputs["passed"]) == ("no-baseline", "true")
    assert allowed.outputs["tasks-passed"] == "false"  # the task failed; the gate lets it pass
    # Today's behaviour is unchanged without `fail-on: regressions`.
    assert runner.run({**INPUTS, "baseline": "gone/*.json"}).code == 1


@pytest.mark.slow
def test_bad_gate_inputs_exit_2_naming_the_input(
    tmp_path: Path,
    github: FakeGitHub,
    project: Project,
) -> None:
    write_good_project(project, {"t1": ["good"]})
    runner = Runner(tmp_path, github, project.root)
    for name, value in (
        ("min-task-pass-rate", "2"),
        ("max-regression-pct", "-1"),
        ("on-new-tasks", "sometimes"),
        ("golden-must-pass", "yes"),
        ("comment", "loud"),
        ("shard", "1/2"),  # with a baseline: a shard's grading is partial
    ):
        result = runner.run({**INPUTS, "baseline": "b.json", name: value})
        assert result.code == 2, name
        named = "baseline" if name == "shard" else name
        assert f"input `{named}`" in result.stdout, name


@pytest.mark.slow
def test_the_pull_request_comment_is_posted_once_and_updated(
    tmp_path: Path,
    github: FakeGitHub,
    project: Project,
) -> None:
    _baseline(project, {"t1": ["good"]})
    write_good_project(project, {"t1": ["bad"]})
    runner = Runner(tmp_path, github, project.root)
    event = runner.event(
        "pull_request",
        {
            "pull_request": {
                "number": 7,
                "head": {"sha": "c" * 40, "repo": {"full_name": "octo/repo"}},
            }
        },
    )
    inputs = {**INPUTS, "comment": "on-change", "baseline": "baseline/results.json"}
    first = runner.run(inputs, env={**event, "GITHUB_WORKFLOW": "CI"})
    assert first.code == 1
    write_good_project(project, {"t1": ["good"]})
    second = runner.run(inputs, env={**event, "GITHUB_WORKFLOW": "CI"})
    assert second.code == 0, second.log
    (comment,) = github.comments
    assert comment["issue"] == 7
    assert "**Regression gate: ✅ pass**" in str(comment["body"])
    assert f"[Check run]({github.check_runs[-1]['html_url']})" in str(comment["body"])
    # Outside a pull request: one log line, no annotation (nothing was asked), nothing posted.
    pushed = runner.run(inputs, env={"GITHUB_EVENT_NAME": "push", "GITHUB_WORKFLOW": "CI"})
    assert "::notice" not in pushed.stdout
    assert pushed.stdout.count("no pull-request comment: this is not a pull_request event") == 1
    assert len(github.comments) == 1
    # With `comment: always` a comment was asked for: then it is a notice.
    always = runner.run(
        {**inputs, "comment": "always"}, env={"GITHUB_EVENT_NAME": "push", "GITHUB_WORKFLOW": "CI"}
    )
    assert always.stdout.count("::notice title=waza-ci::no pull-request comment") == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "fault",
    [
        Fault("GET", "*/comments", status=200, body=[], times=2),  # the list lags the create
        Fault("GET", "*/comments", status=200, body={"not": "a list"}),
        Fault("POST", "*/comments", status=201, body={"no": "id"}),
    ],
    ids=["lagging-list", "list-not-an-array", "create-without-id"],
)
def test_the_comment_never_changes_the_verdict_summary_or_outputs(
    tmp_path: Path, github: FakeGitHub, project: Project, fault: Fault
) -> None:
    write_good_project(project, {"t1": ["bad"]})
    pull_request = {"pull_request": {"number": 7, "head": {"sha": "c" * 40}}}
    runs = []
    for folder, comment in (("off", "off"), ("on", "on-change")):
        (tmp_path / folder).mkdir()
        runner = Runner(tmp_path / folder, github, project.root)
        env = {**runner.event("pull_request", pull_request), "GITHUB_WORKFLOW": "CI"}
        if comment != "off":
            github.add_fault(fault)
        runs.append(runner.run({**INPUTS, "comment": comment}, env=env))
    clean, result = runs
    assert result.code == clean.code == 1, result.log
    assert "Traceback" not in result.log
    assert {k: v for k, v in result.outputs.items() if not k.startswith("check-run")} == {
        k: v for k, v in clean.outputs.items() if not k.startswith("check-run")
    }
    assert without_times(result.summary) == without_times(clean.summary)
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    if fault.body == []:  # a lag is no problem at all
        assert not warnings and len(github.comments) == 1
    else:
        assert len(warnings) == 1 and "pull-request comment could not be posted" in warnings[0]
        assert len(github.comments) <= 1


@pytest.mark.slow
def test_hostile_names_reach_no_workflow_command_through_the_gate_and_comment(
    tmp_path: Path, github: FakeGitHub, project: Project
) -> None:
    hostile_project(project)
    runner = Runner(tmp_path, github, project.root)
    event = runner.event("pull_request", {"pull_request": {"number": 9, "head": {"sha": "d" * 40}}})
    inputs = {
        **INPUTS,
        "results": "*.json",
        "baseline": "*.json",  # the saved verdicts as the baseline: a hostile newly failing task
        "fail-on": "regressions",
        "comment": "always",
        "min-task-pass-rate": "0.5",  # 1 of 2 runs passed on the baseline, 0 of 2 now
    }
    result = runner.run(inputs, env=event)
    assert result.code in (0, 1), result.log
    assert "PWNED" in result.stdout
    for line in log_lines(result.stdout) + log_lines(result.stderr):
        assert not INJECTED.match(line), repr(line)
        name = re.match(r"\s*::([A-Za-z0-9-]+)", line)
        if name is not None:
            assert name.group(1) in OUR_COMMANDS or re.fullmatch(r"[0-9a-f]{32}", name.group(1))
    for char in RAW_UNSAFE:
        assert char not in result.stdout + result.stderr, repr(char)
    (comment,) = github.comments
    body = str(comment["body"])
    assert "| ❌ newly failing | `r ::error::PWNED .json:::error::PWNED ::error" in body
    assert "\n::" not in body and "<details>" not in body
    assert not any(char in body for char in ("\x1b", "\u202e", "\u2066"))


@pytest.mark.slow
def test_the_merge_job_gates_a_sharded_grading_against_the_baseline(
    tmp_path: Path, github: FakeGitHub, project: Project
) -> None:
    baseline = _baseline(project, {"a": ["good"], "b": ["good"], "c": ["bad"]})
    write_good_project(project, {"a": ["good"], "b": ["bad"], "c": ["good"]})
    for index in (1, 2):
        (tmp_path / f"shard-{index}").mkdir()
        shard = Runner(tmp_path / f"shard-{index}", github, project.root).run(
            {**INPUTS, "shard": f"{index}/2", "output": f"partials/shard-{index}.json"}
        )
        assert shard.code in (0, 1), shard.log
        assert "gate" in shard.outputs and shard.outputs["gate"] == "no-baseline"
    (tmp_path / "merge").mkdir()
    merged = Runner(tmp_path / "merge", github, project.root).run(
        {
            "mode": "merge",
            "results": "partials/*.json",
            "baseline": str(baseline.relative_to(project.root)),
            "fail-on": "regressions",
            "comment": "off",
        }
    )
    assert merged.code == 1, merged.log
    assert (merged.outputs["regressions"], merged.outputs["fixed"]) == ("1", "1")
    assert merged.outputs["gate"] == "fail"
    assert "newly failing REGRESSION: b" in merged.stdout


@pytest.mark.slow
def test_the_pull_request_comment_says_why_a_task_fails(
    tmp_path: Path, github: FakeGitHub, project: Project
) -> None:
    _baseline(project, {"t-zulu": ["good"], "t-old": ["bad"], "t-fixed": ["bad"]})
    write_good_project(project, {"t-zulu": ["bad"], "t-old": ["bad"], "t-fixed": ["good"]})
    project.write_grader(  # the same verdicts, now with a telling last line
        "good.py",
        "import sys\ntext = sys.stdin.read()\nif 'good' not in text:\n"
        "    print('checking the reply', file=sys.stderr)\n"
        "    sys.exit(f'AssertionError: expected good, got {text!r}')\n",
    )
    runner = Runner(tmp_path, github, project.root)
    head = "c" * 40
    event = runner.event("pull_request", {"pull_request": {"number": 7, "head": {"sha": head}}})
    inputs = {**INPUTS, "comment": "on-change", "baseline": "baseline/results.json"}
    result = runner.run(inputs, env={**event, "GITHUB_WORKFLOW": "CI"})
    assert result.code == 1, result.log
    (comment,) = github.comments
    rows = {
        line.split("|")[2].strip(): line
        for line in str(comment["body"]).splitlines()
        if line.startswith("| ")
    }
    grader = f"[`good`](https://github.example/octo/repo/blob/{head}/eval.yaml#L5)"
    reason = "`AssertionError: expected good, got 'bad'`"
    for task in ("`t-zulu`", "`t-old`"):  # newly failing (a regression) and still failing
        assert f"{grader}: {reason}" in rows[task], rows[task]
    assert "newly failing" in rows["`t-zulu`"] and "still failing" in rows["`t-old`"]
    assert "fixed" in rows["`t-fixed`"] and grader not in rows["`t-fixed`"]  # short
