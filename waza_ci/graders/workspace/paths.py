"""The workspace as waza's `file` and `diff` graders see it: the lexical check of every
configured path, and reads through a rooted handle (Go's `os.Root`).

Before touching the workspace, waza checks each configured path against the workspace made
absolute (against the process cwd — here the setup's working directory): an absolute path, or
one that cleans to the workspace itself or outside it, is a Go error that aborts grading.
Symlinks play no part in that check.

Reads then go through `os.Root`: `..` that would climb above the root, and symlinks whose target
is absolute or leads out of it, are refused with `path escapes from parent`; symlinks that stay
inside are followed (at most 8). `RootedWorkspace` walks each path the same way with
`openat(2)`-style calls relative to directory descriptors, so a symlink is never followed out
of the workspace, and errors read as Go prints them (`statat <path>: …`, `openat <path>: …`,
`read <root>/<path>: …`). Deliberate difference: files are opened non-blocking, so a FIFO in the
workspace reads as empty instead of hanging the grading as it would hang waza.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from waza_ci.golang.errors import GoError
from waza_ci.golang.filepath import go_abs, go_clean
from waza_ci.golang.os import go_errno_text
from waza_ci.golang.strconv import go_quote
from waza_ci.graders.inprocess import GraderError

T = TypeVar("T")

PATH_ESCAPES = "path escapes from parent"
_MAX_SYMLINKS = 8  # Go's rootMaxSymlinks
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


# -- the lexical check -------------------------------------------------------------------------


def check_inside(workspace_dir: str, path: str, working_directory: str) -> None:
    """waza's check that a configured path names something inside the workspace; GraderError
    (`path … is absolute …` / `… resolves to … which is outside workspace …`) otherwise."""
    workspace = go_abs(workspace_dir, working_directory)
    if path.startswith("/"):
        raise GraderError(
            f"path {go_quote(path)} is absolute and not relative to workspace {go_quote(workspace)}"
        )
    # filepath.Join drops an empty element; "." and "" clean to the workspace itself, which
    # the prefix test (with its trailing slash) refuses.
    resolved = go_clean(f"{workspace}/{path}" if path else workspace)
    if not resolved.startswith(workspace + "/"):
        raise GraderError(
            f"path {go_quote(path)} resolves to {go_quote(resolved)} which is outside "
            f"workspace {go_quote(workspace)}"
        )


def check_all_inside(workspace_dir: str, paths: Iterable[str], working_directory: str) -> None:
    """`check_inside` for each path in order; the first violation is the Go error."""
    for path in paths:
        check_inside(workspace_dir, path, working_directory)


# -- rooted reads ------------------------------------------------------------------------------


class RootError(GoError):
    """An error of a rooted operation, in Go's words (`statat a/b: not a directory`)."""

    def __init__(self, text: str, *, not_exist: bool) -> None:
        super().__init__(text)
        self.text = text
        self.not_exist = not_exist
        """Go's `os.IsNotExist(err)`: the path (or a directory on it) does not exist."""


class _Escape(Exception):
    """The walk would leave the root."""


@dataclass
class _Link:
    target: str


class RootedWorkspace:
    """A directory opened as Go's `os.OpenRoot(name)` opens it; `name` is kept verbatim for
    messages, and resolved against `working_directory` when relative."""

    def __init__(self, name: str, working_directory: str) -> None:
        self.name = name
        path = name if name.startswith("/") else os.path.join(working_directory, name)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError as err:
            raise RootError(
                f"open {name}: {go_errno_text(err.errno or errno.EIO)}",
                not_exist=err.errno == errno.ENOENT,
            ) from None
        except ValueError:  # a NUL byte in the name
            raise RootError(
                f"open {name}: {go_errno_text(errno.EINVAL)}", not_exist=False
            ) from None
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            os.close(fd)
            raise RootError(f"open {name}: not a directory", not_exist=False)
        self._fd = fd

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> RootedWorkspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def stat(self, path: str) -> None:
        """`Root.Stat(path)`: succeeds for anything that exists (symlinks followed inside the
        root); raises RootError (`statat <path>: …`)."""
        self._operate("statat", path, _stat_final)

    def read(self, path: str) -> bytes:
        """`Root.ReadFile(path)`; raises RootError (`openat <path>: …`, or `read <root>/<path>:
        …` when the open file cannot be read, as a directory cannot)."""
        fd = self._operate("openat", path, _open_final)
        try:
            return _read_all(fd)
        except OSError as err:
            shown = self.name + path if self.name.endswith("/") else f"{self.name}/{path}"
            raise RootError(
                f"read {shown}: {go_errno_text(err.errno or errno.EIO)}", not_exist=False
            ) from None
        finally:
            os.close(fd)

    def _operate(self, op: str, path: str, final: Callable[[int, str], T | _Link]) -> T:
        walk = _Walk(self._fd)
        try:
            return walk.run(path, final)
        except _Escape:
            raise RootError(f"{op} {path}: {PATH_ESCAPES}", not_exist=False) from None
        except OSError as err:
            code = err.errno or errno.EIO
            raise RootError(
                f"{op} {path}: {go_errno_text(code)}", not_exist=code == errno.ENOENT
            ) from None
        except ValueError as err:  # an empty path, or a NUL byte (Go: EINVAL from the kernel)
            text = go_errno_text(errno.EINVAL) if "\x00" in path else str(err)
            raise RootError(f"{op} {path}: {text}", not_exist=False) from None
        finally:
            walk.close()


class _Walk:
    """Go's `doInRoot`: walk a path's names from the root, one directory descriptor at a time;
    `..` restarts from the root without climbing above it, and a symlink's target is spliced
    into the names (an absolute one escapes)."""

    def __init__(self, root_fd: int) -> None:
        self.root_fd = root_fd
        self.dir_fd = root_fd
        self.parts: list[str] = []
        self.index = 0
        self.ends_in_slash = False
        self.links = 0

    def run(self, path: str, final: Callable[[int, str], T | _Link]) -> T:
        self.parts, self.ends_in_slash = _split(path, [], [])
        while True:
            name = self.parts[self.index]
            if name == "..":
                self.parts = _drop_parents(self.parts, self.index)
                self._restart()
                continue
            if self.index < len(self.parts) - 1:
                link = self._descend(name)
            else:
                link = _require_directory(self.dir_fd, name) if self.ends_in_slash else None
                if link is None:
                    result = final(self.dir_fd, name)
                    if not isinstance(result, _Link):
                        return result
                    link = result
            if link is not None:
                self._follow(link)

    def close(self) -> None:
        if self.dir_fd != self.root_fd:
            os.close(self.dir_fd)
        self.dir_fd = self.root_fd

    def _descend(self, name: str) -> _Link | None:
        opened = _open_directory(self.dir_fd, name)
        if isinstance(opened, _Link):
            return opened
        self.close()
        self.dir_fd = opened
        self.index += 1
        return None

    def _follow(self, link: _Link) -> None:
        self.links += 1
        if self.links > _MAX_SYMLINKS:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
        index = self.index
        spliced, link_slash = _split(link.target, self.parts[:index], self.parts[index + 1 :])
        if index == len(self.parts) - 1 and link_slash:
            self.ends_in_slash = True
        restart = spliced[:index] != self.parts[:index]
        self.parts = spliced
        if restart:
            self._restart()

    def _restart(self) -> None:
        self.close()
        self.index = 0


def _split(path: str, prefix: list[str], suffix: list[str]) -> tuple[list[str], bool]:
    """Go's `splitPathInRoot`: the names of `path` between `prefix` and `suffix`, `.` dropped
    except as the last name, and whether `path` ended in a slash."""
    if not path:
        raise ValueError("empty path")
    if path.startswith("/"):
        raise _Escape
    names = [name for name in path.split("/") if name]
    kept = [name for name in names[:-1] if name != "."] + names[-1:]
    if suffix and kept and kept[-1] == ".":
        kept.pop()
    return [*prefix, *kept, *suffix], path.endswith("/")


def _drop_parents(parts: list[str], index: int) -> list[str]:
    end = index + 1
    while end < len(parts) and parts[end] == "..":
        end += 1
    count = end - index
    if count > index:
        raise _Escape
    remaining = parts[: index - count] + parts[end:]
    return remaining or ["."]


def _read_link(dir_fd: int, name: str, original: OSError) -> _Link:
    """Go's `checkSymlink`: the link's target, or the original error when it is no link."""
    try:
        return _Link(os.readlink(name, dir_fd=dir_fd))
    except OSError:
        raise original from None


def _open_directory(dir_fd: int, name: str) -> int | _Link:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.ENOTDIR):
            return _read_link(dir_fd, name, err)
        if err.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)) from None
        raise


def _require_directory(dir_fd: int, name: str) -> _Link | None:
    """A path ending in a slash must name a directory, or a symlink (then followed)."""
    mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    if stat.S_ISDIR(mode):
        return None
    not_a_directory = OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
    if stat.S_ISLNK(mode):
        return _read_link(dir_fd, name, not_a_directory)
    raise not_a_directory


def _stat_final(dir_fd: int, name: str) -> _Link | None:
    mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    if stat.S_ISLNK(mode):
        return _read_link(dir_fd, name, OSError(errno.ELOOP, os.strerror(errno.ELOOP)))
    return None


def _open_final(dir_fd: int, name: str) -> int | _Link:
    try:
        return os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.ENOTDIR):
            return _read_link(dir_fd, name, err)
        raise


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)
