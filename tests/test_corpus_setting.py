"""The corpus tests run exactly when `WAZA_CI_CORPUS` asks for them: skipped, saying why, when
it is unset or `none`; failed, never skipped, when it names a folder without the corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CORPUS_VARIABLE, require_shared, shared_files


def test_unset_skips_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CORPUS_VARIABLE, raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"{CORPUS_VARIABLE} is not set"):
        require_shared("waza-wild")
    assert [p.id for p in shared_files("waza-wild", "*")] == ["waza-wild-missing"]


def test_none_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CORPUS_VARIABLE, "none")
    with pytest.raises(pytest.skip.Exception, match=f"{CORPUS_VARIABLE} is none"):
        require_shared("waza-wild")


def test_a_folder_without_the_corpus_fails(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CORPUS_VARIABLE, str(tmp_path))
    with pytest.raises(pytest.fail.Exception, match="waza-wild is not a folder"):
        require_shared("waza-wild")


def test_a_folder_with_it_is_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "waza-wild").mkdir()
    (tmp_path / "waza-wild" / "a.json").write_text("{}", encoding="utf-8")
    monkeypatch.setenv(CORPUS_VARIABLE, str(tmp_path))
    assert require_shared("waza-wild") == tmp_path / "waza-wild"
