"""Go's os and syscall texts, as waza's verdicts carry them: an errno's text
(`syscall.Errno.Error`), a child's exit (`ProcessState.String`), and `os.ReadFile` for the
graders that read a file waza reads (a schema file, a snapshot, a SKILL.md, a prompt file):
`open <path>: …` when it cannot be opened, `read <path>: …` when it cannot be read (a
directory opens and then fails to read)."""

from __future__ import annotations

import errno
import os

from waza_ci.golang.errors import GoError

_CHUNK_BYTES = 1 << 20


class GoFileError(GoError):
    """The Go error of a read; `str()` is Go's whole text."""

    def __init__(self, text: str, *, not_exist: bool) -> None:
        super().__init__(text)
        self.text = text
        self.not_exist = not_exist
        """Go's `os.IsNotExist(err)`."""


def go_read_file(path: str, *, shown: str | None = None) -> bytes:
    """The file's bytes; raises GoFileError naming `shown` (default: `path`). Opened without
    blocking, so a FIFO with no writer reads as empty rather than hanging the grading."""
    name = path if shown is None else shown
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as err:
        code = err.errno or errno.EIO
        raise GoFileError(
            f"open {name}: {go_errno_text(code)}", not_exist=code == errno.ENOENT
        ) from None
    except ValueError:  # a NUL byte in the path: the kernel's EINVAL to Go
        raise GoFileError(f"open {name}: {go_errno_text(errno.EINVAL)}", not_exist=False) from None
    try:
        chunks: list[bytes] = []
        while chunk := os.read(fd, _CHUNK_BYTES):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as err:
        code = err.errno or errno.EIO
        raise GoFileError(f"read {name}: {go_errno_text(code)}", not_exist=False) from None
    finally:
        os.close(fd)


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


def go_errno_text(error: OSError | int) -> str:
    """Go's text of a Unix errno (`syscall.Errno.Error()`): the C library's message with its
    first letter lowered, unless the first word is an acronym (`RFS specific error`). An
    OSError without an errno gives its own text."""
    code = error if isinstance(error, int) else error.errno
    if code is None:
        return str(error)
    message = os.strerror(code)
    if len(message) > 1 and message[0].isupper() and message[1].islower():
        message = message[0].lower() + message[1:]
    return message
