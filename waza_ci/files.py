"""Reading the user's files safely: regular files only, read with a size cap, never a hang.

Every input (eval spec, task files, `.waza.yaml`, results files, the event file) is opened here.
A path that is a folder, a FIFO, a socket, a device (`/dev/zero`, `/dev/stdin` on a terminal or
pipe) or a symlink loop is refused with one InputError naming it, before a byte is read: opening
uses O_NONBLOCK, so a FIFO with no writer cannot block, and the type is checked on the open file
descriptor, so the file cannot be swapped between the check and the read. Reads stop one byte
past the cap, so a huge or endless file costs at most the cap in memory.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from waza_ci.errors import WINDOWS_PATH_HINT, InputError, Location, windows_path

MIB = 1024 * 1024
# YAML specs are hand-written: 16 MiB is far beyond any real one, and bounds the parser's work.
MAX_SPEC_BYTES = 16 * MIB
# waza results files hold transcripts and can be large; see docs/security.md.
MAX_RESULTS_BYTES = 512 * MIB
RESULTS_LIMIT_HINT = "raise it with --max-results-mib (action input `max-results-mib`)"
# GitHub caps webhook payloads at 25 MB.
MAX_EVENT_BYTES = 64 * MIB

_READ_CHUNK = MIB


def describe_kind(mode: int) -> str:
    """What a non-regular file is, in words for an error message."""
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def read_regular_file(path: Path, *, what: str, max_bytes: int, hint: str = "") -> bytes:
    """The bytes of the regular file at `path` (symlinks followed), at most `max_bytes`.

    Raises InputError naming `what` and the path for a missing, unreadable, non-regular or
    oversized file (`hint` says how to raise the limit).
    """
    with open_regular_file(path, what=what, max_bytes=max_bytes, hint=hint) as stream:
        # Capped as it reads too: a file's size can grow after the check, or read as 0 (/proc).
        return _read_capped(stream.fileno(), path, what, max_bytes, hint)


def open_regular_file(path: Path, *, what: str, max_bytes: int, hint: str = "") -> BinaryIO:
    """The regular file at `path` opened for reading, its size within `max_bytes`: for readers
    that stream it a piece at a time (a results file) instead of reading it whole.

    Raises InputError as `read_regular_file` does; the caller closes the stream.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as err:
        raise InputError(_open_problem(path, what, err), Location(str(path))) from None
    try:
        status = os.fstat(descriptor)
        _require_regular(status.st_mode, path, what)
        if status.st_size > max_bytes:
            raise _too_large(path, what, max_bytes, hint)
    except BaseException:
        os.close(descriptor)
        raise
    return os.fdopen(descriptor, "rb")


def read_regular_text(path: Path, *, what: str, max_bytes: int, hint: str = "") -> str:
    """`read_regular_file` decoded as UTF-8; invalid UTF-8 is an InputError with its offset."""
    data = read_regular_file(path, what=what, max_bytes=max_bytes, hint=hint)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(
            f"{what} is not valid UTF-8 (byte {err.start})", Location(str(path))
        ) from None


def _read_capped(descriptor: int, path: Path, what: str, max_bytes: int, hint: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            chunk = os.read(descriptor, min(_READ_CHUNK, max_bytes + 1 - size))
        except OSError as err:
            raise InputError(
                f"cannot read {what}: {err.strerror or err}", Location(str(path))
            ) from None
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            raise _too_large(path, what, max_bytes, hint)


def _too_large(path: Path, what: str, max_bytes: int, hint: str) -> InputError:
    return InputError(
        f"{what} is larger than the limit of {max_bytes:,} bytes" + (f"; {hint}" if hint else ""),
        Location(str(path)),
    )


def _require_regular(mode: int, path: Path, what: str) -> None:
    if not stat.S_ISREG(mode):
        raise InputError(
            f"{what} must be a regular file, but this is {describe_kind(mode)}",
            Location(str(path)),
        )


def _open_problem(path: Path, what: str, err: OSError) -> str:
    if err.errno == errno.ENXIO:  # a socket cannot be opened at all: say what it is
        try:
            _require_regular(os.stat(path).st_mode, path, what)
        except InputError as refused:
            return refused.message
        except OSError:
            pass
    if err.errno == errno.ENOENT:
        return f"{what} not found" + (f"; {WINDOWS_PATH_HINT}" if windows_path(str(path)) else "")
    if err.errno == errno.ELOOP:
        return f"cannot read {what}: a symlink loop"
    return f"cannot read {what}: {err.strerror or err}"


def identity(path: Path) -> Path:
    """`path` resolved, for telling whether two paths name one file; a symlink loop or an
    unreadable folder gives the absolute path instead of an error (reading it reports that)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: Python 3.12's symlink-loop report
        return path.absolute()


def check_output_target(path: Path, option: str) -> None:
    """Refuse an output path that exists but is not a regular file (a FIFO, a device such as
    /dev/null, a socket) or is a symlink loop: writing would hang, or rename over a device.
    A missing path is fine; folders are the caller's to judge."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if path.is_symlink():
            raise InputError(f"{option} {str(path)!r} is a dangling symlink") from None
        return
    except OSError as err:
        reason = "a symlink loop" if err.errno == errno.ELOOP else (err.strerror or str(err))
        raise InputError(f"{option} {str(path)!r}: {reason}") from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError(f"{option} {str(path)!r} is {describe_kind(mode)}, not a regular file")
