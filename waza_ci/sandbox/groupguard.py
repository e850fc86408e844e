"""The group guard: a process that kills every running grader's process group if waza-ci
dies, even by SIGKILL (the OOM killer, a cancelled `run:` step), so no grader outlives it.

Why not the parent-death signal (PR_SET_PDEATHSIG) on each grader: setting it needs code in the
child between fork and exec (a `preexec_fn`), and that makes Python fork the whole interpreter
instead of using vfork, the largest single cost of a trivial grader on a process holding a
large results file (benchmarks/README.md). The group guard costs one small interpreter start
per waza-ci process and a pipe write per grader, and it kills the grader's whole process
group, grandchildren included, which the parent-death signal did not.

How: the group guard reads "+PGID" and "-PGID" lines from a pipe whose only writer is waza-ci
(a read every READ_EVERY_S, not a wake-up per line). When that pipe reaches end of file,
waza-ci has exited (normally: nothing is left to kill) or died (the groups still listed are
killed). It lives in a session of its own and ignores SIGINT, SIGTERM and SIGHUP, so a signal
meant for waza-ci's process group or terminal does not take it.
Where it cannot start, program.py falls back to the parent-death signal.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
import threading

READ_EVERY_S = 0.05
"""The group guard reads its pipe at most this often. A reader blocked on the pipe is woken by
every line, two per grader: on a machine whose cores the graders keep busy, each wake-up takes
a core from a grader or from waza-ci. Sleeping between reads turns those into one read per
interval. Nothing is lost by it: lines wait in the pipe in order, and end of file (waza-ci
gone) is seen at most this late, after every line before it."""

# A 1 MiB pipe: at most READ_EVERY_S of lines wait in it (two of about 10 bytes per grader), so
# the default 64 KiB already holds thousands of graders' worth; the larger size only makes a
# group guard that is slow to be scheduled never block a grading thread.
_PIPE_SIZE = 1 << 20


_GUARD_SCRIPT = f"""\
import os, signal, time
for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(number, signal.SIG_IGN)
running = set()
pending = b""
while True:
    chunk = os.read(0, 1 << 16)
    if not chunk:
        break
    *lines, pending = (pending + chunk).split(b"\\n")
    for line in lines:
        try:
            pgid = int(line[1:])
        except ValueError:
            continue
        if line.startswith(b"+"):
            running.add(pgid)
        else:
            running.discard(pgid)
    time.sleep({READ_EVERY_S})
for pgid in running:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
"""


class GroupGuard:
    """The group guard, started at most once per process and shared by every grading thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._fd: int | None = None
        self._unavailable = False

    def start(self) -> bool:
        """Start the group guard unless it runs; False when it cannot (no interpreter to run it)."""
        with self._lock:
            if self._fd is not None:
                return True
            if self._unavailable or not sys.executable:
                return False
            try:
                self._process = subprocess.Popen(
                    [sys.executable, "-I", "-S", "-c", _GUARD_SCRIPT],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env={},  # it needs nothing, and is told nothing
                    start_new_session=True,
                )
            except (OSError, ValueError):
                self._unavailable = True
                return False
            assert self._process.stdin is not None
            # Kept as a raw descriptor: one write(2) per line, atomic (under PIPE_BUF) across
            # threads. It is close-on-exec, so no grader inherits it and delays end of file.
            self._fd = self._process.stdin.fileno()
            with contextlib.suppress(OSError):  # above /proc/sys/fs/pipe-max-size: keep 64 KiB
                fcntl.fcntl(self._fd, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
            return True

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def watch(self, pgid: int) -> None:
        """From now until `forget`, `pgid` is killed if waza-ci dies."""
        self._send(b"+%d\n" % pgid)

    def forget(self, pgid: int) -> None:
        """Call before reaping the group's leader, while its pid cannot yet be reused."""
        self._send(b"-%d\n" % pgid)

    def _send(self, line: bytes) -> None:
        fd = self._fd
        if fd is None:
            return
        try:
            os.write(fd, line)
        except OSError:
            # The group guard is gone (killed from outside); grading goes on without it, as it
            # would on a platform that has none.
            with self._lock:
                if self._fd == fd:
                    self._fd = None
                    self._unavailable = True


GUARD = GroupGuard()
"""The process's one group guard."""
