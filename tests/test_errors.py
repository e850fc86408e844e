"""errors.py's helpers for messages: a path written as on Windows is recognised, so the hint is
its slashes, never a working directory."""

from __future__ import annotations

import pytest

from waza_ci.errors import windows_path


@pytest.mark.parametrize(
    "text",
    [
        r"graders\check.py",
        r".\graders\check.sh",
        r"tasks\*.yaml",
        r"C:\Users\me\results.json",
        "C:/Users/me/results.json",
        r"D:\a",
        # As Python and Go quote them in their errors: the backslash doubled.
        r"python3: can't open file '/repo/graders\\check.py': [Errno 2] No such file",
        r'exec: "graders\\check.py": executable file not found in $PATH',
        r"sh: 1: .\\check.sh: not found",
    ],
)
def test_a_windows_path_is_recognised(text: str) -> None:
    assert windows_path(text)


@pytest.mark.parametrize(
    "text",
    [
        "graders/check.py",
        "results.json",
        "/repo/C/results.json",
        "https://example.test/a/b",
        "a:b",
        "D:",
        r"echo \$HOME",
        r"grep \(x\)",
        "line one\nline two",
    ],
)
def test_a_posix_path_or_plain_text_is_not(text: str) -> None:
    assert not windows_path(text)
