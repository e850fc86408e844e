"""Where a failing program grader's missing files would be found (real folders and files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from waza_ci.graders.programs.elsewhere import folder_that_has


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """evals/eval.yaml beside evals/graders/check.py; an empty `other/`; cwd the repository."""
    (tmp_path / "evals" / "graders").mkdir(parents=True)
    (tmp_path / "evals" / "eval.yaml").write_text("name: e\n", encoding="utf-8")
    (tmp_path / "evals" / "graders" / "check.py").write_text("", encoding="utf-8")
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_spec_s_folder_has_what_the_working_directory_lacks(repo: Path) -> None:
    words = ("python3", "graders/check.py", "--strict")
    assert folder_that_has(words, "other", "evals/eval.yaml") == "evals"
    assert folder_that_has(words, str(repo / "other"), str(repo / "evals/eval.yaml")) == "evals"


def test_a_parent_of_the_spec_s_folder_counts_nearest_first(repo: Path) -> None:
    (repo / "tasks").mkdir()
    words = ("sh", "evals/graders/check.py")
    assert folder_that_has(words, "other", "tasks/t.yaml") == os.curdir


def test_nothing_is_said_when_nothing_is_missing_or_no_folder_has_it(repo: Path) -> None:
    assert folder_that_has(("python3", "graders/check.py"), "evals", "evals/eval.yaml") is None
    assert folder_that_has(("python3", "graders/chekc.py"), "other", "evals/eval.yaml") is None
    # Flags, bare commands and absolute paths are not files the grader names relatively.
    assert folder_that_has(("python3", "-c", "/abs/x.py"), "other", "evals/eval.yaml") is None


def test_every_missing_file_must_be_in_the_one_folder(repo: Path) -> None:
    words = ("python3", "graders/check.py", "data/expected.json")
    assert folder_that_has(words, "other", "evals/eval.yaml") is None
    (repo / "evals" / "data").mkdir()
    (repo / "evals" / "data" / "expected.json").write_text("{}", encoding="utf-8")
    assert folder_that_has(words, "other", "evals/eval.yaml") == "evals"
