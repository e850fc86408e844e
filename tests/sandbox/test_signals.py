"""Signals and cancellation: SIGINT/SIGTERM at any moment end waza-ci with one line
and exit 130/143, nothing half-written, no context directory left; a SIGKILLed waza-ci takes its
graders with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from tests.conftest import FAST_PATH, ROOT, Project, make_results, make_run


def slow_project(project: Project, marker: Path) -> None:
    """One task, two runs, a grader that records its pid in `marker` and then sleeps."""
    script = project.write_grader(
        "slow.py",
        "import os, time\n"
        f"with open({str(marker)!r}, 'a') as f:\n"
        "    f.write(f'{os.getpid()}\\n')\n"
        "time.sleep(60)\n",
    )
    project.write_eval(project.program_grader("slow", script))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run(1), make_run(2)]}))


# Loaded by Python at start-up (sitecustomize on PYTHONPATH): holds the import of waza_ci.cli.main
# (pydantic and all) for a while, after touching a marker, so a test can signal exactly then.
SLOW_IMPORT = """
import os, sys, time

class _HoldCliImport:
    def find_spec(self, name, path=None, target=None):
        if name == "waza_ci.cli.main":
            open(os.environ["WAZA_TEST_IMPORTING"], "w").close()
            time.sleep(30)
        return None

sys.meta_path.insert(0, _HoldCliImport())
"""


def start(
    project: Project, temp: Path, *extra: str, hold_import: Path | None = None
) -> subprocess.Popen[str]:
    env = {**os.environ, "PATH": FAST_PATH, "PYTHONPATH": str(ROOT), "TMPDIR": str(temp)}
    if hold_import is not None:
        hooks = hold_import.parent / "hooks"
        hooks.mkdir()
        (hooks / "sitecustomize.py").write_text(SLOW_IMPORT)
        env["PYTHONPATH"] = os.pathsep.join((str(hooks), str(ROOT)))
        env["WAZA_TEST_IMPORTING"] = str(hold_import)
    return subprocess.Popen(
        [sys.executable, "-m", "waza_ci", *project.grade_args(), *extra],
        cwd=project.root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(condition: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def alive(pid: int) -> bool:
    """Running, and not a zombie waiting for a reaper."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] != "Z"


def dead(pid: int) -> bool:
    return not alive(pid)


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
@pytest.mark.parametrize("moment", ["importing", "grading"])
def test_a_signal_ends_with_one_line_and_the_shell_exit_code(
    project: Project, tmp_path: Path, signum: int, moment: str
) -> None:
    marker = tmp_path / "pids"
    temp = tmp_path / "temp"
    temp.mkdir()
    slow_project(project, marker)
    output = tmp_path / "out" / "regraded.json"
    importing = tmp_path / "importing"
    hold = importing if moment == "importing" else None
    process = start(project, temp, "--output", str(output), "--jobs", "2", hold_import=hold)
    if moment == "importing":
        wait_for(importing.exists)
    else:
        wait_for(lambda: marker.exists() and len(marker.read_text().split()) == 2)
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 128 + signum, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and "interrupted by " + signal.Signals(signum).name in lines[0], lines
    assert stdout == ""
    assert not output.parent.exists() or list(output.parent.iterdir()) == [], "nothing written"
    assert list(temp.iterdir()) == [], "no context directory left behind"
    if marker.exists():
        for pid in map(int, marker.read_text().split()):
            wait_for(partial(dead, pid), timeout=10)


@pytest.mark.slow
def test_graders_die_with_a_sigkilled_waza_ci(project: Project, tmp_path: Path) -> None:
    marker = tmp_path / "pids"
    temp = tmp_path / "temp"
    temp.mkdir()
    slow_project(project, marker)
    process = start(project, temp, "--jobs", "2")
    wait_for(lambda: marker.exists() and len(marker.read_text().split()) == 2)
    graders = [int(pid) for pid in marker.read_text().split()]
    assert all(alive(pid) for pid in graders)
    process.kill()  # SIGKILL: no handler runs, only the kernel can stop the graders now
    process.communicate(timeout=10)
    for pid in graders:
        wait_for(partial(dead, pid), timeout=10)


@pytest.mark.slow
def test_a_sigkilled_waza_ci_takes_the_graders_children_too(
    project: Project, tmp_path: Path
) -> None:
    # The group guard (groupguard.py) kills the grader's whole process group: a child it started
    # dies with it, which a parent-death signal on the grader alone would not do.
    marker = tmp_path / "pids"
    temp = tmp_path / "temp"
    temp.mkdir()
    script = project.write_grader(
        "parent.py",
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"with open({str(marker)!r}, 'a') as f:\n"
        "    f.write(f'{os.getpid()} {child.pid}\\n')\n"
        "time.sleep(60)\n",
    )
    project.write_eval(project.program_grader("parent", script))
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run(1)]}))
    process = start(project, temp)
    wait_for(lambda: marker.exists() and len(marker.read_text().split()) == 2)
    grader, child = map(int, marker.read_text().split())
    assert alive(grader) and alive(child)
    process.kill()
    process.communicate(timeout=10)
    wait_for(partial(dead, grader), timeout=10)
    wait_for(partial(dead, child), timeout=10)


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["importing", "grading"])
def test_the_action_ends_on_sigterm_with_one_line_and_143(
    project: Project, tmp_path: Path, moment: str
) -> None:
    marker = tmp_path / "pids"
    slow_project(project, marker)
    summary, outputs = tmp_path / "summary", tmp_path / "outputs"
    summary.write_text("")
    outputs.write_text("")
    env = {
        "PATH": FAST_PATH,
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "TMPDIR": str(tmp_path / "temp"),
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(project.root),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(summary),
        "INPUT_EVAL": "eval.yaml",
        "INPUT_RESULTS": "results.json",
        "INPUT_WORKSPACE": "workspace",
        "INPUT_CHECK-RUN": "false",
    }
    (tmp_path / "temp").mkdir()
    importing = tmp_path / "importing"
    if moment == "importing":
        hooks = tmp_path / "hooks"
        hooks.mkdir()
        (hooks / "sitecustomize.py").write_text(
            SLOW_IMPORT.replace('"waza_ci.cli.main"', '"waza_ci.action.main"')
        )
        env["PYTHONPATH"] = os.pathsep.join((str(hooks), str(ROOT)))
        env["WAZA_TEST_IMPORTING"] = str(importing)
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "entrypoint.py")],
        cwd=project.root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if moment == "importing":
        wait_for(importing.exists)
    else:
        wait_for(lambda: marker.exists() and len(marker.read_text().split()) == 2)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 143, stdout + stderr
    said = [line for line in (stdout + stderr).splitlines() if "interrupted by SIGTERM" in line]
    assert len(said) == 1, stdout + stderr
    assert "Traceback" not in stdout + stderr
    assert outputs.read_text() == "" and summary.read_text() == "", "nothing written"
    assert list((tmp_path / "temp").iterdir()) == []


_END_AFTER_WRITING = """\
import sys
from waza_ci.sandbox.signals import end_process
sys.stdout.write("out:" + "o" * 5000)
sys.stderr.write("err:" + "e" * 5000)
if sys.argv[1:] == ["wait"]:
    sys.stdin.read()
end_process(int(sys.argv[2]) if len(sys.argv) > 2 else 3)
"""


def _without_unbuffered() -> dict[str, str]:
    # Block-buffered streams (a pipe, no PYTHONUNBUFFERED): only a flush delivers what is held.
    return {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def test_end_process_delivers_both_streams_and_keeps_the_code() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _END_AFTER_WRITING],
        capture_output=True,
        text=True,
        env=_without_unbuffered(),
        cwd=ROOT,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        3,
        "out:" + "o" * 5000,
        "err:" + "e" * 5000,
    )


def test_end_process_on_a_closed_pipe_does_not_pass() -> None:
    # CPython's own exit turns an unflushable stdout into 120; ending early must not lose that.
    child = subprocess.Popen(
        [sys.executable, "-c", _END_AFTER_WRITING, "wait", "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_without_unbuffered(),
        cwd=ROOT,
    )
    assert child.stdout is not None and child.stdin is not None
    child.stdout.close()  # the reader goes away before the child flushes
    child.stdin.close()
    assert child.wait(timeout=30) == 120
