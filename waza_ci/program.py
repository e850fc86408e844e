"""Run one program grader's argv and describe the result the way waza's `program` grader does.

This is the only module that starts processes. A program gets exactly the stdin bytes, the
environment and the working directory it is given, runs in a session of its own, and is killed
with its whole process group on timeout and after it exits. Output is read from both pipes at
once and kept up to a cap per stream, so neither a chatty grader nor a grandchild that holds the
pipes open can exhaust memory or hang the caller. Error texts are Go's, as waza prints them.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import selectors
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

DEFAULT_OUTPUT_CAP_BYTES = 1024 * 1024  # per stream

PIPE_GRACE_S = 1.0
"""How long to keep reading after the program exited and its group was killed.

Only a process that left the group (setsid) can still hold the pipes open by then; we stop
waiting for it rather than hang."""

_POLL_S = 0.05  # how often to look for the leader's exit where pidfds are unavailable
_MAX_WAIT_S = 60.0  # selectors reject an infinite timeout; waking once a minute costs nothing
_READ_CHUNK = 64 * 1024
_PR_SET_CHILD_SUBREAPER = 36
_ORPHAN_ROUNDS = 10
_WRITE_CHUNK = 64 * 1024

# Go's syscall signal names on Linux (what `signal: <name>` prints); others are "signal N".
_GO_SIGNAL_NAMES = {
    1: "hangup",
    2: "interrupt",
    3: "quit",
    4: "illegal instruction",
    5: "trace/breakpoint trap",
    6: "aborted",
    7: "bus error",
    8: "floating point exception",
    9: "killed",
    10: "user defined signal 1",
    11: "segmentation fault",
    12: "user defined signal 2",
    13: "broken pipe",
    14: "alarm clock",
    15: "terminated",
    16: "stack fault",
    17: "child exited",
    18: "continued",
    19: "stopped (signal)",
    20: "stopped",
    21: "stopped (tty input)",
    22: "stopped (tty output)",
    23: "urgent I/O condition",
    24: "CPU time limit exceeded",
    25: "file size limit exceeded",
    26: "virtual timer expired",
    27: "profiling timer expired",
    28: "window changed",
    29: "I/O possible",
    30: "power failure",
    31: "bad system call",
}

# The characters Go's strings.TrimSpace removes (unicode.IsSpace). Python's str.strip() would
# also remove U+001C..U+001F, which Go keeps.
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)

_GO_QUOTE_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    '"': '\\"',
    "\\": "\\\\",
}


@dataclass(frozen=True)
class ProgramOutcome:
    """What one program run produced; `exit_error` is None for exit 0, else Go's error text."""

    exit_error: str | None
    started: bool
    timed_out: bool
    stdout: str
    stderr: str
    stdout_dropped_bytes: int
    stderr_dropped_bytes: int
    duration_ms: int
    timeout_s: float | None = None
    """The limit the program ran under (shown in details when it was hit)."""
    output_cap_bytes: int = DEFAULT_OUTPUT_CAP_BYTES
    """How many bytes per stream were kept; more than that were counted and discarded."""
    cancelled: bool = False
    """Stopped (or never started) because `cancel_all` was called, e.g. on SIGTERM."""

    @property
    def passed(self) -> bool:
        return self.exit_error is None

    @property
    def is_grader_error(self) -> bool:
        """The program could not be judged at all: a failing exit is a grade, these are not."""
        return not self.started or self.timed_out or self.cancelled


class _Cancellation:
    """A process-wide "stop every program now": an event for checks, and a pipe that every
    supervisor's selector watches, so a blocked select wakes at once."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._write_fd, False)
        self.signum: int | None = None

    def cancel(self, signum: int | None = None) -> None:
        if self.signum is None:
            self.signum = signum
        self._event.set()
        with contextlib.suppress(BlockingIOError):
            os.write(self._write_fd, b"x")  # stays readable: every selector sees it

    @property
    def requested(self) -> bool:
        return self._event.is_set()


_cancellation = _Cancellation()


def cancel_all(signum: int | None = None) -> None:
    """Kill every running program's group and start no new one (safe in a signal handler)."""
    _cancellation.cancel(signum)


def cancellation_signal() -> int | None:
    """The signal that cancelled grading, or None when it was not cancelled (or by no signal)."""
    return _cancellation.signum


def cancelled() -> bool:
    return _cancellation.requested


@contextlib.contextmanager
def cancel_on_signals(signums: Sequence[int] = (signal.SIGTERM, signal.SIGINT)) -> Iterator[None]:
    """While the block runs (in the main thread), SIGTERM/SIGINT cancel all programs instead
    of killing us mid-way: their private context directories still get removed."""

    def handler(signum: int, _frame: object) -> None:
        cancel_all(signum)

    previous = {signum: signal.signal(signum, handler) for signum in signums}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def enable_orphan_adoption() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux PR_SET_CHILD_SUBREAPER),
    so a grader's child that left its process group (setsid) and outlived the grader becomes
    our child and `kill_orphans` can find it. In a container we are PID 1 and get them anyway."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def child_pids() -> frozenset[int]:
    """This process's children right now (to spare, later, those that were not graders')."""
    return frozenset(_child_pids())


def kill_orphans(spare: frozenset[int] = frozenset()) -> int:
    """SIGKILL and reap every child of this process, except those in `spare`, that is still
    running once every program has finished; returns how many there were.

    Call it only when no program of ours is running: any child then, other than the ones that
    existed before grading began (`spare`), is a grader's leftover.
    """
    killed = 0
    for _round in range(_ORPHAN_ROUNDS):  # killing one may hand us its own children
        children = [pid for pid in _child_pids() if pid not in spare]
        if not children:
            break
        for pid in children:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            killed += 1
    return killed


def _child_pids() -> list[int]:
    me = str(os.getpid())
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # The command name (field 2) may hold spaces and parentheses; fields after it do not.
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == me:
            children.append(int(entry.name))
    return children


class _CannotStart(Exception):
    """The program was not started; the message is Go's error text for the reason."""


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
        executable = _resolve_executable(argv, env, cwd)
        _check_working_directory(cwd)
        process = _start(argv, executable, env=env, cwd=cwd)
    except _CannotStart as reason:
        return _not_started(str(reason), started_at, timeout_s, output_cap_bytes)
    stdout = _Capture(output_cap_bytes)
    stderr = _Capture(output_cap_bytes)
    supervisor = _Supervisor(
        process, stdin, stdout, stderr, deadline=started_at + max(timeout_s, 0.0)
    )
    exit_error = supervisor.run()
    return ProgramOutcome(
        exit_error="signal: killed" if supervisor.timed_out else exit_error,
        started=True,
        timed_out=supervisor.timed_out,
        stdout=stdout.text(),
        stderr=stderr.text(),
        stdout_dropped_bytes=stdout.dropped,
        stderr_dropped_bytes=stderr.dropped,
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
    )


def describe_outcome(
    outcome: ProgramOutcome,
    *,
    command: str,
    args: Sequence[str] | None,
    workspace_dir: str,
) -> tuple[str, dict[str, Any]]:
    """The feedback and details waza's program grader reports for this outcome."""
    stdout = go_trim_space(outcome.stdout)
    stderr = go_trim_space(outcome.stderr)
    details: dict[str, Any] = {
        "command": command,
        "args": None if args is None else list(args),
        "stdout": stdout,
        "stderr": stderr,
        "workspace_dir": workspace_dir,
    }
    if outcome.passed:
        feedback = stdout or "Program exited successfully"
    else:
        feedback = f"Program exited with error: {outcome.exit_error}"
        if stderr:
            feedback += f"; stderr: {stderr}"
        details["exit_error"] = outcome.exit_error
    return feedback, details


def outcome_notes(outcome: ProgramOutcome) -> tuple[str, ...]:
    """Facts about the run that waza's `details` has no key for: they go to waza-ci's own
    report, so the regraded results file keeps exactly waza's keys."""
    notes: list[str] = []
    if outcome.timed_out and outcome.timeout_s is not None:
        # Without this, "signal: killed" reads like something else killed the grader.
        notes.append(f"timed out after {_plain_number(outcome.timeout_s)} s")
    for stream, dropped in (
        ("stdout", outcome.stdout_dropped_bytes),
        ("stderr", outcome.stderr_dropped_bytes),
    ):
        if dropped:
            notes.append(
                f"{stream}: kept the first {outcome.output_cap_bytes} bytes; "
                f"{dropped} more were discarded"
            )
    return tuple(notes)


def go_trim_space(text: str) -> str:
    """`strings.TrimSpace`: waza trims program output with Go's notion of white space."""
    return text.strip(_GO_SPACE)


def go_exit_text(si_code: int, si_status: int) -> str | None:
    """Go's `ProcessState.String()` for a child's exit, from waitid's code and status.

    None for a clean exit 0, which Go does not report as an error at all.
    """
    if si_code == os.CLD_EXITED:
        return None if si_status == 0 else f"exit status {si_status}"
    text = f"signal: {_GO_SIGNAL_NAMES.get(si_status, f'signal {si_status}')}"
    if si_code == os.CLD_DUMPED:
        text += " (core dumped)"
    return text


def go_quote(text: str) -> str:
    """`strconv.Quote`, which Go uses for the name in `exec: "NAME": ...`."""
    parts = ['"']
    for char in text:
        code = ord(char)
        if char in _GO_QUOTE_ESCAPES:
            parts.append(_GO_QUOTE_ESCAPES[char])
        elif 0xDC80 <= code <= 0xDCFF:
            # A byte that was not UTF-8 (decoded with surrogateescape); Go shows the raw byte.
            parts.append(f"\\x{code - 0xDC00:02x}")
        elif char.isprintable():
            parts.append(char)
        elif code < 0x20 or code == 0x7F:
            parts.append(f"\\x{code:02x}")
        elif code < 0x10000:
            parts.append(f"\\u{code:04x}")
        else:
            parts.append(f"\\U{code:08x}")
    parts.append('"')
    return "".join(parts)


def _resolve_executable(argv: Sequence[str], env: Mapping[str, str], cwd: str) -> str:
    """The file to execute for argv[0], looked up the way Go's exec.Command does."""
    if not argv or argv[0] == "":
        raise _CannotStart("exec: no command")
    command = argv[0]
    if "/" in command:
        return command
    found = _find_on_path(command, env.get("PATH", ""), cwd)
    if found is None:
        raise _CannotStart(f"exec: {go_quote(command)}: executable file not found in $PATH")
    return found


def _find_on_path(name: str, search_path: str, cwd: str) -> str | None:
    """The first executable `name` along `search_path` (the child's PATH), as Go finds it.

    Go refuses a match in an empty, "." or other relative entry (its ErrDot) rather than run a
    program found relative to the current directory, and so do we: such a match is an error,
    not a reason to look further. A missing PATH searches nothing (no default path).
    """
    if not search_path:
        return None
    for directory in search_path.split(os.pathsep):
        if not directory.startswith("/"):
            if _is_executable_file(os.path.join(cwd or ".", directory or ".", name)):
                raise _CannotStart(
                    f"exec: {go_quote(name)}: cannot run executable found relative to "
                    "current directory"
                )
            continue
        # Go cleans the joined path, and that spelling shows in later fork/exec errors.
        candidate = os.path.normpath(f"{directory}/{name}")
        if _is_executable_file(candidate):
            return candidate
    return None


def _is_executable_file(path: str) -> bool:
    try:
        mode = Path(path).stat().st_mode
    except OSError:
        return False
    if stat.S_ISDIR(mode):
        return False
    return os.access(path, os.X_OK, effective_ids=os.access in os.supports_effective_ids)


def _check_working_directory(cwd: str) -> None:
    # Go stats the directory before forking and reports that failure as a chdir error.
    if not cwd:
        return
    try:
        Path(cwd).stat()
    except OSError as error:
        raise _CannotStart(f"chdir {cwd}: {_go_errno_text(error)}") from error


def _start(
    argv: Sequence[str], executable: str, *, env: Mapping[str, str], cwd: str
) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            list(argv),
            executable=executable,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            cwd=cwd or None,
            start_new_session=True,  # its own process group, so the whole group can be killed
            bufsize=0,
        )
    except OSError as error:
        raise _CannotStart(f"fork/exec {executable}: {_go_errno_text(error)}") from error
    except ValueError as error:
        # An embedded NUL byte in an argument or variable: Go's exec fails with EINVAL.
        raise _CannotStart(f"fork/exec {executable}: invalid argument") from error


def _go_errno_text(error: OSError) -> str:
    """Go's errno text: the C library's message with its first letter lowered."""
    if error.errno is None:
        return str(error)
    message = os.strerror(error.errno)
    if len(message) > 1 and message[0].isupper() and message[1].islower():
        message = message[0].lower() + message[1:]
    return message


def _elapsed_ms(started_at: float) -> int:
    return int((time.monotonic() - started_at) * 1000)


def _plain_number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


class _Capture:
    """The first `cap` bytes of one output stream; later bytes are only counted."""

    def __init__(self, cap: int) -> None:
        self._cap = max(cap, 0)
        self.kept = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self._cap - len(self.kept)
        if room >= len(chunk):
            self.kept += chunk
            return
        if room > 0:
            self.kept += chunk[:room]
        self.dropped += len(chunk) - max(room, 0)

    def text(self) -> str:
        return self.kept.decode("utf-8", errors="replace")


class _Supervisor:
    """Feeds stdin, drains both output pipes, enforces the deadline and cleans up the group.

    The leader's exit is observed without reaping it (waitid with WNOWAIT): until it is reaped
    its pid cannot be reused, so the process-group id we kill is still the program's.
    """

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        stdin: bytes,
        stdout: _Capture,
        stderr: _Capture,
        *,
        deadline: float,
    ) -> None:
        self._process = process
        self._pending_stdin = memoryview(stdin)
        self._deadline = deadline
        self._selector = selectors.DefaultSelector()
        self._pidfd: int | None = None
        self._stdin_pipe: IO[bytes] | None = process.stdin
        self._output_pipes = [(process.stdout, stdout), (process.stderr, stderr)]
        self._readers: dict[int, _Capture] = {}
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
                for key, _events in self._selector.select(self._select_timeout()):
                    self._handle(key.fd)
                if cancelled() and not self.cancelled:
                    self._cancel()
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
        self._selector.register(_cancellation.read_fd, selectors.EVENT_READ)

    def _cancel(self) -> None:
        self.cancelled = True
        # The pipe stays readable from now on; stop watching it or select would spin.
        self._selector.unregister(_cancellation.read_fd)
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
