"""Run one program grader's argv: exactly the stdin bytes, environment and working directory it
is given, in a session of its own, killed with its whole process group on timeout and after it
exits, and by a group guard process (groupguard.py) if waza-ci itself dies. Output is read from
both pipes at once and kept within a cap per stream (its head and its tail, capture.py), so
neither a chatty grader nor a grandchild that holds the pipes open can exhaust memory or hang
the caller.

Only this module starts processes (orphans.py kills escaped ones). The outcome and waza's texts
for it are in outcome.py; Go's lookup in goexec.py, Go's error texts in golang/;
cancellation.py says when to stop.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO

from waza_ci.golang.os import go_errno_text, go_exit_text
from waza_ci.sandbox.cancellation import cancelled, wakeup_fd
from waza_ci.sandbox.capture import OutputCapture
from waza_ci.sandbox.goexec import CannotStart, check_working_directory, resolve_executable
from waza_ci.sandbox.groupguard import GUARD
from waza_ci.sandbox.outcome import DEFAULT_OUTPUT_CAP_BYTES, ProgramOutcome
from waza_ci.sandbox.startcheck import StartProblem, diagnose_start

PIPE_GRACE_S = 1.0
"""How long to keep reading after the program exited and its group was killed.

Only a process that left the group (setsid) can still hold the pipes open by then; we stop
waiting for it rather than hang."""

_POLL_S = 0.05  # how often to look for the leader's exit where pidfds are unavailable
_MAX_WAIT_S = 60.0  # selectors reject an infinite timeout; waking once a minute costs nothing
_READ_CHUNK = 64 * 1024
_PR_SET_PDEATHSIG = 1
_WRITE_CHUNK = 64 * 1024


def _load_prctl() -> Callable[..., int] | None:
    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux
        return None
    return prctl


# Looked up once, here: the child after fork should do as little as possible.
_PRCTL = _load_prctl()


def _die_with_parent(parent_pid: int) -> Callable[[], None] | None:
    """Where the group guard (groupguard.py) cannot run: a preexec_fn that makes the kernel SIGKILL
    the grader (not its children) when waza-ci dies, even by SIGKILL. Linux only.

    The signal is tied to the thread that started the child; each grader is started and
    waited for by the same thread, which lives until the grader has ended. If waza-ci died
    between fork and prctl, the child sees a new parent and kills itself.
    """
    prctl = _PRCTL
    if prctl is None:
        return None

    def in_child() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent_pid:
            os.kill(os.getpid(), signal.SIGKILL)

    return in_child


def run_program(
    argv: Sequence[str],
    *,
    stdin: bytes,
    env: Mapping[str, str],
    cwd: str,
    timeout_s: float,
    output_cap_bytes: int = DEFAULT_OUTPUT_CAP_BYTES,
) -> ProgramOutcome:
    """Run `argv` (no shell) and collect its exit, capped output and timing.

    Safe to call from many threads at once: all state is local to the call.
    """
    started_at = time.monotonic()
    if cancelled():
        return _not_started(
            "not started: grading was cancelled",
            started_at,
            timeout_s,
            output_cap_bytes,
            cancelled=True,
        )
    try:
        executable = resolve_executable(argv, env, cwd)
        check_working_directory(cwd)
        process = _start(argv, executable, env=env, cwd=cwd)
    except CannotStart as reason:
        return _not_started(
            str(reason), started_at, timeout_s, output_cap_bytes, start_problem=reason.problem
        )
    stdout = OutputCapture(output_cap_bytes)
    stderr = OutputCapture(output_cap_bytes)
    supervisor = _Supervisor(
        process, stdin, stdout, stderr, deadline=started_at + max(timeout_s, 0.0)
    )
    exit_error = supervisor.run()
    kept_stdout, kept_stderr = stdout.kept(), stderr.kept()
    return ProgramOutcome(
        exit_error="signal: killed" if supervisor.timed_out else exit_error,
        started=True,
        timed_out=supervisor.timed_out,
        stdout=kept_stdout.text,
        stderr=kept_stderr.text,
        stdout_dropped_bytes=kept_stdout.dropped_bytes,
        stderr_dropped_bytes=kept_stderr.dropped_bytes,
        stdout_dropped_lines=kept_stdout.dropped_lines,
        stderr_dropped_lines=kept_stderr.dropped_lines,
        duration_ms=_elapsed_ms(started_at),
        timeout_s=timeout_s,
        output_cap_bytes=output_cap_bytes,
        cancelled=supervisor.cancelled,
    )


def _not_started(
    exit_error: str,
    started_at: float,
    timeout_s: float,
    output_cap_bytes: int,
    *,
    cancelled: bool = False,
    start_problem: StartProblem | None = None,
) -> ProgramOutcome:
    """The outcome of a program that never ran: no output, the reason as its exit error."""
    return ProgramOutcome(
        exit_error=exit_error,
        started=False,
        timed_out=False,
        stdout="",
        stderr="",
        stdout_dropped_bytes=0,
        stderr_dropped_bytes=0,
        duration_ms=_elapsed_ms(started_at),
        timeout_s=timeout_s,
        output_cap_bytes=output_cap_bytes,
        cancelled=cancelled,
        start_problem=start_problem,
    )


def _start(
    argv: Sequence[str], executable: str, *, env: Mapping[str, str], cwd: str
) -> subprocess.Popen[bytes]:
    # The group guard kills the group if waza-ci dies; only where it cannot run does the child
    # set a parent-death signal itself, which costs a full fork instead of a vfork.
    guarded = GUARD.start()
    try:
        process = subprocess.Popen(
            list(argv),
            executable=executable,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            cwd=cwd or None,
            start_new_session=True,  # its own process group, so the whole group can be killed
            preexec_fn=None if guarded else _die_with_parent(os.getpid()),  # noqa: PLW1509
            bufsize=0,
        )
    except OSError as error:
        problem = diagnose_start(executable, cwd, error.errno)  # read only now it failed
        raise CannotStart(f"fork/exec {executable}: {go_errno_text(error)}", problem) from error
    except ValueError as error:
        # An embedded NUL byte in an argument or variable: Go's exec fails with EINVAL.
        raise CannotStart(f"fork/exec {executable}: invalid argument") from error
    if guarded:
        GUARD.watch(process.pid)  # its pgid: the leader of a new session
    return process


def _elapsed_ms(started_at: float) -> int:
    return int((time.monotonic() - started_at) * 1000)


class _Supervisor:
    """Feeds stdin, drains both output pipes, enforces the deadline and cleans up the group.

    The leader's exit is observed without reaping it (waitid with WNOWAIT): until it is reaped
    its pid cannot be reused, so the process-group id we kill is still the program's.
    """

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        stdin: bytes,
        stdout: OutputCapture,
        stderr: OutputCapture,
        *,
        deadline: float,
    ) -> None:
        self._process = process
        self._pending_stdin = memoryview(stdin)
        self._deadline = deadline
        self._selector = _new_selector()
        self._pidfd: int | None = None
        self._stdin_pipe: IO[bytes] | None = process.stdin
        self._output_pipes = [(process.stdout, stdout), (process.stderr, stderr)]
        self._readers: dict[int, OutputCapture] = {}
        self._exit_error: str | None = None
        self._leader_exited = False
        self._drain_until = math.inf
        self.timed_out = False
        self.cancelled = False

    def run(self) -> str | None:
        """Supervise until the leader has exited and the pipes are closed (or abandoned).

        Returns Go's text for the leader's exit (None for exit 0).
        """
        try:
            self._register()
            while not self._finished():
                # Without a pidfd the leader is polled on every wake-up; with one, only once
                # it has turned readable (the leader exited) or nothing woke us (a deadline):
                # a waitid per pipe event would be a system call for nothing.
                look_at_leader = self._pidfd is None
                events = self._selector.select(self._select_timeout())
                for key, _events in events:
                    if key.fd == self._pidfd:
                        look_at_leader = True
                    else:
                        self._handle(key.fd)
                if cancelled() and not self.cancelled:
                    self._cancel()
                if look_at_leader or not events or self.cancelled or self.timed_out:
                    self._check_leader()
                if not self._leader_exited and time.monotonic() >= self._deadline:
                    self.timed_out = True
                    _kill_group(self._process.pid)
        finally:
            self._close()
        return self._exit_error

    def _register(self) -> None:
        for pipe, capture in self._output_pipes:
            if pipe is not None:
                os.set_blocking(pipe.fileno(), False)
                self._selector.register(pipe.fileno(), selectors.EVENT_READ)
                self._readers[pipe.fileno()] = capture
        self._start_feeding_stdin()
        self._pidfd = _open_pidfd(self._process.pid)
        if self._pidfd is not None:
            self._selector.register(self._pidfd, selectors.EVENT_READ)
        self._selector.register(wakeup_fd(), selectors.EVENT_READ)

    def _cancel(self) -> None:
        self.cancelled = True
        # The pipe stays readable from now on; stop watching it or select would spin.
        self._selector.unregister(wakeup_fd())
        _kill_group(self._process.pid)
        self._drain_until = time.monotonic()  # nothing more to wait for

    def _finished(self) -> bool:
        if not self._leader_exited:
            return False
        return not self._readers or time.monotonic() >= self._drain_until

    def _select_timeout(self) -> float:
        now = time.monotonic()
        if self._leader_exited:
            return max(self._drain_until - now, 0.0)
        # Once killed on timeout, the leader's exit is due any moment.
        wait = _POLL_S if self.timed_out else min(max(self._deadline - now, 0.0), _MAX_WAIT_S)
        return wait if self._pidfd is not None else min(wait, _POLL_S)

    def _handle(self, fd: int) -> None:
        if self._stdin_pipe is not None and fd == self._stdin_pipe.fileno():
            self._feed_stdin()
        elif fd in self._readers:
            self._read_from(fd)
        # Otherwise it is the pidfd: readable once the leader has exited; _check_leader sees it.

    def _start_feeding_stdin(self) -> None:
        if self._stdin_pipe is None:
            return
        if not self._pending_stdin:
            self._stop_feeding_stdin()
            return
        os.set_blocking(self._stdin_pipe.fileno(), False)
        # A fresh pipe takes 64 KiB at once on Linux: most agent outputs are written (and
        # stdin closed) here, without waiting for select to say the pipe is writable.
        self._feed_stdin()
        if self._stdin_pipe is not None:
            self._selector.register(self._stdin_pipe.fileno(), selectors.EVENT_WRITE)

    def _feed_stdin(self) -> None:
        assert self._stdin_pipe is not None
        try:
            written = os.write(self._stdin_pipe.fileno(), self._pending_stdin[:_WRITE_CHUNK])
        except BlockingIOError:
            return
        except BrokenPipeError:
            # The program closed stdin or exited without reading it all; that is its right.
            self._stop_feeding_stdin()
            return
        self._pending_stdin = self._pending_stdin[written:]
        if not self._pending_stdin:
            self._stop_feeding_stdin()

    def _stop_feeding_stdin(self) -> None:
        pipe, self._stdin_pipe = self._stdin_pipe, None
        if pipe is None:
            return
        if pipe.fileno() in self._selector.get_map():
            self._selector.unregister(pipe.fileno())
        pipe.close()  # EOF for the program

    def _read_from(self, fd: int) -> None:
        try:
            chunk = os.read(fd, _READ_CHUNK)
        except BlockingIOError:
            return
        if chunk:
            self._readers[fd].add(chunk)
            return
        self._selector.unregister(fd)
        del self._readers[fd]

    def _check_leader(self) -> None:
        if self._leader_exited:
            return
        leader_exit = _peek_exit(self._process)
        if leader_exit is None:
            return
        self._exit_error = leader_exit.exit_error
        self._leader_exited = True
        if self._pidfd is not None:
            # It stays readable from now on: watched any longer, it would wake every select
            # at once while the pipes drain.
            self._selector.unregister(self._pidfd)
        # Children left behind are killed; only an escaped process can keep the pipes open now.
        _kill_group(self._process.pid)
        self._stop_feeding_stdin()
        grace = 0.0 if self.cancelled else PIPE_GRACE_S
        self._drain_until = min(self._drain_until, time.monotonic() + grace)

    def _close(self) -> None:
        if not self._leader_exited:
            # Only on an unexpected error: never leave the program running behind us.
            _kill_group(self._process.pid)
        self._stop_feeding_stdin()
        self._selector.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
        for pipe, _capture in self._output_pipes:
            if pipe is not None:
                pipe.close()
        GUARD.forget(self._process.pid)  # while the unreaped leader still holds the pgid
        self._process.wait()  # reap the leader; it has exited or was just killed


@dataclass(frozen=True)
class _LeaderExit:
    exit_error: str | None


def _peek_exit(process: subprocess.Popen[bytes]) -> _LeaderExit | None:
    """How the leader exited (None while it runs), without reaping it."""
    try:
        result = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        # Reaped behind our back (e.g. SIGCHLD ignored); Popen knows what little is left.
        returncode = process.wait()
        if returncode < 0:
            return _LeaderExit(go_exit_text(os.CLD_KILLED, -returncode))
        return _LeaderExit(go_exit_text(os.CLD_EXITED, returncode))
    if result is None:
        return None
    return _LeaderExit(go_exit_text(result.si_code, result.si_status))


def _new_selector() -> selectors.BaseSelector:
    """poll(2) where there is one: a supervisor watches four or five descriptors for a few
    milliseconds, and poll needs no kernel object of its own, where epoll costs a descriptor
    and a system call for every descriptor registered and unregistered."""
    poll_selector = getattr(selectors, "PollSelector", None)
    if poll_selector is not None:
        selector: selectors.BaseSelector = poll_selector()
        return selector
    return selectors.DefaultSelector()


def _open_pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when `pid` exits, where the platform has them."""
    if not hasattr(os, "pidfd_open"):
        return None
    try:
        return os.pidfd_open(pid)
    except OSError:
        return None


def _kill_group(pgid: int) -> None:
    # Nothing left to kill, or a member we may not signal (it changed its user): both are fine.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
