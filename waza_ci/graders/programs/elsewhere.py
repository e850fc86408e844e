"""Where a failing program grader's missing files would be found: the one fact that makes
"set working-directory" a right hint rather than a guess.

A program grader names its script relative to the working directory (`python3
graders/check.py`). When that file is missing there, but the folder of the YAML file that
defines the grader (or one of its parents, nearest first) has every such file, a different
working directory would really find it, and the report says which. Asked only of graders that
did not pass, so a passing grading stats nothing more.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

_SCRIPT_SUFFIXES = (".py", ".sh", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".bash", ".ps1")


def _names_a_file(word: str) -> bool:
    """A command or argument written as a relative file path (not a flag, not a bare name)."""
    if not word or word.startswith("-") or os.path.isabs(word):
        return False
    return "/" in word or word.endswith(_SCRIPT_SUFFIXES)


def folder_that_has(words: Sequence[str], working_directory: str, spec_file: str) -> str | None:
    """The folder that has every file the grader names but the working directory lacks, as
    `working-directory` would name it (relative to the current folder, as the input and the
    flag are read); None when none is missing there or no folder near the spec has them all."""
    base = Path(working_directory).resolve()
    missing = [w for w in words if _names_a_file(w) and not (base / w).exists()]
    if not missing:
        return None
    near = Path(spec_file).resolve().parent
    for folder in (near, *near.parents):
        if folder != base and all((folder / w).exists() for w in missing):
            return os.path.relpath(folder)
    return None
