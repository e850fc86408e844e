"""The group guard (groupguard.py): process groups it was told of die when waza-ci dies; those it
was told to forget do not; and graders start without code between fork and exec while it runs,
with the parent-death signal as the fallback where it cannot."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.sandbox.test_signals import alive, dead, wait_for
from waza_ci.sandbox import program
from waza_ci.sandbox.groupguard import GUARD, READ_EVERY_S, GroupGuard


def run_script(source: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(source)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )


def test_watched_groups_die_with_their_writer_and_forgotten_ones_live(
    started_pids: list[int],
) -> None:
    script = run_script(
        """
        import os, signal, subprocess, sys
        from waza_ci.sandbox.groupguard import GroupGuard
        guard = GroupGuard()
        assert guard.start()
        group = subprocess.Popen(
            ["sh", "-c", "sleep 60 & echo $!; wait"], stdout=subprocess.PIPE,
            start_new_session=True,
        )
        member = int(group.stdout.readline())
        spared = subprocess.Popen(["sleep", "60"], start_new_session=True)
        guard.watch(group.pid)
        guard.watch(spared.pid)
        guard.forget(spared.pid)
        print(group.pid, member, spared.pid, guard.pid, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)  # no clean-up of ours runs
        """
    )
    assert script.stdout is not None
    leader, member, spared, guard_pid = map(int, script.stdout.readline().split())
    started_pids.extend([leader, member, spared, guard_pid])
    script.wait(timeout=10)
    for pid in (leader, member, guard_pid):
        wait_for(partial(dead, pid), timeout=10)
    assert alive(spared), "a forgotten group is not the group guard's to kill"


def test_the_group_guard_has_its_own_session_and_ignores_signals_meant_for_waza_ci() -> None:
    guard = GroupGuard()
    assert guard.start()
    guard_pid = guard.pid
    assert guard_pid is not None
    assert os.getsid(guard_pid) == guard_pid, "a group kill aimed at waza-ci must not reach it"
    # Until it ignores all three it may still be starting: an ignored SIGHUP inherited from a
    # `nohup` run of the suite would otherwise end the wait before SIGTERM is ignored.
    meant_for_waza_ci = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    wait_for(lambda: all(_ignores(guard_pid, n) for n in meant_for_waza_ci), timeout=10)
    for number in meant_for_waza_ci:
        os.kill(guard_pid, number)
    time.sleep(0.2)
    assert alive(guard_pid)
    os.kill(guard_pid, signal.SIGKILL)


def _ignores(pid: int, number: int) -> bool:
    """Whether `pid` has set `number` to be ignored (SigIgn in /proc/PID/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) & (1 << (number - 1)))
    return False


def test_graders_start_with_no_code_between_fork_and_exec_while_the_group_guard_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A preexec_fn makes Python fork the whole interpreter instead of vfork: milliseconds per
    # grader on a process holding a large results file.
    assert GUARD.start()
    seen = _spawn_keywords(monkeypatch)
    outcome = program.run_program(["true"], stdin=b"", env=dict(os.environ), cwd="", timeout_s=10)
    assert outcome.passed
    assert len(seen) == 1 and seen[0].get("preexec_fn") is None


def test_without_a_group_guard_the_grader_gets_a_parent_death_signal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(program, "GUARD", GroupGuard())
    monkeypatch.setattr(sys, "executable", "")  # nothing to run the group guard with
    seen = _spawn_keywords(monkeypatch)
    outcome = program.run_program(["true"], stdin=b"", env=dict(os.environ), cwd="", timeout_s=10)
    assert outcome.passed
    assert len(seen) == 1 and callable(seen[0].get("preexec_fn"))


@pytest.mark.slow
def test_without_a_group_guard_a_sigkilled_parent_still_takes_its_grader(
    started_pids: list[int],
) -> None:
    script = run_script(
        """
        import os, sys
        from waza_ci.sandbox.program import run_program
        sys.executable = ""  # the group guard cannot start: the fallback must hold
        run_program(["sleep", "60"], stdin=b"", env=dict(os.environ), cwd="", timeout_s=60)
        """
    )
    grader = _wait_for_child(script.pid, "sleep")
    started_pids.append(grader)
    script.kill()
    script.wait(timeout=10)
    wait_for(lambda: dead(grader), timeout=10)


def _wait_for_child(parent: int, name: str) -> int:
    """The pid of `parent`'s child whose command name is `name`, once there is one."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            command = stat[stat.index("(") + 1 : stat.rindex(")")]
            fields = stat.rsplit(")", 1)[1].split()
            if fields[1] == str(parent) and command == name:
                return int(entry.name)
        time.sleep(0.02)
    raise AssertionError(f"no {name} child of {parent} appeared")


def _spawn_keywords(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Record the keywords program.py starts each grader with (the grader still runs)."""
    seen: list[dict[str, Any]] = []
    real = subprocess.Popen

    def recording(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        seen.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", recording)  # program.py calls subprocess.Popen
    return seen


def _wake_ups(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("voluntary_ctxt_switches:")[1].split()[0])


def test_the_group_guard_wakes_per_interval_not_per_line() -> None:
    # Two lines per grader: a reader woken by each took a core from the graders.
    guard = GroupGuard()
    assert guard.start()
    guard_pid = guard.pid
    assert guard_pid is not None
    try:
        time.sleep(0.2)  # started and blocked on its first read
        before = _wake_ups(guard_pid)
        started = time.monotonic()
        for number in range(300):  # pgids far above pid_max's default: nothing real
            guard.watch(4_000_000 + number)
            guard.forget(4_000_000 + number)
            time.sleep(0.001)
        elapsed = time.monotonic() - started
        woken = _wake_ups(guard_pid) - before
        intervals = elapsed / READ_EVERY_S
        assert woken <= 2 * intervals + 5, f"{woken} wake-ups for 600 lines in {elapsed:.2f} s"
    finally:
        os.kill(guard_pid, signal.SIGKILL)
        os.waitpid(guard_pid, 0)


def test_a_line_cut_between_two_reads_still_names_its_group(started_pids: list[int]) -> None:
    script = run_script(
        f"""
        import os, signal, subprocess, time
        from waza_ci.sandbox.groupguard import GroupGuard
        guard = GroupGuard()
        assert guard.start()
        group = subprocess.Popen(["sleep", "60"], start_new_session=True)
        line = b"+%d\\n" % group.pid
        os.write(guard._fd, line[:2])
        time.sleep({READ_EVERY_S} * 3)  # the group guard reads the first half alone
        os.write(guard._fd, line[2:])
        print(group.pid, guard.pid, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    assert script.stdout is not None
    leader, guard_pid = map(int, script.stdout.readline().split())
    started_pids.extend([leader, guard_pid])
    script.wait(timeout=10)
    for pid in (leader, guard_pid):
        wait_for(partial(dead, pid), timeout=10)
