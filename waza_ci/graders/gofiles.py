"""Go's `os.ReadFile` for the graders that read a file waza reads (a schema file, a snapshot,
a SKILL.md, a prompt file), with Go's error texts: `open <path>: …` when it cannot be opened,
`read <path>: …` when it cannot be read (a directory opens and then fails to read)."""

from __future__ import annotations

import errno
import os

from waza_ci.sandbox.goexec import go_errno_text

_CHUNK_BYTES = 1 << 20


class GoFileError(Exception):
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
