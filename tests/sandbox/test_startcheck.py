"""startcheck.py against real files and real execs: why a script could not start, when its own
file says (CRLF line endings, no `#!` line, an interpreter that is not there, a `noexec` mount),
while Go's error text stays exactly what waza writes."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sandbox.test_program import SYSTEM_PATH
from waza_ci.sandbox.outcome import ProgramOutcome
from waza_ci.sandbox.program import run_program
from waza_ci.sandbox.startcheck import StartProblem

SH = shutil.which("sh")
assert SH is not None, "the tests need `sh` on PATH"


def _script(folder: Path, body: bytes, name: str = "check.sh", mode: int = 0o755) -> Path:
    path = folder / name
    path.write_bytes(body)
    path.chmod(mode)
    return path


def _start(command: str, cwd: Path) -> ProgramOutcome:
    return run_program(
        [command], stdin=b"", env={"PATH": SYSTEM_PATH}, cwd=str(cwd), timeout_s=20.0
    )


@pytest.mark.parametrize(
    ("body", "exit_error", "problem"),
    [
        pytest.param(
            f"#!{SH}\r\nexit 0\r\n".encode(),
            "fork/exec ./check.sh: no such file or directory",
            StartProblem.CRLF_LINE_ENDINGS,
            id="crlf",
        ),
        pytest.param(
            b"echo ok\nexit 0\n",
            "fork/exec ./check.sh: exec format error",
            StartProblem.NO_INTERPRETER_LINE,
            id="no-interpreter-line",
        ),
        pytest.param(
            b"#!/no/such/python3\nprint('ok')\n",
            "fork/exec ./check.sh: no such file or directory",
            StartProblem.MISSING_INTERPRETER,
            id="missing-interpreter",
        ),
        pytest.param(
            b"\x7fELF\x02\x01\x01" + b"\0" * 40,
            "fork/exec ./check.sh: exec format error",
            None,
            id="a-binary-for-another-machine",
        ),
    ],
)
def test_a_script_that_cannot_start_says_why(
    tmp_path: Path, body: bytes, exit_error: str, problem: StartProblem | None
) -> None:
    _script(tmp_path, body)
    outcome = _start("./check.sh", tmp_path)
    assert not outcome.started
    assert outcome.exit_error == exit_error  # Go's words, as waza writes them
    assert outcome.start_problem == problem


def test_a_missing_script_is_only_missing(tmp_path: Path) -> None:
    outcome = _start("./absent.sh", tmp_path)
    assert outcome.exit_error == "fork/exec ./absent.sh: no such file or directory"
    assert outcome.start_problem is None


def test_a_script_without_the_execute_bit_is_not_a_noexec_mount(tmp_path: Path) -> None:
    _script(tmp_path, f"#!{SH}\nexit 0\n".encode(), mode=0o644)
    outcome = _start("./check.sh", tmp_path)
    if os.geteuid() == 0:  # root may execute any file with an execute bit: there is none here
        assert outcome.exit_error == "fork/exec ./check.sh: permission denied"
    assert outcome.start_problem is None


def test_a_script_that_starts_is_not_read_at_all(tmp_path: Path) -> None:
    _script(tmp_path, f"#!{SH}\nexit 0\n".encode())
    outcome = _start("./check.sh", tmp_path)
    assert outcome.started and outcome.exit_error is None
    assert outcome.start_problem is None


def test_a_fifo_in_the_script_s_place_is_never_waited_for(tmp_path: Path) -> None:
    fifo = tmp_path / "check.sh"
    os.mkfifo(fifo)
    fifo.chmod(0o755)
    outcome = _start("./check.sh", tmp_path)
    assert not outcome.started
    assert outcome.start_problem is None


@contextlib.contextmanager
def _noexec_mount(folder: Path) -> Iterator[None]:
    """A tmpfs mounted noexec at `folder`; the test is skipped, saying why, where this machine
    cannot mount one (not root, or a container without the capability)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root and mount(8) to make a noexec file system")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "noexec,size=1m", "tmpfs", str(folder)],
        check=False,
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"this machine cannot mount a tmpfs: {mounted.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_an_executable_script_on_a_noexec_mount_says_so(tmp_path: Path) -> None:
    mounted = tmp_path / "mnt"
    mounted.mkdir()
    with _noexec_mount(mounted):
        _script(mounted, f"#!{SH}\nexit 0\n".encode())
        outcome = _start("./check.sh", mounted)
        assert outcome.exit_error == "fork/exec ./check.sh: permission denied"
        assert outcome.start_problem == StartProblem.NOEXEC_MOUNT
