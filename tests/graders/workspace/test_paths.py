"""The workspace rules `file` and `diff` share: waza's lexical path check (Go errors in Go's
words) and reads through a rooted handle, as Go's `os.Root` does them (real files, real
symlinks)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from waza_ci.golang.filepath import go_abs, go_clean
from waza_ci.graders.inprocess import GraderError
from waza_ci.graders.workspace.paths import (
    RootedWorkspace,
    RootError,
    check_all_inside,
    check_inside,
)


@pytest.mark.parametrize(
    ("path", "cleaned"),
    [
        ("", "."),
        (".", "."),
        ("a//b/./c/", "a/b/c"),
        ("a/../..", ".."),
        ("../../x", "../../x"),
        ("/../a", "/a"),
        ("//a", "/a"),
        ("/", "/"),
        ("a/b/../../..", ".."),
    ],
)
def test_go_clean(path: str, cleaned: str) -> None:
    assert go_clean(path) == cleaned


def test_go_abs_resolves_against_the_working_directory_not_the_process_cwd() -> None:
    assert go_abs("../out", "/home/u/proj") == "/home/u/out"
    assert go_abs("ws/../out", "/home/u/proj") == "/home/u/proj/out"
    assert go_abs("/abs/./ws", "/home/u/proj") == "/abs/ws"


@pytest.mark.parametrize(
    ("workspace", "path", "message"),
    [
        pytest.param(
            "/ws",
            "/etc/passwd",
            'path "/etc/passwd" is absolute and not relative to workspace "/ws"',
            id="absolute",
        ),
        pytest.param(
            "/ws",
            "../../etc/passwd",
            'path "../../etc/passwd" resolves to "/etc/passwd" which is outside workspace "/ws"',
            id="traversal",
        ),
        pytest.param(
            "/ws",
            ".",
            'path "." resolves to "/ws" which is outside workspace "/ws"',
            id="the workspace itself",
        ),
        pytest.param(
            "/ws",
            "",
            'path "" resolves to "/ws" which is outside workspace "/ws"',
            id="empty",
        ),
        pytest.param(
            "/ws",
            "../ws-other/a",
            'path "../ws-other/a" resolves to "/ws-other/a" which is outside workspace "/ws"',
            id="a sibling sharing the prefix",
        ),
        pytest.param(
            "ws",
            "../x",
            'path "../x" resolves to "/proj/x" which is outside workspace "/proj/ws"',
            id="relative workspace made absolute against the working directory",
        ),
        pytest.param(
            "/",
            "a",
            'path "a" resolves to "/a" which is outside workspace "/"',
            id="root workspace refuses everything (Go's prefix test)",
        ),
    ],
)
def test_paths_outside_the_workspace_are_go_errors(workspace: str, path: str, message: str) -> None:
    with pytest.raises(GraderError) as raised:
        check_inside(workspace, path, "/proj")
    assert raised.value.message == message
    assert raised.value.at_creation is False


@pytest.mark.parametrize("path", ["a", "./a", "a/../b", "src/pkg/main.go", "dir/", "a/./b"])
def test_paths_inside_pass(path: str) -> None:
    check_inside("/ws", path, "/proj")


def test_the_first_violation_in_order_is_the_error() -> None:
    with pytest.raises(GraderError, match='"/b" is absolute'):
        check_all_inside("/ws", ["ok", "/b", "../c"], "/proj")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "top.txt").write_text("top")
    (root / "sub" / "deep" / "f.txt").write_text("deep")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret")
    os.symlink("sub/deep", root / "inner-link")
    os.symlink("../top.txt", root / "sub" / "up-link")
    os.symlink(str(tmp_path / "outside"), root / "abs-escape")
    os.symlink("../outside", root / "rel-escape")
    os.symlink("loop-b", root / "loop-a")
    os.symlink("loop-a", root / "loop-b")
    return root


@pytest.mark.parametrize(
    ("path", "content"),
    [
        ("top.txt", b"top"),
        ("./top.txt", b"top"),
        ("sub/deep/f.txt", b"deep"),
        ("sub/../top.txt", b"top"),
        ("inner-link/f.txt", b"deep"),
        ("sub/up-link", b"top"),
    ],
)
def test_reads_inside_the_root_follow_symlinks_that_stay_inside(
    workspace: Path, path: str, content: bytes
) -> None:
    with RootedWorkspace(str(workspace), "/unused") as root:
        assert root.read(path) == content
        root.stat(path)


@pytest.mark.parametrize(
    ("path", "read_text", "stat_text", "not_exist"),
    [
        pytest.param(
            "abs-escape/secret.txt",
            "openat abs-escape/secret.txt: path escapes from parent",
            "statat abs-escape/secret.txt: path escapes from parent",
            False,
            id="absolute symlink",
        ),
        pytest.param(
            "rel-escape/secret.txt",
            "openat rel-escape/secret.txt: path escapes from parent",
            "statat rel-escape/secret.txt: path escapes from parent",
            False,
            id="relative symlink climbing out",
        ),
        pytest.param(
            "rel-escape",
            "openat rel-escape: path escapes from parent",
            "statat rel-escape: path escapes from parent",
            False,
            id="final symlink climbing out",
        ),
        pytest.param(
            "missing.txt",
            "openat missing.txt: no such file or directory",
            "statat missing.txt: no such file or directory",
            True,
            id="missing",
        ),
        pytest.param(
            "nodir/x",
            "openat nodir/x: no such file or directory",
            "statat nodir/x: no such file or directory",
            True,
            id="missing directory",
        ),
        pytest.param(
            "top.txt/x",
            "openat top.txt/x: not a directory",
            "statat top.txt/x: not a directory",
            False,
            id="file used as a directory",
        ),
        pytest.param(
            "top.txt/",
            "openat top.txt/: not a directory",
            "statat top.txt/: not a directory",
            False,
            id="trailing slash on a file",
        ),
        pytest.param(
            "loop-a",
            "openat loop-a: too many levels of symbolic links",
            "statat loop-a: too many levels of symbolic links",
            False,
            id="symlink loop",
        ),
    ],
)
def test_refused_reads_in_gos_words(
    workspace: Path, path: str, read_text: str, stat_text: str, not_exist: bool
) -> None:
    with RootedWorkspace(str(workspace), "/unused") as root:
        with pytest.raises(RootError) as read_error:
            root.read(path)
        with pytest.raises(RootError) as stat_error:
            root.stat(path)
    assert (read_error.value.text, read_error.value.not_exist) == (read_text, not_exist)
    assert (stat_error.value.text, stat_error.value.not_exist) == (stat_text, not_exist)


def test_a_directory_exists_but_cannot_be_read(workspace: Path, tmp_path: Path) -> None:
    with RootedWorkspace("ws", str(tmp_path)) as root:
        root.stat("sub")
        root.stat("sub/")
        with pytest.raises(RootError) as raised:
            root.read("sub")
    assert raised.value.text == "read ws/sub: is a directory"
    with RootedWorkspace("ws/", str(tmp_path)) as root, pytest.raises(RootError) as raised:
        root.read("sub")
    assert raised.value.text == "read ws/sub: is a directory"


def test_opening_a_missing_or_plain_root_fails_as_go_does(tmp_path: Path) -> None:
    with pytest.raises(RootError, match=r"^open nope: no such file or directory$"):
        RootedWorkspace("nope", str(tmp_path))
    (tmp_path / "plain").write_text("x")
    with pytest.raises(RootError, match=r"^open plain: not a directory$"):
        RootedWorkspace("plain", str(tmp_path))


def test_a_fifo_reads_empty_instead_of_hanging(workspace: Path) -> None:
    os.mkfifo(workspace / "pipe")
    with RootedWorkspace(str(workspace), "/unused") as root:
        assert root.read("pipe") == b""


def test_descriptors_are_released(workspace: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    with RootedWorkspace(str(workspace), "/unused") as root:
        for _ in range(50):
            root.read("inner-link/f.txt")
            with pytest.raises(RootError):
                root.read("rel-escape/secret.txt")
    assert len(os.listdir("/proc/self/fd")) == before
