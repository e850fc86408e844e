"""waza's `diff` grader: workspace files compared with snapshot files and checked for fragments.

Each `expected_files` entry names a workspace file (read through the rooted handle; any read
failure counts as "not found", and then its other checks fail unchecked too). With `snapshot`,
the file must equal the snapshot file byte for byte; the snapshot path is taken against
`context_dir` when one is set (and must not lead out of it, symlinks resolved), against the
working directory otherwise. Each `contains` fragment must be present (`+text` or `text`) or
absent (`-text`), trimmed of white space, as a plain substring. Checks: per file one for
existence, one for the snapshot, one per fragment. Score: the share that held.

With `update_snapshots: true` waza writes snapshot files: it creates a missing one and
overwrites one that differs, passes those checks, and counts them (`created`, `updated`,
`unchanged`, with the lines changed). waza-ci gives that verdict without writing anything: what
waza would have written is kept in memory for the rest of the grading (`GraderJob.would_write`),
so a later run reads it back as waza's later runs read the file (then `unchanged`). waza-ci
says once, before grading, that no file is written (`SNAPSHOT_UPDATE_WARNING`); a write that
would fail for waza (a read-only folder) is not foreseen.

The workspace is the one `waza grade --workspace` names (read through `workspace_dir`, shown
in `details.workspace_dir` as given); files captured during the run never exist in
`waza grade`.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from waza_ci.errors import InputError
from waza_ci.golang.filepath import go_abs, go_clean
from waza_ci.golang.os import GoFileError, go_errno_text, go_read_file
from waza_ci.golang.strconv import go_quote
from waza_ci.golang.strings import go_trim_space
from waza_ci.graders.base import GoStruct, GraderJob
from waza_ci.graders.inprocess import GraderError, InProcessGrader, Outcome, fraction
from waza_ci.graders.output.text import string_list
from waza_ci.graders.params import decode_params
from waza_ci.graders.workspace.file import reject_unknown_fields
from waza_ci.graders.workspace.paths import RootedWorkspace, RootError, check_all_inside
from waza_ci.waza.spec import GraderSpec
from waza_ci.waza.spec_schema import BOOL, STR, ListOf, Struct

ALL_PASSED = "All diff checks passed"
NO_WORKSPACE = "No workspace directory available for diff grading"
SNAPSHOT_UPDATE_WARNING = (
    "update_snapshots: true is graded as waza grades it (a missing or differing snapshot "
    "passes, counted as created or updated), but no snapshot file is written: waza-ci never "
    "writes to the repository or the workspace"
)
_EXPECTED_FILE = Struct({"path": STR, "snapshot": STR, "contains": ListOf(STR)})
_SHAPE = Struct(
    {"expected_files": ListOf(_EXPECTED_FILE), "context_dir": STR, "update_snapshots": BOOL}
)
_MAX_LINKS = 255  # Go's filepath.EvalSymlinks


@dataclass(frozen=True)
class _Expected:
    path: str
    snapshot: str
    contains: tuple[str, ...]


@dataclass(frozen=True)
class DiffConfig:
    files: tuple[_Expected, ...]
    context_dir: str
    update_snapshots: bool
    files_details: list[dict[str, Any]]
    creation_error: str | None
    """waza's factory error for this config (an entry without `path`, or with nothing to check)."""
    checks: int


class DiffGrader(InProcessGrader[DiffConfig]):
    """waza's `diff` grader kind."""

    kind = "diff"

    def warnings(self, grader: GraderSpec, config: DiffConfig) -> tuple[str, ...]:
        return (f"diff grader {go_quote(grader.name)}: {SNAPSHOT_UPDATE_WARNING}",) * bool(
            config.update_snapshots
        )

    def configure(self, grader: GraderSpec) -> DiffConfig:
        params = decode_params(grader, "DiffGraderParameters", _SHAPE)
        reject_unknown_fields(
            grader, "expected_files", "DiffGraderParameters", "DiffExpectedFileParameters",
            _EXPECTED_FILE,
        )  # fmt: skip
        entries = [entry or {} for entry in params.get("expected_files") or ()]
        if not entries:
            raise InputError(
                f"diff grader {go_quote(grader.name)}: must have at least one file in "
                "config.expected_files",
                grader.location,
            )
        files = tuple(
            _Expected(
                path=str(entry.get("path") or ""),
                snapshot=str(entry.get("snapshot") or ""),
                contains=tuple(string_list(entry.get("contains")) or ()),
            )
            for entry in entries
        )
        return DiffConfig(
            files=files,
            context_dir=str(params.get("context_dir") or ""),
            update_snapshots=bool(params.get("update_snapshots")),
            files_details=[_file_details(expected) for expected in files],
            creation_error=_creation_error(grader.name, files),
            checks=sum(1 + bool(f.snapshot) + len(f.contains) for f in files),
        )

    def evaluate(self, config: DiffConfig, job: GraderJob) -> Outcome:
        if config.creation_error is not None:
            raise GraderError(config.creation_error, at_creation=True)
        workspace = job.setup.workspace_dir
        if not workspace:
            return Outcome(score=0.0, passed=False, feedback=NO_WORKSPACE)
        cwd = job.setup.working_directory
        try:
            root = RootedWorkspace(workspace, cwd)
        except RootError as err:
            raise GraderError(f"opening workspace for diff grading: {err.text}") from None
        with root:
            check_all_inside(workspace, (f.path for f in config.files), cwd)
            failures: list[str] = []
            updates: list[dict[str, Any]] = []
            for expected in config.files:
                failures.extend(_file_failures(config, expected, root, job, updates))
        return _outcome(config, failures, updates, job.setup.workspace_shown)


def _creation_error(name: str, files: tuple[_Expected, ...]) -> str | None:
    for index, expected in enumerate(files):
        if not expected.path:
            return f"diff grader '{name}': expected_files[{index}] missing required 'path'"
        if not expected.snapshot and not expected.contains:
            return (
                f"diff grader '{name}': expected_files[{index}] ('{expected.path}') must have "
                "'snapshot' or 'contains'"
            )
    return None


def _file_details(expected: _Expected) -> GoStruct:
    entry = GoStruct(path=expected.path)
    if expected.snapshot:
        entry["snapshot"] = expected.snapshot
    if expected.contains:
        entry["contains"] = list(expected.contains)
    return entry


def _outcome(
    config: DiffConfig, failures: list[str], updates: list[dict[str, Any]], workspace: str
) -> Outcome:
    feedback = "; ".join(failures) or ALL_PASSED
    if not failures and config.update_snapshots:
        counts = {status: 0 for status in (_UPDATED, _CREATED, _UNCHANGED)}
        for update in updates:
            counts[update["status"]] += 1
        feedback += (
            f" (snapshots: {counts[_UPDATED]} updated, {counts[_CREATED]} created, "
            f"{counts[_UNCHANGED]} unchanged)"
        )
    details: dict[str, Any] = {
        "expected_files": config.files_details,
        "failures": failures or None,
        "workspace_dir": workspace,
        "snapshot_updates": updates,
    }
    return Outcome(
        score=fraction(config.checks, len(failures)),
        passed=not failures,
        feedback=feedback,
        details=details,
    )


def _file_failures(
    config: DiffConfig,
    expected: _Expected,
    root: RootedWorkspace,
    job: GraderJob,
    updates: list[dict[str, Any]],
) -> Iterator[str]:
    path = expected.path
    try:
        content = root.read(path)
    except RootError:
        # waza counts any read failure as "not found", and every other check of the file as
        # failed with it.
        yield f"Expected file not found in workspace: {path}"
        if expected.snapshot:
            yield f"Snapshot comparison skipped (file not found): {path}"
        for fragment in expected.contains:
            yield f"Contains check skipped (file not found): {path} \u2192 {fragment}"
        return
    if expected.snapshot:
        failure = _snapshot_check(config, expected, content, job, updates)
        if failure is not None:
            yield failure
    yield from _fragment_failures(path, expected.contains, content)


def _snapshot_check(
    config: DiffConfig,
    expected: _Expected,
    content: bytes,
    job: GraderJob,
    updates: list[dict[str, Any]],
) -> str | None:
    """The snapshot check's failure, if any; with `update_snapshots`, what waza would have
    done to the snapshot is added to `updates` (and remembered, never written)."""
    snapshot, path = expected.snapshot, expected.path
    try:
        resolved = _snapshot_path(snapshot, config.context_dir, job.setup.working_directory)
    except _FsError as err:
        return f"Invalid snapshot file {snapshot} for {path}: {err}"
    wanted = job.would_write.get(resolved)
    if wanted is None:
        try:
            wanted = go_read_file(resolved)
        except GoFileError as err:
            if not (config.update_snapshots and err.not_exist):
                return f"Failed to read snapshot file {snapshot} for {path}: {err}"
            job.would_write[resolved] = content  # waza creates it
            updates.append(_update(expected, _CREATED, changed_lines(b"", content)))
            return None
    if wanted != content:
        if not config.update_snapshots:
            return f"File {path} does not match snapshot {snapshot}"
        job.would_write[resolved] = content  # waza overwrites it
        updates.append(_update(expected, _UPDATED, changed_lines(wanted, content)))
    elif config.update_snapshots:
        updates.append(_update(expected, _UNCHANGED, 0))
    return None


_UPDATED, _CREATED, _UNCHANGED = "updated", "created", "unchanged"


def _update(expected: _Expected, status: str, lines_changed: int) -> GoStruct:
    return GoStruct(
        path=expected.path, snapshot=expected.snapshot, status=status, lines_changed=lines_changed
    )


def changed_lines(before: bytes, after: bytes) -> int:
    """waza's countChangedLines: CRLF made LF, both split on LF, lines compared by position up
    to the longer length."""
    old = before.replace(b"\r\n", b"\n").split(b"\n")
    new = after.replace(b"\r\n", b"\n").split(b"\n")
    old += [b""] * (len(new) - len(old))
    new += [b""] * (len(old) - len(new))
    return sum(a != b for a, b in zip(old, new, strict=True))


def _fragment_failures(path: str, fragments: tuple[str, ...], content: bytes) -> Iterator[str]:
    for fragment in fragments:
        wanted = True
        text = fragment
        if fragment[:1] in ("+", "-"):
            wanted = fragment[0] == "+"
            text = fragment[1:]
        text = go_trim_space(text)
        if not text:
            continue  # an empty fragment is a check that holds
        found = text.encode("utf-8", "surrogateescape") in content
        if wanted and not found:
            yield f"File {path} missing expected fragment: {text}"
        elif not wanted and found:
            yield f"File {path} contains fragment that should be absent: {text}"


# -- snapshot paths, as Go's filepath functions see them ----------------------------------------


class _FsError(Exception):
    """A Go error from the file system, in Go's words."""

    def __init__(self, text: str, *, not_exist: bool = False) -> None:
        super().__init__(text)
        self.not_exist = not_exist


def _snapshot_path(snapshot: str, context_dir: str, cwd: str) -> str:
    """The absolute snapshot path waza reads; with a context directory, checked (symlinks
    resolved) not to lead out of it."""
    joined = snapshot
    if context_dir and not snapshot.startswith("/"):
        joined = f"{context_dir}/{snapshot}"
    absolute = go_abs(joined, cwd)
    if not context_dir:
        return absolute
    context = _eval_symlinks(go_abs(context_dir, cwd))
    target = _resolve_allowing_missing_leaf(absolute)
    inside = context if context.endswith("/") else context + "/"
    if target != context and not target.startswith(inside):
        raise _FsError("path escapes context directory")
    return absolute


def _resolve_allowing_missing_leaf(path: str) -> str:
    try:
        return _eval_symlinks(path)
    except _FsError as err:
        if not err.not_exist:
            raise
    parent, _, leaf = path.rpartition("/")
    return go_clean(f"{_eval_symlinks(parent or '/')}/{leaf}")


def _eval_symlinks(path: str) -> str:
    """Go's `filepath.EvalSymlinks` of an absolute path (its walk, and its errors: `lstat
    <prefix>: …`, a bare `not a directory`)."""
    rest = path
    dest = "/"
    links = 0
    while True:
        rest = rest.lstrip("/")
        if not rest:
            return go_clean(dest)
        name, separator, rest = rest.partition("/")
        if name == ".":
            continue
        if name == "..":
            dest = dest.rpartition("/")[0] or "/"
            continue
        dest = f"{dest.rstrip('/')}/{name}"
        try:
            mode = os.lstat(dest).st_mode
        except OSError as err:
            code = err.errno or errno.EIO
            text = f"lstat {dest}: {go_errno_text(code)}"
            raise _FsError(text, not_exist=code == errno.ENOENT) from None
        if not stat.S_ISLNK(mode):
            if not stat.S_ISDIR(mode) and separator:
                raise _FsError(go_errno_text(errno.ENOTDIR))
            continue
        links += 1
        if links > _MAX_LINKS:
            raise _FsError("EvalSymlinks: too many links")
        link = os.readlink(dest)
        rest = link + separator + rest
        dest = "/" if link.startswith("/") else (dest.rpartition("/")[0] or "/")
