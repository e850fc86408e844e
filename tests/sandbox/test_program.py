"""program.py against real processes: stdin, env, cwd, lookup, exits, timeouts, groups, threads.

What is kept of the output is in test_capture.py."""

from __future__ import annotations

import hashlib
import os
import resource
import selectors
import shutil
import signal
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from waza_ci.golang.os import go_exit_text
from waza_ci.sandbox.outcome import DEFAULT_OUTPUT_CAP_BYTES, ProgramOutcome
from waza_ci.sandbox.program import PIPE_GRACE_S, run_program


def _tool_path(*tools: str) -> str:
    """A PATH holding the folders of the tools the tests run by name, as found on this machine
    (never a fixed layout such as /usr/bin:/bin)."""
    folders = []
    for tool in tools:
        found = shutil.which(tool)
        assert found is not None, f"the tests need `{tool}` on PATH"
        folders.append(str(Path(found).parent))
    return os.pathsep.join(dict.fromkeys(folders))


SYSTEM_PATH = _tool_path("cat", "env", "true", "sh", "sleep", "printf")
MIB = 1024 * 1024


def python(code: str) -> list[str]:
    """argv running `code` with this interpreter (an absolute path: no PATH lookup)."""
    return [sys.executable, "-c", textwrap.dedent(code)]


def run(
    argv: list[str],
    *,
    stdin: bytes = b"",
    env: dict[str, str] | None = None,
    cwd: str = "/",
    timeout_s: float = 20.0,
    output_cap_bytes: int = DEFAULT_OUTPUT_CAP_BYTES,
) -> ProgramOutcome:
    return run_program(
        argv,
        stdin=stdin,
        env={"PATH": SYSTEM_PATH} if env is None else env,
        cwd=cwd,
        timeout_s=timeout_s,
        output_cap_bytes=output_cap_bytes,
    )


def write_script(path: Path, body: str, mode: int = 0o755) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    path.chmod(mode)
    return path


def is_gone(pid: int) -> bool:
    """True when `pid` no longer runs (a zombie waiting for a reaper counts as gone)."""
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    state = stat_line.rsplit(")", 1)[1].split()[0]
    return state in {"Z", "X"}


def becomes_gone(pid: int, within_s: float = 3.0) -> bool:
    # SIGKILL is delivered asynchronously; give the kernel a moment to finish the process.
    give_up = time.monotonic() + within_s
    while time.monotonic() < give_up:
        if is_gone(pid):
            return True
        time.sleep(0.02)
    return is_gone(pid)


# --- stdin, env, cwd -------------------------------------------------------------------------


def test_stdin_reaches_the_program_byte_for_byte_then_eof() -> None:
    payload = b"first line\nsecond line without newline\xff\x00\xe2\x82"
    outcome = run(
        python("import sys; sys.stdout.write(sys.stdin.buffer.read().hex())"), stdin=payload
    )
    assert outcome.passed and not outcome.timed_out
    assert bytes.fromhex(outcome.stdout) == payload


def test_stdin_larger_than_the_pipe_buffer_arrives_whole() -> None:
    payload = os.urandom(3 * MIB)
    outcome = run(
        python(
            """
            import hashlib, sys
            data = sys.stdin.buffer.read()
            print(hashlib.sha256(data).hexdigest(), len(data))
            """
        ),
        stdin=payload,
    )
    assert outcome.passed
    assert outcome.stdout.split() == [hashlib.sha256(payload).hexdigest(), str(len(payload))]


def test_stdin_and_stdout_flow_at_the_same_time() -> None:
    # cat writes while we still feed it: a writer that blocked on stdin would deadlock here.
    payload = os.urandom(MIB + 12345).hex().encode()
    outcome = run(["cat"], stdin=payload, output_cap_bytes=4 * MIB, timeout_s=10.0)
    assert outcome.passed and not outcome.timed_out
    assert outcome.stdout.encode() == payload


def test_a_program_writing_more_than_it_reads_cannot_deadlock_with_us() -> None:
    # Four bytes out for every byte in: its stdout fills long before it has read all of stdin.
    amplifier = python(
        """
        import sys
        while block := sys.stdin.buffer.read1(4096):
            sys.stdout.buffer.write(block * 4)
            sys.stdout.flush()
        """
    )
    payload = b"z" * MIB
    outcome = run(amplifier, stdin=payload, timeout_s=10.0)
    assert outcome.passed and not outcome.timed_out
    # No line breaks to align to: exactly the cap is kept, the rest is counted.
    assert outcome.stdout_dropped_bytes == 4 * len(payload) - DEFAULT_OUTPUT_CAP_BYTES


@pytest.mark.parametrize("pause_s", [0.0, 0.2], ids=["exits-at-once", "exits-later"])
def test_a_program_that_never_reads_stdin_is_not_an_error(pause_s: float) -> None:
    outcome = run(
        python(f"import time; time.sleep({pause_s}); print('did not read')"),
        stdin=os.urandom(3 * MIB),
    )
    assert outcome.exit_error is None and not outcome.timed_out
    assert outcome.stdout == "did not read\n"


def test_environment_is_exactly_the_one_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAZA_CI_TEST_MUST_NOT_LEAK", "1")
    env = {
        "PATH": SYSTEM_PATH,
        "WAZA_WORKSPACE_DIR": "/some/workspace",
        "SPACES_AND_LINES": "a b\nc",
        "EMPTY": "",
    }
    outcome = run(["env", "-0"], env=env)
    assert outcome.passed
    seen = dict(entry.split("=", 1) for entry in outcome.stdout.split("\0") if entry)
    assert seen == env


def test_program_runs_in_the_given_working_directory(tmp_path: Path) -> None:
    outcome = run(python("import os; print(os.getcwd())"), cwd=str(tmp_path))
    assert outcome.stdout.strip() == str(tmp_path.resolve())


def test_missing_working_directory_is_reported_like_go(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    outcome = run(["true"], cwd=str(missing))
    assert outcome.exit_error == f"chdir {missing}: no such file or directory"
    assert not outcome.started and outcome.is_grader_error


# --- finding the program ---------------------------------------------------------------------


def test_bare_name_is_found_on_the_given_path_not_on_ours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_script(tmp_path / "theirs" / "waza-probe", "#!/bin/sh\necho from-given-path\n")
    write_script(tmp_path / "ours" / "waza-probe", "#!/bin/sh\necho from-our-path\n")
    monkeypatch.setenv("PATH", f"{tmp_path / 'ours'}:{os.environ['PATH']}")
    outcome = run(["waza-probe"], env={"PATH": f"{tmp_path / 'theirs'}:{SYSTEM_PATH}"})
    assert outcome.passed
    assert outcome.stdout == "from-given-path\n"


def test_argv0_is_kept_as_given_while_the_resolved_file_runs(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pyprobe").symlink_to(Path(sys.executable).resolve())
    outcome = run(
        ["pyprobe", "-c", "import sys; print(sys.orig_argv[0])"], env={"PATH": str(bin_dir)}
    )
    assert outcome.passed, outcome
    assert outcome.stdout == "pyprobe\n"


def test_bare_name_missing_from_path_gives_waza_text(tmp_path: Path) -> None:
    outcome = run(["python3", "grader.py"], env={"PATH": str(tmp_path)})
    assert outcome.exit_error == 'exec: "python3": executable file not found in $PATH'
    assert not outcome.started and outcome.is_grader_error and not outcome.passed


def test_no_path_variable_searches_nothing() -> None:
    outcome = run(["sh", "-c", "true"], env={})
    assert outcome.exit_error == 'exec: "sh": executable file not found in $PATH'


def test_name_in_lookup_error_is_quoted_like_go(tmp_path: Path) -> None:
    outcome = run(['odd"name\tx'], env={"PATH": str(tmp_path)})
    assert outcome.exit_error == 'exec: "odd\\"name\\tx": executable file not found in $PATH'


def test_a_match_in_a_relative_path_entry_is_refused_as_go_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    refused = 'exec: "waza-probe": cannot run executable found relative to current directory'
    write_script(tmp_path / "abs" / "waza-probe", "#!/bin/sh\necho from-absolute\n")
    # Relative entries without a match are passed over.
    skipped = run(["waza-probe"], env={"PATH": f":.:rel:{tmp_path / 'abs'}"}, cwd=str(tmp_path))
    assert skipped.stdout == "from-absolute\n"
    for entry, decoy in (("", "waza-probe"), (".", "waza-probe"), ("rel", "rel/waza-probe")):
        write_script(tmp_path / decoy, "#!/bin/sh\necho from-relative\n")
        outcome = run(
            ["waza-probe"], env={"PATH": f"{entry}:{tmp_path / 'abs'}"}, cwd=str(tmp_path)
        )
        assert outcome.exit_error == refused, entry
        assert not outcome.started and outcome.stdout == ""
        (tmp_path / decoy).unlink()


def test_name_with_a_separator_is_used_as_given_relative_to_cwd(tmp_path: Path) -> None:
    write_script(tmp_path / "graders" / "check", "#!/bin/sh\necho relative-script\n")
    outcome = run(["graders/check"], env={"PATH": ""}, cwd=str(tmp_path))
    assert outcome.stdout == "relative-script\n"


def test_path_that_does_not_exist_gives_go_text(tmp_path: Path) -> None:
    relative = run(["./missing-grader"], cwd=str(tmp_path))
    assert relative.exit_error == "fork/exec ./missing-grader: no such file or directory"
    absolute = tmp_path / "missing-grader"
    assert run([str(absolute)]).exit_error == f"fork/exec {absolute}: no such file or directory"
    assert not relative.started and relative.is_grader_error


def test_file_that_is_not_executable_gives_go_text(tmp_path: Path) -> None:
    # Even root may not execute a file with no execute bit at all.
    script = write_script(tmp_path / "check.sh", "#!/bin/sh\nexit 0\n", mode=0o644)
    outcome = run([str(script)])
    assert outcome.exit_error == f"fork/exec {script}: permission denied"
    assert not outcome.started


def test_directory_as_command_gives_go_text(tmp_path: Path) -> None:
    assert run([str(tmp_path)]).exit_error == f"fork/exec {tmp_path}: permission denied"


def test_file_that_is_no_program_gives_go_text(tmp_path: Path) -> None:
    # No shebang: Go does not fall back to a shell, and neither do we.
    junk = write_script(tmp_path / "junk", "just some text\n")
    assert run([str(junk)]).exit_error == f"fork/exec {junk}: exec format error"


def test_bare_name_failure_names_the_resolved_path(tmp_path: Path) -> None:
    write_script(tmp_path / "junk", "just some text\n")
    outcome = run(["junk"], env={"PATH": str(tmp_path)})
    assert outcome.exit_error == f"fork/exec {tmp_path / 'junk'}: exec format error"


# --- exits and signals -----------------------------------------------------------------------


@pytest.mark.parametrize("code", [1, 2, 42, 255])
def test_non_zero_exit_is_a_failing_grade_not_a_grader_error(code: int) -> None:
    outcome = run(["sh", "-c", f"exit {code}"])
    assert outcome.exit_error == f"exit status {code}"
    assert outcome.started and not outcome.passed and not outcome.is_grader_error


def test_exit_zero_passes() -> None:
    outcome = run(["true"])
    assert outcome.exit_error is None and outcome.passed and not outcome.is_grader_error


@pytest.mark.parametrize(
    ("signum", "text"),
    [
        (signal.SIGTERM, "signal: terminated"),
        (signal.SIGSEGV, "signal: segmentation fault"),
        (signal.SIGKILL, "signal: killed"),
        (signal.SIGABRT, "signal: aborted"),
        (40, "signal: signal 40"),
    ],
)
def test_death_by_signal_is_named_like_go(signum: int, text: str) -> None:
    outcome = run(
        python(
            f"""
            import os, resource
            # No core file: a dump would add " (core dumped)" to the text.
            hard = resource.getrlimit(resource.RLIMIT_CORE)[1]
            resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
            os.kill(os.getpid(), {int(signum)})
            """
        )
    )
    assert outcome.exit_error == text
    assert outcome.started and not outcome.timed_out and not outcome.is_grader_error


def test_exit_texts_follow_go_process_state_string() -> None:
    assert go_exit_text(os.CLD_EXITED, 0) is None
    assert go_exit_text(os.CLD_EXITED, 3) == "exit status 3"
    assert go_exit_text(os.CLD_KILLED, 15) == "signal: terminated"
    assert go_exit_text(os.CLD_DUMPED, 11) == "signal: segmentation fault (core dumped)"
    assert go_exit_text(os.CLD_KILLED, 64) == "signal: signal 64"


def test_a_real_core_dump_is_reported(tmp_path: Path) -> None:
    if resource.getrlimit(resource.RLIMIT_CORE)[1] == 0:
        pytest.skip("core dumps are disabled by the hard limit")
    if Path("/proc/sys/kernel/core_pattern").read_text().startswith("|"):
        pytest.skip("core dumps go to a helper program, which may decline them")
    outcome = run(
        python(
            """
            import os, resource, signal
            hard = resource.getrlimit(resource.RLIMIT_CORE)[1]
            resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))
            os.kill(os.getpid(), signal.SIGQUIT)
            """
        ),
        cwd=str(tmp_path),
    )
    assert outcome.exit_error == "signal: quit (core dumped)"


# --- timeouts and the process group -----------------------------------------------------------


@pytest.mark.slow
def test_timeout_kills_the_group_even_when_a_grandchild_holds_the_pipes() -> None:
    started = time.monotonic()
    outcome = run(["sh", "-c", "sleep 60 & echo $!; sleep 60"], timeout_s=1.5)
    took = time.monotonic() - started
    assert outcome.timed_out and outcome.exit_error == "signal: killed"
    assert outcome.is_grader_error and not outcome.passed
    assert 1.5 <= took < 1.5 + PIPE_GRACE_S + 3.0
    grandchild = int(outcome.stdout.split()[0])
    assert becomes_gone(grandchild)


@pytest.mark.slow
def test_timeout_with_a_python_grandchild_keeps_output_written_before_it() -> None:
    outcome = run(
        python(
            """
            import subprocess, sys, time
            print("working", file=sys.stderr, flush=True)
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            print(child.pid, flush=True)
            time.sleep(60)
            """
        ),
        # Room for two interpreter starts on a loaded CI machine before the deadline strikes.
        timeout_s=3.0,
    )
    assert outcome.timed_out and outcome.exit_error == "signal: killed"
    assert outcome.stderr == "working\n"
    assert becomes_gone(int(outcome.stdout))


def test_children_left_running_after_a_clean_exit_are_killed() -> None:
    # The child does not hold the pipes, so nothing would wait for it: only the group kill ends it.
    outcome = run(["sh", "-c", "sleep 60 </dev/null >/dev/null 2>&1 & echo $!"])
    assert outcome.passed
    assert becomes_gone(int(outcome.stdout))


@pytest.mark.slow
def test_an_escaped_grandchild_holding_the_pipes_does_not_hang_us(started_pids: list[int]) -> None:
    started = time.monotonic()
    outcome = run(
        python(
            """
            import subprocess, sys
            # A new session of its own: out of the group, so the group kill cannot reach it.
            escaped = subprocess.Popen(
                [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
            )
            print(escaped.pid, flush=True)
            """
        )
    )
    took = time.monotonic() - started
    escaped_pid = int(outcome.stdout)
    started_pids.append(escaped_pid)
    assert outcome.passed and not outcome.timed_out
    assert took < PIPE_GRACE_S + 5.0
    assert not is_gone(escaped_pid), "the scenario needs a grandchild still holding the pipes"


def test_waiting_for_an_escaped_grandchilds_pipes_sleeps_rather_than_spins(
    started_pids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Once the leader has exited its pidfd stays readable; watched any longer it would wake
    # every select at once for the whole grace period (thousands of wake-ups). Waiting on the
    # pipes alone, the supervisor wakes a handful of times.
    wakeups: list[int] = []
    real_select = selectors.PollSelector.select

    def counting_select(
        self: selectors.PollSelector, timeout: float | None = None
    ) -> list[tuple[selectors.SelectorKey, int]]:
        wakeups.append(1)
        return real_select(self, timeout)

    monkeypatch.setattr(selectors.PollSelector, "select", counting_select)
    outcome = run(
        python(
            """
            import subprocess, sys
            escaped = subprocess.Popen(
                [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
            )
            print(escaped.pid, flush=True)
            """
        )
    )
    started_pids.append(int(outcome.stdout))
    assert outcome.passed
    assert len(wakeups) < 50, f"{len(wakeups)} wake-ups while the pipes drained"


@pytest.mark.slow
def test_an_escaped_grandchild_does_not_stretch_a_timeout(started_pids: list[int]) -> None:
    started = time.monotonic()
    outcome = run(
        python(
            """
            import subprocess, sys, time
            escaped = subprocess.Popen(
                [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
            )
            print(escaped.pid, flush=True)
            time.sleep(60)
            """
        ),
        # Room for two interpreter starts on a loaded CI machine before the deadline strikes.
        timeout_s=3.0,
    )
    took = time.monotonic() - started
    started_pids.append(int(outcome.stdout))
    assert outcome.timed_out and outcome.exit_error == "signal: killed"
    assert took < 3.0 + PIPE_GRACE_S + 3.0


def test_duration_is_measured() -> None:
    outcome = run(["sleep", "0.3"])
    assert 300 <= outcome.duration_ms < 3000


# --- threads ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_many_programs_can_run_at_once_from_threads() -> None:
    reverse_and_exit = python(
        """
        import sys, time
        data = sys.stdin.buffer.read()
        time.sleep(0.1)
        sys.stdout.buffer.write(data[::-1])
        sys.exit(len(data) % 3)
        """
    )
    payloads = [f"payload number {index}".encode() * (index + 1) for index in range(12)]

    def one(payload: bytes) -> ProgramOutcome:
        return run(reverse_and_exit, stdin=payload)

    with ThreadPoolExecutor(max_workers=6) as pool:
        outcomes = list(pool.map(one, payloads))
    for payload, outcome in zip(payloads, outcomes, strict=True):
        assert outcome.stdout.encode() == payload[::-1]
        expected = None if len(payload) % 3 == 0 else f"exit status {len(payload) % 3}"
        assert outcome.exit_error == expected
