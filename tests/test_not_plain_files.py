"""Paths that are not plain files: folders, FIFOs, sockets, devices, symlink loops.

Each gets one line naming the path and exit 2, quickly: nothing hangs on a FIFO without a
writer or on /dev/stdin, and nothing reads /dev/zero without end.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.action.test_entrypoint import DEMO_EXIT, DEMO_INPUTS, TOKEN, Runner
from tests.conftest import DEMO, FAST_PATH, ROOT, run_cli_process
from tests.fake_github import FakeGitHub
from waza_ci.errors import InputError
from waza_ci.files import read_regular_file

DEVICE = Path(os.devnull).parent / "zero"  # /dev/zero, found from the platform's devnull


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    return root


def make_fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def make_folder(path: Path) -> Path:
    path.mkdir()
    return path


def make_loop(path: Path) -> Path:
    path.symlink_to(path.name)  # a link to itself
    return path


@pytest.fixture
def bound_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen()
    yield path
    server.close()


MAKERS: dict[str, Callable[[Path], Path]] = {
    "folder": make_folder,
    "fifo": make_fifo,
    "symlink-loop": make_loop,
}


def grade_args(demo: Path, results: Path | str, *extra: str) -> list[str]:
    return [
        "grade",
        str(demo / "eval.yaml"),
        "--results",
        str(results),
        "--workspace",
        str(demo / "workspace"),
        "--working-directory",
        str(demo),
        *extra,
    ]


def assert_one_line_error(code: int, stderr: str, path: Path | str) -> None:
    assert code == 2, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, lines
    assert str(path) in lines[0] and "Traceback" not in stderr


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_results_that_are_not_plain_files_are_refused(
    demo: Path, tmp_path: Path, kind: str
) -> None:
    path = MAKERS[kind](tmp_path / "results.json")
    done = run_cli_process(grade_args(demo, path), cwd=demo, timeout=30)
    assert_one_line_error(done.code, done.stderr, path)


@pytest.mark.slow
def test_a_socket_and_a_device_are_refused(demo: Path, bound_socket: Path) -> None:
    for path in (bound_socket, DEVICE):
        done = run_cli_process(grade_args(demo, path), cwd=demo, timeout=30)
        assert_one_line_error(done.code, done.stderr, path)
        assert "regular file" in done.stderr


@pytest.mark.slow
def test_dev_stdin_on_a_pipe_that_never_closes_does_not_hang(demo: Path) -> None:
    stdin = Path(os.devnull).parent / "stdin"
    process = subprocess.Popen(
        [sys.executable, "-m", "waza_ci", *grade_args(demo, stdin)],
        cwd=demo,
        env={**os.environ, "PATH": FAST_PATH, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.PIPE,  # kept open, never written: a read would wait forever
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert_one_line_error(process.returncode, stderr, stdin)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["fifo", "symlink-loop"])
def test_an_eval_spec_that_is_not_a_plain_file_is_refused(
    demo: Path, tmp_path: Path, kind: str
) -> None:
    spec = MAKERS[kind](tmp_path / "eval.yaml")
    args = grade_args(demo, demo / "results.json")
    args[1] = str(spec)
    done = run_cli_process(args, cwd=demo, timeout=30)
    assert_one_line_error(done.code, done.stderr, spec)


@pytest.mark.slow
@pytest.mark.parametrize("option", ["--output", "--summary"])
@pytest.mark.parametrize("kind", ["fifo", "symlink-loop", "device"])
def test_outputs_that_are_not_plain_files_are_refused_before_grading(
    demo: Path, tmp_path: Path, option: str, kind: str
) -> None:
    if kind == "device":
        # Through a link of our own: were the check missing, the rename would replace the link,
        # never the device node itself (as root it would replace /dev/zero).
        target = tmp_path / "target"
        target.symlink_to(DEVICE)
    else:
        target = MAKERS[kind](tmp_path / "target")
    done = run_cli_process(
        grade_args(demo, demo / "results.json", option, str(target)), cwd=demo, timeout=30
    )
    assert_one_line_error(done.code, done.stderr, target)
    assert done.stdout == "", "nothing graded"


@pytest.mark.slow
def test_an_event_file_that_is_a_fifo_is_an_error_not_a_hang(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    shutil.copytree(DEMO, workspace / "examples" / "demo")
    with FakeGitHub(token=TOKEN) as fake:
        runner = Runner(tmp_path, fake, workspace)
        runner.event_path.unlink()
        make_fifo(runner.event_path)
        result = runner.run(DEMO_INPUTS)
    assert result.code == 2, result.log
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "event file" in errors[0] and "FIFO" in errors[0], errors


def test_reads_stop_at_the_cap(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * 1001)
    assert read_regular_file(big, what="results file", max_bytes=1001) == b"x" * 1001
    with pytest.raises(InputError, match="larger than the limit of 1,000 bytes"):
        read_regular_file(big, what="results file", max_bytes=1000)


@pytest.mark.slow
def test_a_results_glob_skips_what_is_not_a_plain_file(demo: Path, tmp_path: Path) -> None:
    found = tmp_path / "found"
    found.mkdir()
    shutil.copy(demo / "results.json", found / "a.json")
    make_fifo(found / "b.json")
    done = run_cli_process(grade_args(demo, f"{found}/*.json"), cwd=demo, timeout=30)
    assert done.code == DEMO_EXIT, done.stderr
    assert list(json.loads(done.stdout)["tasks"])  # graded a.json, never waited on b.json


@pytest.mark.slow
def test_the_results_size_cap_is_an_option(demo: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    doc = json.loads((demo / "results.json").read_text())
    doc["padding"] = "x" * (3 * 1024 * 1024 // 2)  # 1.5 MiB
    big.write_text(json.dumps(doc))
    refused = run_cli_process(grade_args(demo, big, "--max-results-mib", "1"), cwd=demo)
    assert_one_line_error(refused.code, refused.stderr, big)
    assert "1,048,576 bytes" in refused.stderr and "--max-results-mib" in refused.stderr
    allowed = run_cli_process(grade_args(demo, big, "--max-results-mib", "2"), cwd=demo)
    assert allowed.code == DEMO_EXIT, allowed.stderr


@pytest.mark.slow
def test_the_action_takes_the_results_size_cap_as_an_input(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    shutil.copytree(DEMO, workspace / "examples" / "demo")
    with FakeGitHub(token=TOKEN) as fake:
        result = Runner(tmp_path, fake, workspace).run({**DEMO_INPUTS, "max-results-mib": "0"})
    assert result.code == 2 and "max-results-mib" in result.stdout, result.log
