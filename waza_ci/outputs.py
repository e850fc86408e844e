"""Where the regraded results files and the Markdown report go, and writing them whole.

Paths are checked before grading so a usage error writes nothing; files are written to a
temporary name beside the target and renamed into place, so no reader sees half a file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from waza_ci.errors import InputError, OutputError


@dataclass(frozen=True)
class OutputPlan:
    """Target path per regraded results file (by results name) and for the report."""

    results: Mapping[str, Path]
    summary: Path | None


def check_output_paths(output: Path | None, summary: Path | None) -> None:
    """Fail before grading when an output could not be written at all.

    Missing folders are fine (they are created); a file standing where a folder must be is not.
    """
    for option, path in (("--output", output), ("--summary", summary)):
        if path is None:
            continue
        ancestor = path.parent
        while not ancestor.exists() and ancestor != ancestor.parent:
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise InputError(f"{option} {str(path)!r}: {str(ancestor)!r} is not a folder")
    if summary is not None and summary.is_dir():
        raise InputError(f"--summary {str(summary)!r} is a folder; give a file name")


def plan_outputs(
    output: Path | None, summary: Path | None, result_names: Sequence[str]
) -> OutputPlan:
    """One results file → `output` itself (or a file in it when it is a folder); several →
    `output` is a folder holding one file per input, under the input's name."""
    if output is None:
        return OutputPlan({}, summary)
    if len(result_names) == 1 and not output.is_dir():
        return OutputPlan({result_names[0]: output}, summary)
    if output.exists() and not output.is_dir():
        raise InputError(
            f"--output {str(output)!r} must be a folder when several results files are given"
        )
    return OutputPlan({name: output / name for name in result_names}, summary)


def write_text_files(contents: Mapping[Path, str]) -> None:
    """Write every file to a temporary sibling first, then rename them all into place."""
    staged: list[tuple[str, Path]] = []
    try:
        for target, text in contents.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
            staged.append((temp, target))
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.chmod(temp, 0o644)  # mkstemp makes 0600; results files are shared artifacts
        for temp, target in staged:
            os.replace(temp, target)
    except OSError as err:
        for temp, _target in staged:
            Path(temp).unlink(missing_ok=True)
        raise OutputError(f"cannot write {err.filename or 'output'}: {err.strerror}") from None
