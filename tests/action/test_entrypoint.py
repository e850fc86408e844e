"""Black-box tests of `entrypoint.py` as the runner starts it: INPUT_* and GITHUB_* variables,
an event file, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, and a real HTTP server on loopback."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import (
    DEMO,
    FAST_PATH,
    ROOT,
    Project,
    limit_file_size,
    make_results,
    make_run,
)
from tests.fake_github import FakeGitHub, Fault, SilentServer
from tests.runner_files import parse_command, parse_github_output

TOKEN = "ghs_FAKE0token0for0tests0only0123456789"
HEAD_SHA = "a" * 40
ACTION_INPUTS: dict[str, dict[str, Any]] = yaml.safe_load(
    (ROOT / "action.yml").read_text(encoding="utf-8")
)["inputs"]
MERGE_SHA = "b" * 40


@dataclass
class ActionRun:
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str

    @property
    def log(self) -> str:
        return self.stdout + self.stderr


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    """The loopback API; leaving it fails the test if the action sent a request GitHub's REST
    description (or its limits) refuses."""
    with FakeGitHub(token=TOKEN) as server:
        yield server


class Runner:
    """Starts entrypoint.py the way GitHub's runner starts the container's entry point."""

    def __init__(self, tmp_path: Path, fake: FakeGitHub, workspace: Path) -> None:
        self.tmp = tmp_path
        self.fake = fake
        self.workspace = workspace
        self.summary_path = tmp_path / "step_summary"
        self.output_path = tmp_path / "set_output"
        self.event_path = tmp_path / "event.json"
        self.summary_path.write_text("earlier step's summary\n")
        self.output_path.write_text("")
        self.event_path.write_text(json.dumps({"after": HEAD_SHA}))

    def event(self, name: str, payload: Mapping[str, Any]) -> dict[str, str]:
        self.event_path.write_text(json.dumps(payload))
        return {"GITHUB_EVENT_NAME": name}

    def run(
        self,
        inputs: Mapping[str, str],
        env: Mapping[str, str] | None = None,
        max_file_bytes: int | None = None,
    ) -> ActionRun:
        # Every declared input, with action.yml's default, as GitHub's runner passes them.
        defaults = {name: str(spec.get("default", "")) for name, spec in ACTION_INPUTS.items()}
        defaults.update({"jobs": "2", "github-token": TOKEN})
        full = {
            "PATH": FAST_PATH,
            "HOME": str(self.tmp),
            "PYTHONPATH": str(ROOT),
            "TMPDIR": str(self.tmp),
            "GITHUB_ACTIONS": "true",
            "CI": "true",
            "GITHUB_API_URL": self.fake.url,
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_REPOSITORY": "octo/repo",
            "GITHUB_SHA": HEAD_SHA,
            "GITHUB_EVENT_NAME": "push",
            "GITHUB_EVENT_PATH": str(self.event_path),
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_OUTPUT": str(self.output_path),
            "GITHUB_STEP_SUMMARY": str(self.summary_path),
            "GITHUB_RUN_ID": "1234",
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_JOB": "grade",
            "ACTIONS_RUNTIME_TOKEN": "runtime-secret-value",
        }
        for name, value in {**defaults, **inputs}.items():
            full[f"INPUT_{name.upper()}"] = value  # hyphens kept, as the runner does
        full.update(env or {})
        done = subprocess.run(
            [sys.executable, str(ROOT / "entrypoint.py")],
            cwd=self.workspace,
            env={k: v for k, v in full.items() if v is not None},
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
            preexec_fn=None if max_file_bytes is None else limit_file_size(max_file_bytes),
        )
        return ActionRun(
            done.returncode,
            done.stdout,
            done.stderr,
            parse_github_output(self.output_path.read_text()),
            self.summary_path.read_text(),
        )


@pytest.fixture
def demo_workspace(tmp_path: Path) -> Path:
    workspace = tmp_path / "repo"
    shutil.copytree(DEMO, workspace / "examples" / "demo")
    return workspace


DEMO_INPUTS = {
    "eval": "examples/demo/eval.yaml",
    "results": "examples/demo/results.json",
    "workspace": "examples/demo/workspace",
    "working-directory": "examples/demo",
}
DEMO_EXIT = 1
"""The demo has one failing grader (`entries_link_prs` on write-changelog, both runs), so the
report shows what a failure looks like."""


@pytest.mark.slow
def test_demo_posts_its_failure_and_writes_outputs(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path
) -> None:
    runner = Runner(tmp_path, fake, demo_workspace)
    result = runner.run(DEMO_INPUTS)
    assert result.code == DEMO_EXIT, result.log
    (check,) = fake.check_runs
    assert check["head_sha"] == HEAD_SHA
    assert check["conclusion"] == "failure"
    assert check["name"] == "waza program graders"
    assert result.outputs["passed"] == "false"
    assert result.outputs["runs-graded"] == "4"
    assert result.outputs["runs-failed"] == "2"
    assert result.outputs["grader-errors"] == "0"
    assert result.outputs["check-run-id"] == str(check["id"])
    assert result.outputs["check-run-url"] == check["html_url"]
    assert float(result.outputs["overall-score"]) == pytest.approx(0.9281, abs=1e-4)
    assert result.summary.startswith("earlier step's summary\n")
    assert "write-changelog" in result.summary
    lines = result.stdout.splitlines()
    opened, closed = (
        lines.index("::group::waza-ci: running graders"),
        lines.index("::endgroup::"),
    )
    progress = [i for i, line in enumerate(lines) if line.startswith("waza-ci: [")]
    assert len(progress) == 14 and all(opened < i < closed for i in progress)  # the programs
    (in_process,) = [i for i, line in enumerate(lines) if "graded in process:" in line]
    assert opened < in_process < closed
    assert lines[in_process].startswith(
        "waza-ci: graded in process: 10 verdicts (behavior, expected, file, text) in "
    )
    # The report: the first screen in the check run, the details in output.text, the URL in
    # the log, the failing tasks and the report JSON as outputs.
    assert "| 2 / 2 | `AssertionError: 2 of 2 entries" in check["output"]["summary"]
    assert f"/blob/{HEAD_SHA}/examples/demo/tasks/changelog.yaml#L22)" in check["output"]["summary"]
    assert "no pull request reference: - Added `--dry-run`" in check["output"]["text"]
    assert f"waza-ci: check run: {check['html_url']}" in lines
    assert result.outputs["failed-tasks"] == '["write-changelog"]'
    assert result.outputs["report-json"] == ".waza-ci/report-waza-ci.json"
    report = json.loads((demo_workspace / result.outputs["report-json"]).read_text())
    assert report["failed_tasks"] == ["write-changelog"]
    (annotation,) = check["annotations"]
    assert annotation["title"] == "entries_link_prs failed on write-changelog (2 of 2 runs)"
    assert (annotation["path"], annotation["start_line"]) == (
        "examples/demo/tasks/changelog.yaml",
        22,
    )
    assert len(result.summary.encode()) <= 1024 * 1024 + 100


@pytest.mark.slow
def test_a_wrong_working_directory_is_one_banner_with_the_fix(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path
) -> None:
    runner = Runner(tmp_path, fake, demo_workspace)
    result = runner.run({**DEMO_INPUTS, "working-directory": "."})  # graders/… not found
    assert result.code == 3, result.log  # graders that could not run: a setup error
    assert fake.check_runs[0]["conclusion"] == "failure"
    assert result.outputs["passed"] == "false"
    summary = fake.check_runs[0]["output"]["summary"]
    assert summary.startswith("**⚠️ Graders could not run**")
    assert "**⚠️ Every program grader execution (14) failed the same way:**" in summary
    assert "can't open file" in summary
    assert "**Likely fix:** set working-directory to 'examples/demo'" in summary
    assert "Every program grader execution (14) failed the same way" in result.summary
    assert "every program grader execution (14) failed the same way" in result.stdout


@pytest.mark.slow
def test_report_input_lists_every_task_and_refuses_other_values(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path
) -> None:
    runner = Runner(tmp_path, fake, demo_workspace)
    result = runner.run({**DEMO_INPUTS, "report": "all"})
    assert result.code == DEMO_EXIT, result.log
    assert (
        "### All tasks" in result.summary
        and "### All tasks" in fake.check_runs[0]["output"]["summary"]
    )
    bad = runner.run({**DEMO_INPUTS, "report": "everything"})
    assert bad.code == 2 and "input `report` must be `failures` or `all`" in bad.stdout


@pytest.mark.slow
def test_emoji_stay_in_the_summary_and_never_reach_the_checks_api(
    tmp_path: Path, fake: FakeGitHub, project: Project
) -> None:
    script = project.write_grader(
        "emoji.py", "import sys\nprint('bad result 😀 𠀀', file=sys.stderr)\nsys.exit(1)\n"
    )
    project.write_eval(project.program_grader("emoji 🎉", script))
    project.write_task("t😀")
    project.write_results(make_results({"t😀": [make_run()]}))
    runner = Runner(tmp_path, fake, project.root)
    result = runner.run({"eval": "eval.yaml", "results": "results.json", "workspace": "workspace"})
    assert result.code == 1, result.log
    (check,) = fake.check_runs  # the fake refuses 4-byte UTF-8 as GitHub does
    assert "bad result U+1F600 U+20000" in check["output"]["summary"] + check["output"]["text"]
    assert check["annotations"][0]["title"] == "emoji U+1F389 failed on tU+1F600 (1 of 1 run)"
    for request in fake.requests_for("POST") + fake.requests_for("PATCH"):
        assert not any(ord(char) > 0xFFFF for char in json.dumps(request.body, ensure_ascii=False))
    assert "bad result 😀 𠀀" in result.summary


@pytest.mark.slow
def test_token_is_masked_and_never_reaches_graders_or_output(
    tmp_path: Path, fake: FakeGitHub, project: Project
) -> None:
    record = project.root / "env.json"
    script = project.write_grader(
        "env.py",
        "import json, os\n"
        "parent = open(f'/proc/{os.getppid()}/environ', 'rb').read().decode(errors='replace')\n"
        f"json.dump({{**os.environ, 'PARENT': parent}}, open({str(record)!r}, 'w'))\n",
    )
    project.write_eval(project.program_grader("env", script))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    runner = Runner(tmp_path, fake, project.root)
    result = runner.run({"eval": "eval.yaml", "results": "results.json", "workspace": "workspace"})
    assert result.code == 0, result.log
    seen = json.loads(record.read_text())
    # Neither in the grader's environment nor in waza-ci's own (readable in /proc/<ppid>).
    assert seen["PARENT"] and "GITHUB_REPOSITORY=octo/repo" in seen["PARENT"]
    assert TOKEN not in json.dumps(seen)
    assert "runtime-secret-value" not in json.dumps(seen)
    assert not [name for name in seen if name.startswith("INPUT_")]
    lines_with_token = [line for line in result.log.splitlines() if TOKEN in line]
    assert lines_with_token == [f"::add-mask::{TOKEN}"]
    assert result.log.index("::add-mask::") < 5, "mask first, before anything else is printed"
    assert TOKEN not in result.summary
    assert fake.requests[0].headers["authorization"] == f"Bearer {TOKEN}"


def _failing_project(project: Project, tasks: int, graders: int) -> None:
    # One more task passes, so no grader fails on every task (that would be one annotation).
    fail = project.write_grader(
        "fail.py",
        "import sys\nif sys.stdin.read() == 'pass':\n    sys.exit(0)\n"
        "sys.stderr.write('nope')\nsys.exit(1)\n",
    )
    project.write_eval("".join(project.program_grader(f"g{i}", fail) for i in range(graders)))
    runs = {f"t{index:03d}": [make_run()] for index in range(tasks)}
    runs["t999-passing"] = [make_run(final_output="pass")]
    for task_id in runs:
        project.write_task(task_id)
    project.write_results(make_results(runs))


@pytest.mark.slow
def test_123_annotations_go_in_one_create_and_two_updates(
    tmp_path: Path, fake: FakeGitHub, project: Project
) -> None:
    _failing_project(project, tasks=41, graders=3)
    runner = Runner(tmp_path, fake, project.root)
    result = runner.run({"eval": "eval.yaml", "results": "results.json", "workspace": "workspace"})
    assert result.code == 1, result.log
    posts, patches = fake.requests_for("POST"), fake.requests_for("PATCH")
    assert len(posts) == 1 and len(patches) == 2
    sizes = [len(r.body["output"]["annotations"]) for r in posts + patches]
    assert sizes == [50, 50, 23]
    (check,) = fake.check_runs
    assert check["conclusion"] == "failure"
    annotations = check["annotations"]
    assert len(annotations) == 123
    first = annotations[0]
    assert first["path"] == "eval.yaml"
    assert first["start_line"] == 5  # `- type: program` of g0 in the generated eval.yaml
    assert first["annotation_level"] == "failure"
    assert result.outputs["passed"] == "false"
    assert result.outputs["runs-failed"] == "41"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("event_name", "payload", "commit", "expected"),
    [
        ("pull_request", {"pull_request": {"head": {"sha": "c" * 40}}}, "", "c" * 40),
        ("pull_request_target", {"pull_request": {"head": {"sha": "d" * 40}}}, "", "d" * 40),
        ("workflow_run", {"workflow_run": {"head_sha": "e" * 40}}, "", "e" * 40),
        ("push", {"after": MERGE_SHA}, "", MERGE_SHA),
        ("pull_request", {"pull_request": {"head": {"sha": "c" * 40}}}, "f" * 40, "f" * 40),
    ],
)
def test_head_sha_follows_the_event(
    tmp_path: Path,
    fake: FakeGitHub,
    demo_workspace: Path,
    event_name: str,
    payload: dict[str, Any],
    commit: str,
    expected: str,
) -> None:
    runner = Runner(tmp_path, fake, demo_workspace)
    env = runner.event(event_name, payload)
    result = runner.run({**DEMO_INPUTS, "commit": commit}, env={**env, "GITHUB_SHA": MERGE_SHA})
    assert result.code == DEMO_EXIT, result.log
    (check,) = fake.check_runs
    assert check["head_sha"] == expected


@pytest.mark.slow
def test_refused_check_run_falls_back_to_log_annotations(
    tmp_path: Path, fake: FakeGitHub, project: Project
) -> None:
    _failing_project(project, tasks=4, graders=3)
    fake.add_fault(Fault.integration_refused("POST"))
    runner = Runner(tmp_path, fake, project.root)
    result = runner.run({"eval": "eval.yaml", "results": "results.json", "workspace": "workspace"})
    assert result.code == 1, result.log  # the verdict, not the refusal, decides
    assert not fake.check_runs
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert any("checks: write" in w and "workflow_run" in w for w in warnings)
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 10
    name, properties, _message = parse_command(errors[0])
    assert (name, properties["file"], properties["line"]) == ("error", "eval.yaml", "5")
    assert "3 more failing grader" in errors[-1]
    assert result.outputs["passed"] == "false"
    assert result.outputs["check-run-id"] == ""
    assert "t000" in result.summary


@pytest.mark.slow
def test_api_failure_does_not_change_the_verdict(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path
) -> None:
    fake.add_fault(Fault.unprocessable("POST"))
    runner = Runner(tmp_path, fake, demo_workspace)
    result = runner.run(DEMO_INPUTS)
    assert result.code == DEMO_EXIT, result.log
    assert "::warning" in result.stdout and "Validation Failed" in result.stdout
    assert result.outputs["passed"] == "false"
    assert result.outputs["failed-tasks"] == '["write-changelog"]'
    assert result.outputs["check-run-url"] == ""


@pytest.mark.slow
def test_a_server_error_is_retried_without_a_second_check_run(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path
) -> None:
    fake.add_fault(Fault.apply_then_fail("POST"))
    runner = Runner(tmp_path, fake, demo_workspace)
    result = runner.run(DEMO_INPUTS)
    assert result.code == DEMO_EXIT, result.log
    assert len(fake.check_runs) == 1
    assert result.outputs["check-run-id"] == str(fake.check_runs[0]["id"])


@pytest.mark.slow
def test_grader_output_cannot_issue_workflow_commands(
    tmp_path: Path, fake: FakeGitHub, project: Project
) -> None:
    evil = project.write_grader(
        "evil.py",
        "import sys\nsys.stderr.write('::error::pwned\\n::add-mask::x\\n::stop-commands::abc')\n"
        "sys.exit(1)\n",
    )
    project.write_eval(project.program_grader("evil", evil))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    runner = Runner(tmp_path, fake, project.root)
    result = runner.run({"eval": "eval.yaml", "results": "results.json", "workspace": "workspace"})
    assert result.code == 1
    fenced = _fenced_ranges(result.stdout)
    for index, line in enumerate(result.stdout.splitlines()):
        if "pwned" in line and line.startswith("::"):
            assert any(start < index < end for start, end in fenced), line
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
    assert errors == [] or all("%0A" in e or "pwned" not in e.split("::", 2)[1] for e in errors)


def _fenced_ranges(log: str) -> list[tuple[int, int]]:
    lines = log.splitlines()
    ranges = []
    for start, line in enumerate(lines):
        match = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", line)
        if match:
            end = lines.index(f"::{match.group(1)}::", start)
            ranges.append((start, end))
    return ranges


@pytest.mark.slow
def test_summary_is_trimmed_to_one_mebibyte(
    tmp_path: Path, fake: FakeGitHub, project: Project
) -> None:
    loud = project.write_grader(
        "loud.py", "import sys\nsys.stderr.write('é' * 400_000)\nsys.exit(1)\n"
    )
    project.write_eval("".join(project.program_grader(f"g{i}", loud) for i in range(2)))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run(1), make_run(2)]}))
    runner = Runner(tmp_path, fake, project.root)
    result = runner.run({"eval": "eval.yaml", "results": "results.json", "workspace": "workspace"})
    assert result.code == 1
    added = result.summary.removeprefix("earlier step's summary\n")
    assert len(added.encode("utf-8")) <= 1024 * 1024
    assert "trimmed" in added.lower()
    check = fake.requests_for("POST")[0].body
    assert len(check["output"]["summary"].encode("utf-8")) <= 65535


@pytest.mark.slow
def test_outside_actions_no_api_call_and_summary_on_stdout(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path
) -> None:
    runner = Runner(tmp_path, fake, demo_workspace)
    result = runner.run(
        DEMO_INPUTS, env={"GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": "", "GITHUB_OUTPUT": ""}
    )
    assert result.code == DEMO_EXIT, result.log
    assert fake.requests == []
    assert "write-changelog" in result.stdout and "|" in result.stdout


@pytest.mark.slow
def test_output_input_writes_the_regraded_file(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path
) -> None:
    runner = Runner(tmp_path, fake, demo_workspace)
    result = runner.run({**DEMO_INPUTS, "output": "out/regraded.json"})
    assert result.code == DEMO_EXIT, result.log
    regraded = json.loads((demo_workspace / "out" / "regraded.json").read_text())
    assert regraded["tasks"][1]["runs"][0]["validations"]["version_bumped"]["passed"] is True
    assert result.outputs["output-file"] == "out/regraded.json"


def test_html_report_input_writes_the_page_and_the_summary_says_where(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path
) -> None:
    runner = Runner(tmp_path, fake, demo_workspace)
    result = runner.run({**DEMO_INPUTS, "html-report": "reports/waza-report.html"})
    assert result.code == DEMO_EXIT, result.log
    assert result.outputs["html-report"] == "reports/waza-report.html"
    page = (demo_workspace / "reports" / "waza-report.html").read_text(encoding="utf-8")
    assert "entries_link_prs" in page
    assert str(demo_workspace) not in page  # no runner path in an artifact
    # The summary's first lines point to it, before the verdict.
    ours = result.summary.removeprefix("earlier step's summary\n")
    assert ours.startswith("> **HTML report:** `reports/waza-report.html`"), ours[:200]
    assert "actions/upload-artifact" in ours.split("\n", 1)[0]
    without = runner.run(DEMO_INPUTS)
    assert without.outputs["html-report"] == ""
    assert "HTML report" not in without.summary.removeprefix(result.summary)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"eval": ""}, "input `eval` is required"),
        ({"results": ""}, "input `results` is required"),
        ({"fail-on": "sometimes"}, "input `fail-on` must be"),
        ({"check-run": "yes"}, "input `check-run` must be `true` or `false`"),
        ({"jobs": "many"}, "input `jobs` must be"),
        ({"jobs": "²"}, "input `jobs` must be"),
        ({"eval": "missing.yaml"}, "eval spec not found"),
    ],
)
def test_bad_inputs_exit_2_with_an_error_command(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path, inputs: dict[str, str], message: str
) -> None:
    runner = Runner(tmp_path, fake, demo_workspace)
    result = runner.run({**DEMO_INPUTS, **inputs})
    assert result.code == 2, result.log
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and message in errors[0]
    assert "Traceback" not in result.log
    assert fake.requests == []


@pytest.mark.slow
def test_yaml_error_is_annotated_at_its_line(
    tmp_path: Path, fake: FakeGitHub, project: Project
) -> None:
    project.write_eval("- type: program\n  name: g\n  config:\n    command: x\n    cwd: /\n")
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    runner = Runner(tmp_path, fake, project.root)
    # An absolute path inside the workspace is annotated by its repository-relative path.
    result = runner.run({"eval": str(project.eval_path), "results": "results.json"})
    assert result.code == 2
    (error,) = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    _name, properties, message = parse_command(error)
    assert properties == {"file": "eval.yaml", "line": "9", "title": "waza-ci"}
    assert "unknown config key 'cwd'" in message


@pytest.mark.slow
def test_grader_error_exits_3_and_fails_the_check(
    tmp_path: Path, fake: FakeGitHub, project: Project
) -> None:
    project.write_eval("- type: program\n  name: gone\n  config:\n    command: no-such-binary-x\n")
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    runner = Runner(tmp_path, fake, project.root)
    result = runner.run({"eval": "eval.yaml", "results": "results.json", "fail-on": "errors"})
    assert result.code == 3
    (check,) = fake.check_runs
    assert check["conclusion"] == "failure"
    assert result.outputs["grader-errors"] == "1"
    assert check["annotations"][0]["title"] == "gone grader error on t1 (1 of 1 run)"
    summary = check["output"]["summary"]
    assert "⚠️ **error**" in summary and "`command not found: no-such-binary-x`" in summary
    assert "**What to do:** install it in the job" in summary


@pytest.mark.slow
def test_unwritable_summary_and_output_files_warn_but_keep_the_verdict(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path
) -> None:
    runner = Runner(tmp_path, fake, demo_workspace)
    blocked = tmp_path / "a-folder"
    blocked.mkdir()
    result = runner.run(
        DEMO_INPUTS, env={"GITHUB_STEP_SUMMARY": str(blocked), "GITHUB_OUTPUT": str(blocked)}
    )
    assert result.code == DEMO_EXIT, result.log
    assert "Traceback" not in result.log
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert any("job summary" in w for w in warnings)
    assert any("step outputs" in w for w in warnings)
    assert len(fake.check_runs) == 1


@pytest.mark.slow
def test_retry_notices_are_fenced_one_line_and_redacted(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path
) -> None:
    hostile = f"Bad Gateway\n::error file=x::INJECTED\n::add-mask::waza {TOKEN}"
    fake.add_fault(Fault("POST", status=503, body={"message": hostile}))
    runner = Runner(tmp_path, fake, demo_workspace)
    result = runner.run(DEMO_INPUTS)
    assert result.code == DEMO_EXIT, result.log
    assert len(fake.check_runs) == 1
    assert "INJECTED" in result.stdout, "the retry notice is shown"
    fenced = _fenced_ranges(result.stdout)
    lines = result.stdout.splitlines()
    for index, line in enumerate(lines):
        if "INJECTED" in line:
            assert any(start < index < end for start, end in fenced), line
            assert not line.startswith("::error")
    assert "INJECTED" not in result.stderr
    assert [line for line in result.log.splitlines() if TOKEN in line] == [f"::add-mask::{TOKEN}"]


@pytest.mark.slow
def test_a_matrix_sibling_check_run_is_never_taken_over(
    tmp_path: Path, fake: FakeGitHub, project: Project
) -> None:
    passing = project.write_grader("ok.py", "print('fine')\n")
    failing = project.write_grader("no.py", "import sys\nsys.exit(1)\n")
    project.write_eval("")
    project.write_task("good", graders=project.program_grader("ok", passing))
    project.write_task("bad", graders=project.program_grader("no", failing))
    project.write_results(make_results({"good": [make_run()], "bad": [make_run()]}))
    runner = Runner(tmp_path, fake, project.root)
    base = {"eval": "eval.yaml", "results": "results.json", "workspace": "workspace"}
    # Two legs of one matrix job: same run, attempt, job name and check name.
    assert runner.run({**base, "task": "good"}).code == 0
    fake.add_fault(Fault.drop("POST"))  # the failing leg's create is lost on the way back
    failed = runner.run({**base, "task": "bad"})
    assert failed.code == 1, failed.log
    conclusions = sorted(run["conclusion"] for run in fake.check_runs)
    assert conclusions == ["failure", "success"], "the failure must get a check run of its own"
    ids = {run["conclusion"]: str(run["id"]) for run in fake.check_runs}
    assert failed.outputs["check-run-id"] == ids["failure"]


@pytest.mark.slow
def test_a_partly_published_check_run_is_still_reported(
    tmp_path: Path, fake: FakeGitHub, project: Project
) -> None:
    _failing_project(project, tasks=20, graders=3)  # 60 annotations: 50 + 10
    fake.add_fault(Fault.unprocessable("PATCH"))
    runner = Runner(tmp_path, fake, project.root)
    result = runner.run({"eval": "eval.yaml", "results": "results.json", "workspace": "workspace"})
    assert result.code == 1, result.log
    (check,) = fake.check_runs
    assert len(check["annotations"]) == 50
    assert result.outputs["check-run-id"] == str(check["id"])
    assert result.outputs["check-run-url"] == check["html_url"]
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert any("only 50 of 60 annotations" in w for w in warnings)
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 10, "exactly the 10 annotations the check run is missing"


@pytest.mark.slow
def test_a_silent_api_costs_at_most_api_timeout_and_keeps_the_verdict(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path
) -> None:
    runner = Runner(tmp_path, fake, demo_workspace)
    with SilentServer() as silent:
        started = time.monotonic()
        result = runner.run({**DEMO_INPUTS, "api-timeout": "2"}, env={"GITHUB_API_URL": silent.url})
        elapsed = time.monotonic() - started
    assert result.code == DEMO_EXIT, result.log
    assert elapsed < 15, elapsed  # grading + 2 s, not minutes of retries
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 1 and "api-timeout" in warnings[0], warnings
    assert result.outputs["passed"] == "false" and result.outputs["check-run-id"] == ""
    assert "write-changelog" in result.summary
    assert "Traceback" not in result.log


@pytest.mark.slow
@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan", "1e9", "soon"])
def test_a_bad_api_timeout_is_an_input_error(
    tmp_path: Path, fake: FakeGitHub, demo_workspace: Path, value: str
) -> None:
    result = Runner(tmp_path, fake, demo_workspace).run({**DEMO_INPUTS, "api-timeout": value})
    assert result.code == 2, result.log
    assert "::error" in result.stdout and "api-timeout" in result.stdout
    assert fake.requests == []
