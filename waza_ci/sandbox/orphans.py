"""Escaped grader children: adopt them as this process's orphans, then kill and reap them.

A grader's child that leaves its process group (setsid) escapes the group kill in program.py.
With PR_SET_CHILD_SUBREAPER it becomes our child when the grader exits, and once no program is
running every child of ours that was not there before grading is such a leftover.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal

_PR_SET_CHILD_SUBREAPER = 36
_ORPHAN_ROUNDS = 10


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
    if not _has_children():
        return frozenset()  # one system call, where listing them reads every process's stat
    return frozenset(_child_pids())


def _has_children() -> bool:
    """False only when this process has no child at all (waitid's ECHILD); reaps nothing."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


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
    # Every process's stat file is read (twice per grading): bytes and plain os calls, which
    # cost a third less than pathlib's objects and decoding on a machine with many processes.
    me = str(os.getpid()).encode()
    children = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as status:
                line = status.read()
            # The command name (field 2) may hold spaces and parentheses; fields after it do not.
            fields = line.rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and fields[1] == me:
            children.append(int(name))
    return children
