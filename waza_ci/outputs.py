"""Where the regraded results files and the Markdown report go, and writing them whole.

Paths are checked before grading so a usage error writes nothing; files are written to a
temporary name beside the target and renamed into place, so no reader sees half a file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from waza_ci.errors import InputError, OutputError
from waza_ci.files import check_output_target


@dataclass(frozen=True)
class OutputPlan:
    """Target path per regraded results file (by results name) and for the report."""

    results: Mapping[str, Path]
    summary: Path | None
    report_json: Path | None = None
    html: Path | None = None
    benchmark_json: Path | None = None
    history: Path | None = None
    """The history file to append a record to (`--history` with `--record`)."""


def plan_outputs(
    output: Path | None,
    summary: Path | None,
    result_names: Sequence[str],
    inputs: Sequence[Path] = (),
    *,
    report_json: Path | None = None,
    html: Path | None = None,
    benchmark_json: Path | None = None,
    history: Path | None = None,
) -> OutputPlan:
    """Where each regraded results file and the report go; called before grading, so every
    problem here is a usage error that leaves nothing graded and nothing written.

    One results file → `output` itself (or a file in it when it is a folder); several →
    `output` is a folder holding one file per input, under the input's name. Missing folders
    are created when writing. An input file is never overwritten.
    """
    singles = (
        ("--summary", summary),
        ("--report-json", report_json),
        ("--html", html),
        ("--benchmark-json", benchmark_json),
        ("--history", history),
    )
    _check_writable_place("--output", output)
    for option, path in singles:
        _check_writable_place(option, path)
        if path is not None and path.is_dir():
            raise InputError(f"{option} {str(path)!r} is a folder; give a file name")
    targets: dict[str, Path] = {}
    if output is not None:
        if len(result_names) == 1 and not output.is_dir():
            targets = {result_names[0]: output}
        elif output.exists() and not output.is_dir():
            raise InputError(
                f"--output {str(output)!r} must be a folder when several results files are given"
            )
        else:
            targets = {name: output / name for name in result_names}
            for target in targets.values():
                check_output_target(target, "--output")
    for option, path in singles:
        _refuse_clashes(targets, path, inputs, option=option)
    for number, (option, path) in enumerate(singles):
        for other, other_path in singles[number + 1 :]:
            if (
                path is not None
                and other_path is not None
                and path.resolve() == other_path.resolve()
            ):
                raise InputError(f"{option} and {other} both name {str(path)!r}")
    return OutputPlan(targets, summary, report_json, html, benchmark_json, history)


def _check_writable_place(option: str, path: Path | None) -> None:
    if path is None:
        return
    check_output_target(path, option)
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise InputError(f"{option} {str(path)!r}: {str(ancestor)!r} is not a folder")


def _refuse_clashes(
    targets: Mapping[str, Path],
    summary: Path | None,
    inputs: Sequence[Path],
    *,
    option: str = "--summary",
) -> None:
    given = {path.resolve(): path for path in inputs}
    for target in targets.values():
        if target.resolve() in given:
            raise InputError(
                f"--output would overwrite the results file {str(given[target.resolve()])!r}; "
                "write the regraded file elsewhere"
            )
        if summary is not None and target.resolve() == summary.resolve():
            raise InputError(f"--output and {option} both name {str(summary)!r}")
    if summary is not None and summary.resolve() in given:
        raise InputError(f"{option} would overwrite the results file {str(summary)!r}")


StreamWriter = Callable[[BinaryIO], None]
"""Writes a file's bytes to the stream it is given, piece by piece (a large results file is
never held as one text)."""


def write_text_files(contents: Mapping[Path, str | StreamWriter]) -> None:
    """Write every file (a text, or a function that streams its bytes) to a temporary sibling
    first, fsync it, then rename them all into place.

    All files are staged before the first rename, so a failure (disk full, read-only folder)
    leaves every existing target as it was and no temporary file behind. The error names the
    target, not the temporary file, and the operating system's reason.
    """
    staged: list[tuple[str, Path]] = []
    target: Path | None = None
    try:
        for target, content in contents.items():
            # A text is encoded before its file exists: an encoding error leaves none.
            write = _writer_of(content.encode("utf-8")) if isinstance(content, str) else content
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
            staged.append((temp, target))
            with os.fdopen(handle, "wb") as stream:
                write(stream)
                stream.flush()
                os.fsync(stream.fileno())  # the rename must never expose an empty file
            os.chmod(temp, 0o644)  # mkstemp makes 0600; results files are shared artifacts
        for temp, target in staged:
            os.replace(temp, target)
            _sync_folder(target.parent)
    except OSError as err:
        _discard(staged)
        where = str(target) if target is not None else "output"
        raise OutputError(f"cannot write {where!r}: {err.strerror or err}") from None
    except BaseException:
        _discard(staged)  # whatever went wrong, no temporary file is left behind
        raise


def _writer_of(data: bytes) -> StreamWriter:
    def write(stream: BinaryIO) -> None:
        stream.write(data)

    return write


def _sync_folder(folder: Path) -> None:
    """Make a rename durable; best effort, since not every file system can sync a folder."""
    try:
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _discard(staged: Sequence[tuple[str, Path]]) -> None:
    for temp, _target in staged:
        Path(temp).unlink(missing_ok=True)
