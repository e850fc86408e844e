"""Why a grader's program could not start, when the program's own file says so.

The kernel's answer to a failed exec is one errno, and Go's text for it misleads on the usual
mistakes: a script checked out with Windows line endings has the interpreter `/bin/sh\\r`, which
does not exist, so exec says `no such file or directory` of a script that is right there; a
script without a `#!` line is an `exec format error`; a script on a file system mounted
`noexec` is `permission denied` though its mode is executable. Read after the failure (never
before a start that works), the script's first line tells these apart. The error text itself
stays Go's, as waza writes it; the problem found here only chooses the report's hint.
"""

from __future__ import annotations

import errno
import os
import stat
from enum import StrEnum

_HEAD_BYTES = 256
"""Enough of the file for its `#!` line (Linux reads at most 256 bytes of it too)."""
_ELF = b"\x7fELF"


class StartProblem(StrEnum):
    """What the program's file shows about a failed start."""

    CRLF_LINE_ENDINGS = "crlf-line-endings"
    """The `#!` line ends in a carriage return: the interpreter's name ends in `\\r`."""
    NO_INTERPRETER_LINE = "no-interpreter-line"
    """A text file without a `#!` line: exec cannot tell what should run it."""
    MISSING_INTERPRETER = "missing-interpreter"
    """The `#!` line names an interpreter that is not there."""
    NOEXEC_MOUNT = "noexec-mount"
    """An executable file on a file system mounted `noexec`."""


def diagnose_start(executable: str, cwd: str, error_number: int | None) -> StartProblem | None:
    """What the file at `executable` (relative to `cwd`) shows about exec's `error_number`;
    None when it shows nothing more than the errno says (or cannot be read)."""
    path = executable if os.path.isabs(executable) else os.path.join(cwd or ".", executable)
    if error_number == errno.EACCES:
        return _noexec(path)
    if error_number not in (errno.ENOENT, errno.ENOEXEC):
        return None
    head = _head(path)
    if head is None:
        return None  # really missing (or unreadable): the errno says it all
    if head.startswith(b"#!"):
        return _interpreter_line(head[2:].split(b"\n", 1)[0], error_number)
    text = not head.startswith(_ELF) and b"\0" not in head
    return StartProblem.NO_INTERPRETER_LINE if text and error_number == errno.ENOEXEC else None


def _interpreter_line(line: bytes, error_number: int) -> StartProblem | None:
    """The `#!` line's text (after `#!`): a carriage return ends it, or it names nothing there."""
    if line.endswith(b"\r"):
        return StartProblem.CRLF_LINE_ENDINGS
    words = line.split()
    if error_number == errno.ENOENT and words and not os.path.exists(words[0]):
        return StartProblem.MISSING_INTERPRETER
    return None


def _head(path: str) -> bytes | None:
    """The first bytes of the regular file at `path`; None for anything else (a FIFO is never
    opened for long: O_NONBLOCK, and only a regular file is read)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        return os.read(descriptor, _HEAD_BYTES)
    except OSError:
        return None
    finally:
        os.close(descriptor)


def _noexec(path: str) -> StartProblem | None:
    """Permission denied though the file's mode lets it run: its file system is `noexec`."""
    try:
        mode = os.stat(path).st_mode
        mounted_noexec = bool(os.statvfs(path).f_flag & os.ST_NOEXEC)
    except OSError:
        return None
    runnable = stat.S_ISREG(mode) and bool(mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))
    return StartProblem.NOEXEC_MOUNT if runnable and mounted_noexec else None
