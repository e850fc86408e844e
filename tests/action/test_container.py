"""End-to-end tests of the action's container, started exactly the way GitHub's runner does.

Each test builds a small workspace (a copy of examples/demo, plus a failing or a tampering grader
where needed), starts `waza-ci:test` with the runner's mounts, working directory and environment
(every input as `INPUT_<NAME>` with hyphens kept and action.yml's defaults filled in) against the
fake GitHub API on the host network, then checks the exit code, the log, the job summary, the step
outputs, the check runs the fake received, and, through `docker diff`, that no grading-context
directory was left in the container's temp dir.

The image is (re)built once per session from the committed Dockerfile; with Docker's layer cache
that takes seconds when `.ci/docker.sh` has already built it. When Docker is unusable the tests
fail under CI (the `CI` variable is set) and are skipped otherwise.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.fake_github import FakeGitHub, Fault
from tests.runner_files import parse_github_output

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo"
IMAGE = os.environ.get("WAZA_CI_IMAGE", "waza-ci:test")
BASE_IMAGE = "python:3.12-slim"

REPOSITORY = "owner/repo"
TOKEN = "ghs_containertest0123456789"
PUSH_SHA = "1" * 40
MERGE_SHA = "2" * 40
PR_HEAD_SHA = "3" * 40
# Where the demo copy sits inside the workspace: paths in annotations are relative to the
# workspace root, so they start with this folder.
DEMO_DIR = "demo"
CONTEXT_DIR_PREFIX = "waza-grading-"
RUN_TIMEOUT_S = 180

FAILING_GRADER = "ci_always_fails"
TAMPERING_GRADER = "ci_moves_its_context"

FAILING_SCRIPT = """\
import sys

print("ci_always_fails: this grader fails on purpose", file=sys.stderr)
sys.exit(1)
"""

# Moves its private context directory away (to a name of its own under /var/tmp), after
# noting where the directory was in the workspace so the test can look for that path in the log.
TAMPERING_SCRIPT = """\
import os
from pathlib import Path

context_dir = os.path.dirname(os.environ["WAZA_GRADING_CONTEXT"])
with open(Path(os.environ["WAZA_WORKSPACE_DIR"]) / "tampered-paths.txt", "a") as record:
    record.write(context_dir + "\\n")
os.rename(context_dir, f"/var/tmp/moved-{os.getpid()}")
print("moved the grading context away")
"""


# --- Docker and the image ------------------------------------------------------------------------


def _docker(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def _docker_problem() -> str | None:
    """Why Docker cannot be used here, or None when it can."""
    if shutil.which("docker") is None:
        return "the docker command is not installed"
    try:
        info = _docker("info", "--format", "{{.ServerVersion}}", timeout=30)
    except subprocess.TimeoutExpired:
        return "`docker info` timed out"
    if info.returncode != 0:
        return f"the Docker engine is not reachable: {info.stderr.strip()[:300]}"
    return None


@pytest.fixture(scope="module")
def image() -> str:
    return ensure_image()


def ensure_image() -> str:
    """The action image, built from the working tree (fast when the layers are cached)."""
    problem = _docker_problem()
    if problem is not None:
        message = f"Docker is needed for the container tests: {problem} (run `bash .ci/docker.sh`)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    if "WAZA_CI_IMAGE" in os.environ:
        if _docker("image", "inspect", IMAGE).returncode != 0:
            pytest.fail(f"WAZA_CI_IMAGE={IMAGE} does not exist")
        return IMAGE
    # .ci/docker.sh builds (or pulls) the base image when it is missing, then the action image
    # from the working tree, with the build arguments this machine needs (one owner of them).
    built = subprocess.run(
        ["bash", str(ROOT / ".ci" / "docker.sh")],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env={**os.environ, "WAZA_CI_IMAGE": IMAGE},
    )
    assert built.returncode == 0, f".ci/docker.sh failed:\n{built.stdout}\n{built.stderr}"
    return IMAGE


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    """The loopback API; leaving it fails the test if the action sent a request GitHub's REST
    description (or its limits) refuses."""
    with FakeGitHub() as server:
        yield server


# --- the runner's side ---------------------------------------------------------------------------


def action_inputs() -> dict[str, dict[str, Any]]:
    with (ROOT / "action.yml").open(encoding="utf-8") as f:
        metadata = yaml.safe_load(f)
    return dict(metadata["inputs"])


def runner_inputs(given: Mapping[str, str]) -> dict[str, str]:
    """INPUT_* variables as the runner sets them: every input, defaults from action.yml applied
    (with `${{ github.token }}` evaluated), names upper-cased with hyphens kept."""
    inputs = action_inputs()
    unknown = set(given) - set(inputs)
    assert not unknown, f"not inputs of action.yml: {sorted(unknown)}"
    env: dict[str, str] = {}
    for name, spec in inputs.items():
        if name in given:
            value = given[name]
        elif "default" in spec:
            value = str(spec["default"])
        else:
            continue
        value = value.replace("${{ github.token }}", TOKEN)
        assert "${{" not in value, f"input {name!r}: unevaluated expression in {value!r}"
        env[f"INPUT_{name.replace(' ', '_').upper()}"] = value
    return env


@dataclass(frozen=True)
class ContainerRun:
    exit_code: int
    log: str
    summary: str
    outputs: dict[str, str]
    changes: list[str]  # `docker diff` lines: "A /path", "C /path", "D /path"

    def context_dirs_left(self) -> list[str]:
        return [
            line for line in self.changes if re.search(rf"\s/tmp/{CONTEXT_DIR_PREFIX}[^/]*$", line)
        ]


class Runner:
    """Starts the image the way actions/runner's ContainerActionHandler does."""

    def __init__(self, root: Path, image: str, fake: FakeGitHub) -> None:
        self.image = image
        self.fake = fake
        self.workspace = root / "workspace"
        self.file_commands = root / "_runner_file_commands"
        self.workflow = root / "_github_workflow"
        self.home = root / "_github_home"
        for folder in (self.workspace, self.file_commands, self.workflow, self.home):
            folder.mkdir(parents=True, exist_ok=True)
        self.event("push", {"after": PUSH_SHA, "repository": {"full_name": REPOSITORY}})

    def event(self, name: str, payload: Mapping[str, Any]) -> None:
        self.event_name = name
        (self.workflow / "event.json").write_text(json.dumps(payload), encoding="utf-8")

    def run(self, inputs: Mapping[str, str], env: Mapping[str, str] | None = None) -> ContainerRun:
        step = uuid.uuid4().hex
        output_name, summary_name = f"set_output_{step}", f"step_summary_{step}"
        (self.file_commands / output_name).write_text("", encoding="utf-8")
        (self.file_commands / summary_name).write_text("", encoding="utf-8")
        variables = {
            "HOME": "/github/home",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": "/github/workspace",
            "GITHUB_EVENT_PATH": "/github/workflow/event.json",
            "GITHUB_EVENT_NAME": self.event_name,
            "GITHUB_OUTPUT": f"/github/file_commands/{output_name}",
            "GITHUB_STEP_SUMMARY": f"/github/file_commands/{summary_name}",
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_REPOSITORY_OWNER": REPOSITORY.split("/", maxsplit=1)[0],
            "GITHUB_SHA": PUSH_SHA,
            "GITHUB_REF": "refs/heads/main",
            "GITHUB_API_URL": self.fake.url,
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_RUN_ID": "4242",
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_JOB": "grade",
            "GITHUB_WORKFLOW": "container test",
            "GITHUB_ACTION": "__your-org_waza-ci",
            "GITHUB_ACTOR": "octocat",
            "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64",
            "RUNNER_TEMP": "/home/runner/work/_temp",  # a host path, not mounted (as on GitHub)
            **runner_inputs(inputs),
            **(env or {}),
        }
        name = f"waza-ci-test-{step[:12]}"
        command = [
            "docker", "run", "--name", name, "--network", "host",
            "--workdir", "/github/workspace",
            "-v", f"{self.workspace}:/github/workspace",
            "-v", f"{self.file_commands}:/github/file_commands",
            "-v", f"{self.workflow}:/github/workflow",
            "-v", f"{self.home}:/github/home",
        ]  # fmt: skip
        for key, value in variables.items():
            command += ["-e", f"{key}={value}"]
        command.append(self.image)
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False
            )
            diff = _docker("diff", name)
            assert diff.returncode == 0, diff.stderr
        finally:
            _docker("rm", "-f", name)
        return ContainerRun(
            exit_code=done.returncode,
            log=done.stdout + done.stderr,
            summary=(self.file_commands / summary_name).read_text(encoding="utf-8"),
            outputs=parse_github_output(
                (self.file_commands / output_name).read_text(encoding="utf-8")
            ),
            changes=diff.stdout.splitlines(),
        )


# --- fixtures: a workspace holding a copy of the demo --------------------------------------------


DEMO_EXIT = 1
"""The demo has one failing grader on purpose (entries_link_prs on write-changelog)."""
DEMO_INPUTS = {
    "eval": f"{DEMO_DIR}/eval.yaml",
    "results": f"{DEMO_DIR}/results.json",
    "workspace": f"{DEMO_DIR}/workspace",
    "working-directory": DEMO_DIR,
}


@pytest.fixture
def runner(tmp_path: Path, image: str, fake: FakeGitHub) -> Runner:
    started = Runner(tmp_path, image, fake)
    shutil.copytree(DEMO, started.workspace / DEMO_DIR)
    return started


def add_global_grader(runner: Runner, name: str, script: str) -> int:
    """Add a program grader to the demo's eval.yaml; returns the YAML line of its entry."""
    eval_path = runner.workspace / DEMO_DIR / "eval.yaml"
    spec = yaml.safe_load(eval_path.read_text(encoding="utf-8"))
    script_path = f"graders/{name}.py"
    (runner.workspace / DEMO_DIR / script_path).write_text(script, encoding="utf-8")
    spec.setdefault("graders", []).append(
        {
            "type": "program",
            "name": name,
            "config": {"command": "python3", "args": [script_path], "timeout": 30},
        }
    )
    text = yaml.safe_dump(spec, sort_keys=False)
    eval_path.write_text(text, encoding="utf-8")
    lines = text.splitlines()
    name_line = lines.index(f"  name: {name}")
    assert lines[name_line - 1] == "- type: program", text
    return name_line  # the 1-based number of the `- type: program` line before `name:`


def assert_no_context_dir_left(result: ContainerRun) -> None:
    assert result.context_dirs_left() == [], (
        "grading-context directories left in the container's /tmp:\n"
        + "\n".join(result.context_dirs_left())
    )


def error_commands(log: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith("::error")]


# --- the tests -----------------------------------------------------------------------------------


def test_demo_reports_its_failing_grader_in_the_check_run(runner: Runner, fake: FakeGitHub) -> None:
    result = runner.run(DEMO_INPUTS)

    assert result.exit_code == DEMO_EXIT, result.log
    [check] = fake.check_runs
    assert check["conclusion"] == "failure"
    assert check["head_sha"] == PUSH_SHA
    assert check["name"] == action_inputs()["check-name"]["default"]
    assert all(r.headers.get("authorization") == f"Bearer {TOKEN}" for r in fake.requests)
    assert result.summary.strip(), "the job summary is empty"
    outputs = result.outputs
    assert outputs["passed"] == "false"
    assert int(outputs["runs-graded"]) > 0
    assert outputs["runs-failed"] == "2"
    assert outputs["failed-tasks"] == '["write-changelog"]'
    report = json.loads((runner.workspace / outputs["report-json"]).read_text(encoding="utf-8"))
    assert report["failed_tasks"] == ["write-changelog"]
    assert "AssertionError: 2 of 2 entries" in check["output"]["summary"]
    assert f"waza-ci: check run: {check['html_url']}" in result.log.splitlines()
    assert outputs["grader-errors"] == "0"
    assert 0 <= float(outputs["overall-score"]) <= 1
    assert outputs["check-run-id"] == str(check["id"])
    assert outputs["check-run-url"]
    assert set(outputs) >= {"output-file"}
    # The token appears once, in the `::add-mask::` command that hides it from the log.
    assert [line for line in result.log.splitlines() if TOKEN in line] == [f"::add-mask::{TOKEN}"]
    assert_no_context_dir_left(result)


def test_failing_grader_fails_the_step_and_annotates_its_yaml_line(
    runner: Runner, fake: FakeGitHub
) -> None:
    line = add_global_grader(runner, FAILING_GRADER, FAILING_SCRIPT)

    result = runner.run(DEMO_INPUTS)

    assert result.exit_code == 1, result.log
    [check] = fake.check_runs
    assert check["conclusion"] == "failure"
    ours = [a for a in check["annotations"] if FAILING_GRADER in a["message"] + a.get("title", "")]
    assert ours, f"no annotation names {FAILING_GRADER}: {check['annotations']}"
    for annotation in ours:
        assert annotation["path"] == f"{DEMO_DIR}/eval.yaml"
        assert annotation["start_line"] == line
        assert annotation["annotation_level"] == "failure"
    assert result.outputs["passed"] == "false"
    assert int(result.outputs["runs-failed"]) > 0
    assert FAILING_GRADER in result.summary
    assert_no_context_dir_left(result)


def test_grader_moving_its_context_dir_is_a_grading_error_naming_the_path(
    runner: Runner, fake: FakeGitHub
) -> None:
    add_global_grader(runner, TAMPERING_GRADER, TAMPERING_SCRIPT)

    result = runner.run(DEMO_INPUTS)

    assert result.exit_code == 3, result.log
    record = runner.workspace / DEMO_DIR / "workspace" / "tampered-paths.txt"
    moved = record.read_text(encoding="utf-8").split()
    assert moved, "the tampering grader never ran"
    assert all(Path(path).name.startswith(CONTEXT_DIR_PREFIX) for path in moved), moved
    reported = result.log + result.summary
    assert any(path in reported for path in moved), (
        f"neither the log nor the summary names a moved directory {moved}:\n{result.log}"
    )
    assert int(result.outputs["grader-errors"]) > 0
    assert result.outputs["passed"] == "false"
    [check] = fake.check_runs
    assert check["conclusion"] == "failure"
    # The moved directories are where the grader put them (waza-ci must not delete what is no
    # longer its own), which also shows that `docker diff` sees the container's files.
    assert any(re.fullmatch(r"A /var/tmp/moved-\d+", line) for line in result.changes), (
        result.changes
    )
    assert_no_context_dir_left(result)


def test_pull_request_check_run_goes_to_the_head_commit(runner: Runner, fake: FakeGitHub) -> None:
    runner.event(
        "pull_request",
        {
            "action": "synchronize",
            "number": 7,
            "pull_request": {
                "number": 7,
                "head": {"sha": PR_HEAD_SHA, "ref": "feature", "repo": {"full_name": REPOSITORY}},
                "base": {"sha": "4" * 40, "ref": "main", "repo": {"full_name": REPOSITORY}},
            },
            "repository": {"full_name": REPOSITORY},
        },
    )

    result = runner.run(
        DEMO_INPUTS,
        env={
            "GITHUB_SHA": MERGE_SHA,
            "GITHUB_REF": "refs/pull/7/merge",
            "GITHUB_HEAD_REF": "feature",
        },
    )

    assert result.exit_code == DEMO_EXIT, result.log
    [check] = fake.check_runs
    assert check["head_sha"] == PR_HEAD_SHA
    assert check["conclusion"] == "failure"
    assert_no_context_dir_left(result)


def test_refused_check_run_falls_back_to_error_commands_with_the_same_verdict(
    runner: Runner, fake: FakeGitHub
) -> None:
    line = add_global_grader(runner, FAILING_GRADER, FAILING_SCRIPT)
    fake.add_fault(Fault.integration_refused("POST"))

    result = runner.run(DEMO_INPUTS)

    assert result.exit_code == 1, result.log  # as without the refusal
    assert fake.check_runs == []
    assert [r.method for r in fake.requests].count("POST") == 1, "the refused POST was retried"
    warnings = [w for w in result.log.splitlines() if w.startswith("::warning")]
    assert any("checks: write" in w for w in warnings), result.log
    errors = error_commands(result.log)
    assert any(
        re.search(rf"[ ,]file={re.escape(DEMO_DIR)}/eval\.yaml(,|::)", e)
        and re.search(rf"[ ,]line={line}(,|::)", e)
        and FAILING_GRADER in e
        for e in errors
    ), errors
    assert FAILING_GRADER in result.summary
    assert result.outputs["passed"] == "false"
    assert result.outputs["check-run-id"] == ""
    assert_no_context_dir_left(result)


def test_regression_gate_fails_on_a_new_failure_and_comments_on_the_pull_request(
    runner: Runner, fake: FakeGitHub
) -> None:
    add_global_grader(runner, FAILING_GRADER, FAILING_SCRIPT)
    runner.event(
        "pull_request",
        {
            "number": 7,
            "pull_request": {
                "number": 7,
                "head": {"sha": PR_HEAD_SHA, "ref": "feature", "repo": {"full_name": REPOSITORY}},
            },
        },
    )
    inputs = {
        **DEMO_INPUTS,
        # The saved run passed every grader: against it, the new failing grader regresses.
        "baseline": f"{DEMO_DIR}/results.json",
        "fail-on": "regressions",
    }

    result = runner.run(inputs, env={"GITHUB_WORKFLOW": "waza eval regression gate"})

    assert result.exit_code == 1, result.log
    assert result.outputs["gate"] == "fail"
    # 2 of 2 runs passing, then 0 of 2, is within noise per task (Fisher p = 1/6); waza's own
    # rule on the task pass rate (100% -> 0%, limit 0pp) is what fails the gate.
    assert result.outputs["regressions"] == "0"
    assert result.outputs["baseline-pass-rate"] == "1.0000"
    assert result.outputs["pass-rate"] == "0.0000"
    assert "waza gate: `regression`" in result.summary
    (comment,) = fake.comments
    assert comment["issue"] == 7
    assert "**Regression gate: ❌ fail**" in comment["body"]
    assert "Compared with the baseline" in result.summary
    assert_no_context_dir_left(result)
