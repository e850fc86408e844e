"""Where the engine looks for waza's module cache."""

from __future__ import annotations

import pwd
from pathlib import Path

import pytest

from waza_ci.engine.modules import default_module_cache


def test_the_cache_is_waza_s_variable_else_under_home() -> None:
    assert default_module_cache({"WAZA_MODULE_CACHE": "/c", "HOME": "/h"}) == Path("/c")
    assert default_module_cache({"HOME": "/h"}) == Path("/h/.waza/cache")


def test_a_user_with_no_home_and_no_passwd_entry_still_grades(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A container's uid 1001 with no HOME: Path.home() would raise; a grading without `ref:`
    # graders never reads the cache, so it must not fail here.
    def no_entry(uid: int) -> pwd.struct_passwd:
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    assert default_module_cache({}).parts[-2:] == (".waza", "cache")
