"""Go's os.ReadFile and errno texts, written once (golang/os.py) for the schema file,
snapshots, SKILL.md and prompt files that each had a copy."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from waza_ci.golang.os import GoFileError, go_errno_text, go_read_file
from waza_ci.graders.skill.skill_md import SkillError, load_skill


def test_errno_texts_are_gos_lower_cased_first_word_but_not_an_acronym() -> None:
    assert go_errno_text(errno.ENOENT) == "no such file or directory"
    assert go_errno_text(OSError(errno.EACCES, "ignored")) == "permission denied"
    # Go's syscall table keeps "RFS specific error"; the workspace graders' copy wrote "rFS".
    assert go_errno_text(errno.EDOTDOT) == "RFS specific error"


def test_a_file_reads_and_each_failure_is_named_as_go_names_it(tmp_path: Path) -> None:
    (tmp_path / "f.json").write_bytes(b"{}")
    assert go_read_file(str(tmp_path / "f.json")) == b"{}"
    with pytest.raises(GoFileError) as missing:
        go_read_file(str(tmp_path / "nope"), shown="nope")
    assert str(missing.value) == "open nope: no such file or directory"
    assert missing.value.not_exist
    with pytest.raises(GoFileError) as folder:
        go_read_file(str(tmp_path))
    assert str(folder.value) == f"read {tmp_path}: is a directory"
    assert not folder.value.not_exist


def test_a_fifo_without_a_writer_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert go_read_file(str(fifo)) == b""


def test_a_skill_md_that_is_a_fifo_is_read_not_waited_on(tmp_path: Path) -> None:
    # skill_md.py and trigger.py read with Path.read_bytes, which blocks on a FIFO for ever.
    fifo = tmp_path / "SKILL.md"
    os.mkfifo(fifo)
    with pytest.raises(SkillError, match=r"SKILL\.md is empty"):
        load_skill(str(fifo))
