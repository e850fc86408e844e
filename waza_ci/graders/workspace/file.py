"""waza's `file` grader: existence and content checks on files in the workspace.

`must_exist` paths must exist (a file or a directory), `must_not_exist` paths must not, and each
`content_patterns` entry reads one file and matches its text against `must_match` and
`must_not_match` RE2 patterns. Every configured path is first checked to lie inside the workspace
(a Go error otherwise); reads go through a rooted handle, so a symlink never leads out of it.
Checks: one per existence path, and per content entry one per pattern plus one for reading
the file. A file that cannot be read fails its read check and every one of its patterns. Score:
the share of checks that held; passed when none failed.

The workspace is the one `waza grade --workspace` names: read through the setup's
`workspace_dir` (relative to the working directory when relative), and shown in
`details.workspace_dir` as the user gave it (`workspace_shown`), as `waza grade` passes it on;
`waza grade` never has files captured during the run, so this reads the disk only. waza
compiles each pattern on every run; here each is compiled once, when the spec is loaded. A
file's bytes are matched as UTF-8 text, invalid bytes read as U+FFFD (Go's regexp does the
same, byte run by byte run).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from waza_ci.errors import InputError
from waza_ci.golang.regexp import ConfiguredPattern, compile_each, matches
from waza_ci.golang.strconv import go_quote
from waza_ci.graders.base import GoStruct, GraderJob
from waza_ci.graders.inprocess import GraderError, InProcessGrader, Outcome, fraction
from waza_ci.graders.output.text import string_list
from waza_ci.graders.params import config_error, decode_params
from waza_ci.graders.workspace.paths import RootedWorkspace, RootError, check_all_inside
from waza_ci.waza.spec import GraderSpec
from waza_ci.waza.spec_schema import STR, ListOf, Struct

ALL_PASSED = "All file checks passed"
NO_WORKSPACE = "No workspace directory available for file grading"
_CONTENT_PATTERN = Struct({"path": STR, "must_match": ListOf(STR), "must_not_match": ListOf(STR)})
_SHAPE = Struct(
    {
        "must_exist": ListOf(STR),
        "must_not_exist": ListOf(STR),
        "content_patterns": ListOf(_CONTENT_PATTERN),
    }
)


@dataclass(frozen=True)
class _ContentCheck:
    path: str
    must_match: tuple[ConfiguredPattern, ...]
    must_not_match: tuple[ConfiguredPattern, ...]


@dataclass(frozen=True)
class FileConfig:
    must_exist: list[str] | None
    must_not_exist: list[str] | None
    content: tuple[_ContentCheck, ...]
    content_details: list[dict[str, Any]] | None
    """`content_patterns` as waza prints them: each entry's `path`, and its lists when not empty."""
    paths: tuple[str, ...]
    """Every configured path, in the order waza checks that they lie inside the workspace."""
    checks: int


class FileGrader(InProcessGrader[FileConfig]):
    """waza's `file` grader kind."""

    kind = "file"

    def configure(self, grader: GraderSpec) -> FileConfig:
        params = decode_params(grader, "FileGraderParameters", _SHAPE)
        reject_unknown_fields(
            grader, "content_patterns", "FileGraderParameters", "FileContentPatternParameters",
            _CONTENT_PATTERN,
        )  # fmt: skip
        must_exist = string_list(params.get("must_exist"))
        must_not_exist = string_list(params.get("must_not_exist"))
        entries = params.get("content_patterns")
        if not must_exist and not must_not_exist and not entries:
            raise InputError(
                f"file grader {go_quote(grader.name)}: must specify at least one of "
                "config.must_exist, config.must_not_exist, or config.content_patterns",
                grader.location,
            )
        content = tuple(_content_check(entry or {}) for entry in entries or ())
        return FileConfig(
            must_exist=must_exist,
            must_not_exist=must_not_exist,
            content=content,
            content_details=None if entries is None else [_entry_details(c) for c in content],
            paths=(*(must_exist or ()), *(must_not_exist or ()), *(c.path for c in content)),
            checks=len(must_exist or ())
            + len(must_not_exist or ())
            + sum(len(c.must_match) + len(c.must_not_match) + 1 for c in content),
        )

    def evaluate(self, config: FileConfig, job: GraderJob) -> Outcome:
        workspace = job.setup.workspace_dir
        if not workspace:
            return Outcome(score=0.0, passed=False, feedback=NO_WORKSPACE)
        cwd = job.setup.working_directory
        check_all_inside(workspace, config.paths, cwd)
        try:
            root = RootedWorkspace(workspace, cwd)
        except RootError as err:
            raise GraderError(f"opening workspace for file grading: {err.text}") from None
        with root:
            failures = list(_existence_failures(config, root))
            for check in config.content:
                failures.extend(_content_failures(check, root))
        details: dict[str, Any] = {
            "must_exist": config.must_exist,
            "must_not_exist": config.must_not_exist,
            "content_patterns": config.content_details,
            "failures": failures or None,
            "workspace_dir": job.setup.workspace_shown,
        }
        return Outcome(
            score=fraction(config.checks, len(failures)),
            passed=not failures,
            feedback="; ".join(failures) or ALL_PASSED,
            details=details,
        )


def reject_unknown_fields(
    grader: GraderSpec, key: str, params_type: str, item_type: str, item_shape: Struct
) -> None:
    """The load error waza gives for an unknown key in an entry of the list `key` (yaml.v3
    names the entry's own struct, which the generic decoding cannot know)."""
    config = grader.config
    if not isinstance(config, yaml.MappingNode):
        return
    for name, value in config.value:
        if name.value != key or not isinstance(value, yaml.SequenceNode):
            continue
        for entry in value.value:
            if not isinstance(entry, yaml.MappingNode):
                continue
            for field, _ in entry.value:
                if str(field.value) in item_shape.fields or field.tag.endswith(":merge"):
                    continue
                line = field.start_mark.line - config.start_mark.line + 1
                raise config_error(
                    grader,
                    f"failed to decode grader parameters of type models.{params_type}: yaml: "
                    f"unmarshal errors: line {line}: field {field.value} not found in type "
                    f"models.{item_type}",
                    field,
                )


def _content_check(entry: dict[str, Any]) -> _ContentCheck:
    return _ContentCheck(
        path=str(entry.get("path") or ""),
        must_match=compile_each(string_list(entry.get("must_match"))),
        must_not_match=compile_each(string_list(entry.get("must_not_match"))),
    )


def _entry_details(check: _ContentCheck) -> GoStruct:
    # Go's struct with `omitempty` on both lists: an empty list is left out like an absent one.
    entry = GoStruct(path=check.path)
    if check.must_match:
        entry["must_match"] = [p.pattern for p in check.must_match]
    if check.must_not_match:
        entry["must_not_match"] = [p.pattern for p in check.must_not_match]
    return entry


def _existence_failures(config: FileConfig, root: RootedWorkspace) -> Iterator[str]:
    for path in config.must_exist or ():
        try:
            root.stat(path)
        except RootError as err:
            if err.not_exist:
                yield f"File must exist but not found: {path}"
            else:
                yield f"Failed to check required file {path}: {err.text}"
    for path in config.must_not_exist or ():
        try:
            root.stat(path)
        except RootError as err:
            if not err.not_exist:
                yield f"Failed to check forbidden file {path}: {err.text}"
        else:
            yield f"File must not exist but found: {path}"


def _content_failures(check: _ContentCheck, root: RootedWorkspace) -> Iterator[str]:
    path = check.path
    try:
        content = root.read(path).decode("utf-8", "replace")
    except RootError as err:
        if err.not_exist:
            yield f"File not found for content check: {path}"
        else:
            yield f"Failed to read file {path}: {err.text}"
        # waza counts every pattern of an unreadable file as failed, uncompiled.
        for pattern in check.must_match:
            yield f"File {path} missing expected pattern (file not found): {pattern.pattern}"
        for pattern in check.must_not_match:
            yield (
                f"File {path} could not verify absence of pattern (file not found): "
                f"{pattern.pattern}"
            )
        return
    for wanted, kind in ((True, "must_match"), (False, "must_not_match")):
        for pattern in check.must_match if wanted else check.must_not_match:
            if pattern.compiled is None:
                yield (
                    f"Invalid '{kind}' regex pattern {go_quote(pattern.pattern)} for file "
                    f"{path}: {pattern.error}"
                )
            elif wanted and not matches(pattern.compiled, content):
                yield f"File {path} missing expected pattern: {pattern.pattern}"
            elif not wanted and matches(pattern.compiled, content):
                yield f"File {path} contains forbidden pattern: {pattern.pattern}"
