"""The private grading-context directory: create it with context.json, verify it, remove it.

This is the only module that creates or removes that directory. It holds transcript data, so it
is made 0700 with a 0600 file whatever the umask, and it is removed only once it is known to
still be ours: if the directory or the file was moved away, deleted or replaced, nothing is
deleted (the replacement is someone else's) and the caller gets an error naming the path,
because the data may now live elsewhere. Removal failures are errors too, never silent.

Trust model (from waza's contract): the grader and other same-user processes are trusted; a
same-user replacement racing between our check and our delete is out of scope.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass

CONTEXT_FILE_NAME = "context.json"
DIR_PREFIX = "waza-grading-"

_DIRECTORY_MODE = 0o700
_FILE_MODE = 0o600
_NAME_ATTEMPTS = 100
_OPEN_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_CREATE_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_DATA_WARNING = "nothing was removed, and transcript data may remain elsewhere"


class ContextFileError(Exception):
    """The grading-context file could not be written, verified or removed.

    The message names the path concerned and, where it matters, what happened to it.
    """


@dataclass(frozen=True)
class FileIdentity:
    """Which file system entry a path named when we made it: device and inode."""

    device: int
    inode: int

    @classmethod
    def of(cls, status: os.stat_result) -> FileIdentity:
        return cls(status.st_dev, status.st_ino)


@dataclass(frozen=True)
class PrivateContextFile:
    """A private directory holding context.json, and the identities both had when created.

    Both entries stay open until `verify_and_remove`: while we hold them, their inodes cannot be
    freed and handed to a replacement, so "same device and inode" really means "same entry".
    """

    directory: str
    path: str
    directory_identity: FileIdentity
    file_identity: FileIdentity
    _held: tuple[int, int] = (-1, -1)

    def release(self) -> None:
        """Close the descriptors that pin both inodes, once: a second call closes nothing (a
        closed number may already belong to another thread's pipe)."""
        held = self._held
        object.__setattr__(self, "_held", (-1, -1))  # frozen for callers, not for this
        for fd in held:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)


def create_context_file(payload: bytes, parent_dir: str) -> PrivateContextFile:
    """Make a new private directory under `parent_dir` holding `payload` as context.json.

    On any failure, whatever was created is removed before ContextFileError is raised.
    """
    parent = os.path.abspath(parent_dir)
    parent_fd = _open_parent(parent)
    try:
        name = _make_private_directory(parent_fd, parent)
        directory = os.path.join(parent, name)
        path = os.path.join(directory, CONTEXT_FILE_NAME)
        try:
            directory_identity, file_identity, held = _fill_directory(parent_fd, name, payload)
        except OSError as error:
            problem = f"cannot write grading context file {path}: {_reason(error)}"
            raise ContextFileError(problem + _undo(parent_fd, name, directory)) from error
    finally:
        os.close(parent_fd)
    return PrivateContextFile(directory, path, directory_identity, file_identity, held)


def verify_and_remove(context: PrivateContextFile) -> None:
    """Delete the directory and everything in it, once both entries are proven to be ours.

    Call once, after the program has exited. Raises ContextFileError, deleting nothing, when the
    directory or context.json was moved away, deleted or replaced; raises it too when removal
    fails part way.
    """
    try:
        _check_directory(context)
        _check_file(context)
        _remove_verified(context)
    finally:
        # Closed here, on the grading thread, as soon as both entries are gone: closing the
        # last descriptor is when the file system frees the two inodes, and ext4 without a
        # journal will not hand out an inode freed in an earlier second again for 60 to 300 s;
        # every later allocation scans past those. Freed at once, the next grader's directory
        # and file reuse them. Not in batches on a thread of their own: that leaves freed
        # inodes piling up across seconds ("Inodes freed late", benchmarks/README.md).
        context.release()


def _new_directory_name() -> str:
    return DIR_PREFIX + secrets.token_hex(8)


def _open_parent(parent: str) -> int:
    try:
        return os.open(parent, _OPEN_DIRECTORY)
    except OSError as error:
        raise ContextFileError(
            f"cannot create grading context directory in {parent}: {_reason(error)}"
        ) from error


def _make_private_directory(parent_fd: int, parent: str) -> str:
    """mkdir a fresh, unpredictable name; an existing entry of that name is never reused."""
    for _attempt in range(_NAME_ATTEMPTS):
        name = _new_directory_name()
        try:
            os.mkdir(name, _DIRECTORY_MODE, dir_fd=parent_fd)
        except FileExistsError:
            continue
        except OSError as error:
            raise ContextFileError(
                f"cannot create grading context directory {os.path.join(parent, name)}: "
                f"{_reason(error)}"
            ) from error
        return name
    raise ContextFileError(
        f"cannot create grading context directory in {parent}: "
        f"{_NAME_ATTEMPTS} fresh names were all taken"
    )


def _fill_directory(
    parent_fd: int, name: str, payload: bytes
) -> tuple[FileIdentity, FileIdentity, tuple[int, int]]:
    """Give the directory and context.json their exact modes, write the file exclusively;
    return both identities and the two open descriptors that keep them pinned."""
    directory_fd = _open_directory(parent_fd, name)
    try:
        # mkdir and open apply the umask, which can only take bits away from 0700 and 0600:
        # neither entry is ever more open than the contract allows, and a mode the umask
        # narrowed is set exactly (fchmod ignores the umask). The fstat that proves the mode
        # is the one that records the identity, so the usual umask costs no system call.
        directory_status = _with_mode(directory_fd, _DIRECTORY_MODE)
        file_fd = os.open(CONTEXT_FILE_NAME, _CREATE_FILE, _FILE_MODE, dir_fd=directory_fd)
        try:
            file_status = _with_mode(file_fd, _FILE_MODE)
            _write_all(file_fd, payload)
        except BaseException:
            os.close(file_fd)
            raise
        held = (directory_fd, file_fd)
        return FileIdentity.of(directory_status), FileIdentity.of(file_status), held
    except BaseException:
        os.close(directory_fd)
        raise


def _open_directory(parent_fd: int, name: str) -> int:
    """The fresh directory, opened; the name is unpredictable and O_NOFOLLOW refuses a
    symlink. Under a umask such as 0o777 mkdir gave mode 000, which only root can open: then
    the mode is set by name first (chmod ignores the umask) and the open tried again."""
    try:
        return os.open(name, _OPEN_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent_fd)
    except PermissionError:
        os.chmod(name, _DIRECTORY_MODE, dir_fd=parent_fd)
        return os.open(name, _OPEN_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent_fd)


def _with_mode(fd: int, mode: int) -> os.stat_result:
    """The entry's status once its permission bits are exactly `mode`."""
    status = os.fstat(fd)
    if stat.S_IMODE(status.st_mode) != mode:
        os.fchmod(fd, mode)
        status = os.fstat(fd)
    return status


def _write_all(fd: int, payload: bytes) -> None:
    remaining = memoryview(payload)
    while remaining:
        written = os.write(fd, remaining)
        remaining = remaining[written:]


def _undo(parent_fd: int, name: str, directory: str) -> str:
    """Remove a half-made directory; a note for the error message if even that fails."""
    try:
        shutil.rmtree(name, dir_fd=parent_fd)
    except OSError as error:
        return f"; could not remove {directory} either: {_reason(error)}"
    return ""


def _check_directory(context: PrivateContextFile) -> None:
    try:
        status = os.lstat(context.directory)
    except (FileNotFoundError, NotADirectoryError):
        raise ContextFileError(
            f"grading context directory {context.directory} was moved away or deleted; "
            f"{_DATA_WARNING}"
        ) from None
    except OSError as error:
        raise ContextFileError(
            f"cannot check grading context directory {context.directory}: {_reason(error)}; "
            f"{_DATA_WARNING}"
        ) from error
    if not _is_entry(status, context.directory_identity, stat.S_ISDIR):
        raise ContextFileError(
            f"grading context directory {context.directory} was replaced by "
            f"{_kind(status, 'directory')}; {_DATA_WARNING}"
        )


def _check_file(context: PrivateContextFile) -> None:
    try:
        status = os.lstat(context.path)
    except FileNotFoundError:
        raise ContextFileError(
            f"grading context file {context.path} was moved away or deleted; {_DATA_WARNING}"
        ) from None
    except OSError as error:
        raise ContextFileError(
            f"cannot check grading context file {context.path}: {_reason(error)}; {_DATA_WARNING}"
        ) from error
    if not _is_entry(status, context.file_identity, stat.S_ISREG):
        raise ContextFileError(
            f"grading context file {context.path} was replaced by {_kind(status, 'file')}; "
            f"{_DATA_WARNING}"
        )


def _is_entry(
    status: os.stat_result, identity: FileIdentity, is_kind: Callable[[int], bool]
) -> bool:
    # lstat, so a symlink (even to the original) is never mistaken for the entry itself.
    return is_kind(status.st_mode) and FileIdentity.of(status) == identity


def _kind(status: os.stat_result, ours: str) -> str:
    if stat.S_ISLNK(status.st_mode):
        return "a symbolic link"
    if stat.S_ISDIR(status.st_mode):
        return "another directory" if ours == "directory" else "a directory"
    if stat.S_ISREG(status.st_mode):
        return "another file" if ours == "file" else "a file"
    return "another kind of entry"


def _remove_verified(context: PrivateContextFile) -> None:
    """Two system calls when the grader left the directory as it found it (the usual case);
    rmtree, and its error report, for anything else it left there."""
    try:
        os.unlink(context.path)
        os.rmdir(context.directory)
    except OSError:
        _remove_tree(context.directory)


def _remove_tree(directory: str) -> None:
    """rmtree works through directory descriptors and never follows symlinks inside the tree."""
    failures: list[tuple[str, BaseException]] = []

    def note(_function: object, path: str, error: BaseException) -> None:
        failures.append((path, error))  # keep going: remove as much as possible

    if sys.version_info >= (3, 12):
        shutil.rmtree(directory, onexc=note)
    else:
        shutil.rmtree(directory, onerror=lambda function, path, info: note(function, path, info[1]))
    if failures:
        path, error = failures[0]
        raise ContextFileError(
            f"cannot remove grading context directory {directory}: "
            f"could not remove {path}: {_reason(error)}; transcript data may remain there"
        )


def _reason(error: BaseException) -> str:
    # "[Errno 28] No space left on device", without the relative name Python would append.
    if isinstance(error, OSError) and error.errno is not None:
        return f"[Errno {error.errno}] {error.strerror}"
    return str(error)
