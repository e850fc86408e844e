"""privatedir.py on a real file system: modes, content, removal, tampering and failures."""

from __future__ import annotations

import os
import resource
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from waza_ci.sandbox import privatedir
from waza_ci.sandbox.privatedir import (
    CONTEXT_FILE_NAME,
    DIR_PREFIX,
    ContextFileError,
    PrivateContextFile,
    create_context_file,
    verify_and_remove,
)

PAYLOAD = b'{"version": 1, "output": "secret transcript"}\n'

needs_chattr = pytest.mark.skipif(
    shutil.which("chattr") is None or os.geteuid() != 0,
    reason="needs chattr and root to make entries immutable",
)


@contextmanager
def immutable(path: Path) -> Iterator[None]:
    """`chattr +i` for the duration: even root can then neither add, remove nor rename."""
    subprocess.run(["chattr", "+i", str(path)], check=True)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@contextmanager
def umask(mask: int) -> Iterator[None]:
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)


def mode_of(path: str) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


# --- creation --------------------------------------------------------------------------------


@pytest.mark.parametrize("mask", [0o000, 0o022, 0o077, 0o777], ids=oct)
def test_modes_are_exact_whatever_the_umask(tmp_path: Path, mask: int) -> None:
    with umask(mask):
        context = create_context_file(PAYLOAD, str(tmp_path))
    assert mode_of(context.directory) == 0o700
    assert mode_of(context.path) == 0o600


def test_file_holds_the_payload_in_a_new_directory_under_the_parent(tmp_path: Path) -> None:
    payload = os.urandom(5 * 1024 * 1024)
    context = create_context_file(payload, str(tmp_path))
    directory = Path(context.directory)
    assert directory.parent == tmp_path
    assert directory.name.startswith(DIR_PREFIX)
    assert len(directory.name) > len(DIR_PREFIX) + 8  # enough randomness not to be guessed
    assert context.path == str(directory / CONTEXT_FILE_NAME)
    assert Path(context.path).read_bytes() == payload
    assert os.listdir(directory) == [CONTEXT_FILE_NAME]


def test_each_call_makes_its_own_directory(tmp_path: Path) -> None:
    first = create_context_file(b"one", str(tmp_path))
    second = create_context_file(b"two", str(tmp_path))
    assert first.directory != second.directory
    assert Path(first.path).read_bytes() == b"one"
    assert Path(second.path).read_bytes() == b"two"


def test_relative_parent_gives_absolute_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    context = create_context_file(PAYLOAD, ".")
    assert os.path.isabs(context.directory) and os.path.isabs(context.path)
    assert Path(context.path).read_bytes() == PAYLOAD


@pytest.mark.parametrize("squatter", ["directory", "symlink"])
def test_an_existing_entry_with_the_chosen_name_is_never_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, squatter: str
) -> None:
    taken = tmp_path / f"{DIR_PREFIX}taken"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if squatter == "directory":
        taken.mkdir()
    else:
        taken.symlink_to(elsewhere)
    names = iter([taken.name, f"{DIR_PREFIX}fresh"])
    monkeypatch.setattr(privatedir, "_new_directory_name", lambda: next(names))
    context = create_context_file(PAYLOAD, str(tmp_path))
    assert context.directory == str(tmp_path / f"{DIR_PREFIX}fresh")
    assert list(elsewhere.iterdir()) == []
    if squatter == "directory":
        assert list(taken.iterdir()) == []


def test_nonexistent_parent_is_an_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-parent"
    with pytest.raises(ContextFileError) as caught:
        create_context_file(PAYLOAD, str(missing))
    assert str(missing) in str(caught.value)
    assert "No such file or directory" in str(caught.value)


@needs_chattr
def test_parent_that_refuses_new_entries_is_an_error_naming_it(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    with immutable(locked), pytest.raises(ContextFileError) as caught:
        create_context_file(PAYLOAD, str(locked))
    assert f"cannot create grading context directory {locked}/{DIR_PREFIX}" in str(caught.value)
    assert list(locked.iterdir()) == []


def test_failed_write_names_the_file_and_leaves_nothing_behind(tmp_path: Path) -> None:
    # A file size limit makes the write stop part way (EFBIG), after the directory was made.
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard))
    try:
        with pytest.raises(ContextFileError) as caught:
            create_context_file(b"x" * 100_000, str(tmp_path))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    message = str(caught.value)
    assert message.startswith(f"cannot write grading context file {tmp_path}/{DIR_PREFIX}")
    assert f"/{CONTEXT_FILE_NAME}: [Errno 27] File too large" in message
    assert list(tmp_path.iterdir()) == []


# --- removal ---------------------------------------------------------------------------------


def test_removal_deletes_the_directory_and_what_the_grader_left_in_it(tmp_path: Path) -> None:
    context = create_context_file(PAYLOAD, str(tmp_path))
    (Path(context.directory) / "notes.txt").write_text("scratch")
    (Path(context.directory) / "sub" / "deeper").mkdir(parents=True)
    (Path(context.directory) / "sub" / "deeper" / "copy.json").write_bytes(PAYLOAD)
    verify_and_remove(context)
    assert not os.path.lexists(context.directory)
    assert list(tmp_path.iterdir()) == []


def test_removal_frees_both_inodes_before_it_returns(tmp_path: Path) -> None:
    # The descriptors that pin the directory and context.json are closed by the time removal
    # returns, not later in a batch: an inode freed at once is reused by the next grader's
    # context, while one freed in a later second is skipped by ext4 (without a journal) for
    # minutes, and every later allocation scans past it (benchmarks/README.md).
    context = create_context_file(PAYLOAD, str(tmp_path))
    pinned = [fd for fd in context._held if fd >= 0]
    identities = {context.directory_identity.inode, context.file_identity.inode}
    assert {os.fstat(fd).st_ino for fd in pinned} == identities
    verify_and_remove(context)
    for fd in pinned:
        with pytest.raises(OSError):
            os.fstat(fd)


def test_removal_does_not_follow_a_symlink_the_grader_left_inside(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("not ours")
    context = create_context_file(PAYLOAD, str(tmp_path))
    (Path(context.directory) / "link").symlink_to(outside)
    verify_and_remove(context)
    assert not os.path.lexists(context.directory)
    assert (outside / "keep.txt").read_text() == "not ours"


# --- tampering: each case raises, names the path, and deletes nothing -------------------------


def move_directory_away(context: PrivateContextFile, tmp_path: Path) -> Path:
    moved = tmp_path / "moved"
    os.rename(context.directory, moved)
    return moved / CONTEXT_FILE_NAME


def delete_directory(context: PrivateContextFile, tmp_path: Path) -> None:
    shutil.rmtree(context.directory)


def replace_directory_with_directory(context: PrivateContextFile, tmp_path: Path) -> Path:
    os.rename(context.directory, tmp_path / "original")
    os.mkdir(context.directory)
    replacement = Path(context.directory) / CONTEXT_FILE_NAME
    replacement.write_text("someone else's")
    return replacement


def replace_directory_with_symlink(context: PrivateContextFile, tmp_path: Path) -> Path:
    target = tmp_path / "target"
    target.mkdir()
    (target / CONTEXT_FILE_NAME).write_text("someone else's")
    os.rename(context.directory, tmp_path / "original")
    os.symlink(target, context.directory)
    return target / CONTEXT_FILE_NAME


def replace_directory_with_file(context: PrivateContextFile, tmp_path: Path) -> Path:
    os.rename(context.directory, tmp_path / "original")
    Path(context.directory).write_text("someone else's")
    return Path(context.directory)


DIRECTORY_TAMPERING: list[tuple[Callable[[PrivateContextFile, Path], Path | None], str]] = [
    (move_directory_away, "was moved away or deleted"),
    (delete_directory, "was moved away or deleted"),
    (replace_directory_with_directory, "was replaced by another directory"),
    (replace_directory_with_symlink, "was replaced by a symbolic link"),
    (replace_directory_with_file, "was replaced by a file"),
]


@pytest.mark.parametrize(
    ("tamper", "what"),
    DIRECTORY_TAMPERING,
    ids=[tamper.__name__ for tamper, _ in DIRECTORY_TAMPERING],
)
def test_tampered_directory_is_reported_and_nothing_is_deleted(
    tmp_path: Path, tamper: Callable[[PrivateContextFile, Path], Path | None], what: str
) -> None:
    context = create_context_file(PAYLOAD, str(tmp_path))
    survivor = tamper(context, tmp_path)
    before = sorted(str(entry) for entry in tmp_path.rglob("*"))
    with pytest.raises(ContextFileError) as caught:
        verify_and_remove(context)
    message = str(caught.value)
    assert f"grading context directory {context.directory} {what}" in message
    assert "transcript data may remain elsewhere" in message
    assert sorted(str(entry) for entry in tmp_path.rglob("*")) == before
    if survivor is not None:
        assert survivor.exists()


def delete_file(context: PrivateContextFile, tmp_path: Path) -> None:
    os.unlink(context.path)


def move_file_away(context: PrivateContextFile, tmp_path: Path) -> Path:
    moved = tmp_path / "moved.json"
    os.rename(context.path, moved)
    return moved


def replace_file_with_file(context: PrivateContextFile, tmp_path: Path) -> Path:
    os.rename(context.path, tmp_path / "original.json")
    Path(context.path).write_text("someone else's")
    return Path(context.path)


def replace_file_with_symlink(context: PrivateContextFile, tmp_path: Path) -> Path:
    target = tmp_path / "target.json"
    target.write_text("someone else's")
    os.unlink(context.path)
    os.symlink(target, context.path)
    return target


def replace_file_with_symlink_to_itself(context: PrivateContextFile, tmp_path: Path) -> Path:
    # A link to our very file is still not our entry: following it would hide the swap.
    moved = tmp_path / "original.json"
    os.rename(context.path, moved)
    os.symlink(moved, context.path)
    return moved


def replace_file_with_directory(context: PrivateContextFile, tmp_path: Path) -> Path:
    os.unlink(context.path)
    os.mkdir(context.path)
    inside = Path(context.path) / "kept.txt"
    inside.write_text("someone else's")
    return inside


FILE_TAMPERING: list[tuple[Callable[[PrivateContextFile, Path], Path | None], str]] = [
    (delete_file, "was moved away or deleted"),
    (move_file_away, "was moved away or deleted"),
    (replace_file_with_file, "was replaced by another file"),
    (replace_file_with_symlink, "was replaced by a symbolic link"),
    (replace_file_with_symlink_to_itself, "was replaced by a symbolic link"),
    (replace_file_with_directory, "was replaced by a directory"),
]


@pytest.mark.parametrize(
    ("tamper", "what"), FILE_TAMPERING, ids=[tamper.__name__ for tamper, _ in FILE_TAMPERING]
)
def test_tampered_file_is_reported_and_nothing_is_deleted(
    tmp_path: Path, tamper: Callable[[PrivateContextFile, Path], Path | None], what: str
) -> None:
    context = create_context_file(PAYLOAD, str(tmp_path))
    (Path(context.directory) / "grader-notes.txt").write_text("left by the grader")
    survivor = tamper(context, tmp_path)
    before = sorted(str(entry) for entry in tmp_path.rglob("*"))
    with pytest.raises(ContextFileError) as caught:
        verify_and_remove(context)
    message = str(caught.value)
    assert f"grading context file {context.path} {what}" in message
    assert "transcript data may remain elsewhere" in message
    assert sorted(str(entry) for entry in tmp_path.rglob("*")) == before
    assert Path(context.directory).is_dir()
    if survivor is not None:
        assert survivor.exists()


# --- removal failures ------------------------------------------------------------------------


@needs_chattr
@pytest.mark.parametrize("locked", ["directory", "file"])
def test_removal_failure_names_the_path_that_stayed(tmp_path: Path, locked: str) -> None:
    context = create_context_file(PAYLOAD, str(tmp_path))
    target = Path(context.directory if locked == "directory" else context.path)
    with immutable(target), pytest.raises(ContextFileError) as caught:
        verify_and_remove(context)
    message = str(caught.value)
    # Either way context.json is the entry that could not be unlinked.
    assert f"could not remove {context.path}: [Errno 1] Operation not permitted" in message
    assert f"cannot remove grading context directory {context.directory}" in message
    assert Path(context.path).read_bytes() == PAYLOAD
    verify_and_remove(context)  # unlocked again, the same entries are still ours and go
    assert not os.path.lexists(context.directory)
