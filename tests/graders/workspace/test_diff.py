"""The `diff` grader: waza's Go tests restated over real workspaces and snapshot folders,
`update_snapshots` graded as waza grades it without writing anything (and said so), snapshot
paths and context directories as Go resolves them, fragments, Go errors and load-time errors."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Project, make_results, make_run, run_cli_process
from tests.graders.harness import Loaded, grade, grader_task
from waza_ci.errors import InputError
from waza_ci.graders import kind_of
from waza_ci.graders.base import GraderResult
from waza_ci.graders.workspace.diff import (
    ALL_PASSED,
    NO_WORKSPACE,
    SNAPSHOT_UPDATE_WARNING,
    changed_lines,
)

Files = dict[str, str]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def ctx(tmp_path: Path) -> Path:
    folder = tmp_path / "ctx"
    folder.mkdir()
    return folder


def write(folder: Path, files: Files) -> None:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8"))


def diff_grader(tmp_path: Path, config: dict[str, Any] | str) -> Loaded:
    body = config if isinstance(config, str) else json.dumps(config, ensure_ascii=False)
    return grader_task(tmp_path / "spec", f"name: t\ntype: diff\nconfig: {body}\n")


def run_diff(
    tmp_path: Path, config: dict[str, Any] | str, workspace: str | Path | None = None
) -> GraderResult:
    folder = tmp_path / "ws" if workspace is None else workspace
    return grade(
        diff_grader(tmp_path, config),
        "t",
        make_run(),
        workspace=str(folder),
        working_directory=tmp_path,
    )


def warnings_of(tmp_path: Path, config: dict[str, Any]) -> tuple[str, ...]:
    grader = diff_grader(tmp_path / "again", config).grader("t")
    kind = kind_of(grader)
    assert kind is not None
    return kind.warnings(grader, kind.configure(grader))


def verdict(result: GraderResult) -> dict[str, Any]:
    raw = dict(result.raw)
    raw.pop("duration_ms")
    return raw


def expected_files(config: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {key: entry[key] for key in ("contains", "path", "snapshot") if entry.get(key)}
        for entry in config["expected_files"]
    ]


def expected_verdict(
    config: dict[str, Any],
    workspace: Path,
    score: float,
    failures: list[str],
    *,
    feedback: str | None = None,
    updates: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "identifier": "t",
        "type": "diff",
        "score": score,
        "weight": 1.0,
        "passed": not failures,
        "feedback": feedback or "; ".join(failures) or ALL_PASSED,
        "details": {
            "expected_files": expected_files(config),
            "failures": failures or None,
            "snapshot_updates": updates or [],
            "workspace_dir": str(workspace),
        },
    }


def test_snapshot_mismatch_fails_without_update(tmp_path: Path, ws: Path, ctx: Path) -> None:
    write(ws, {"output.txt": "new content"})
    write(ctx, {"expected.txt": "old content"})
    config = {
        "expected_files": [{"path": "output.txt", "snapshot": "expected.txt"}],
        "context_dir": str(ctx),
    }
    result = run_diff(tmp_path, config)
    assert verdict(result) == expected_verdict(
        config, ws, 0.5, ["File output.txt does not match snapshot expected.txt"]
    )
    assert result.verdict.notes == ()
    assert warnings_of(tmp_path, config) == ()


def test_update_snapshots_is_wazas_verdict_and_writes_nothing(
    tmp_path: Path, ws: Path, ctx: Path
) -> None:
    # waza: passes, "1 updated, 1 created", and rewrites ctx/expected; waza-ci: the same
    # verdict, lines changed counted as waza counts them (by position), and no file written.
    write(ws, {"changed.txt": "line 1\nline 2\n", "new.txt": "brand new\n"})
    write(ctx, {"expected/changed.txt": "old line\n"})
    config = {
        "expected_files": [
            {"path": "changed.txt", "snapshot": "expected/changed.txt"},
            {"path": "new.txt", "snapshot": "expected/new.txt"},
        ],
        "context_dir": str(ctx),
        "update_snapshots": True,
    }
    result = run_diff(tmp_path, config)
    assert verdict(result) == expected_verdict(
        config,
        ws,
        1.0,
        [],
        feedback="All diff checks passed (snapshots: 1 updated, 1 created, 0 unchanged)",
        updates=[
            {
                "path": "changed.txt",
                "snapshot": "expected/changed.txt",
                "status": "updated",
                "lines_changed": 2,
            },
            {
                "path": "new.txt",
                "snapshot": "expected/new.txt",
                "status": "created",
                "lines_changed": 1,
            },
        ],
    )
    assert list(result.raw["details"]["snapshot_updates"][0]) == [
        "path", "snapshot", "status", "lines_changed"
    ]  # fmt: skip
    assert result.verdict.notes == ()  # said once, before grading, not per run
    assert warnings_of(tmp_path, config) == (f'diff grader "t": {SNAPSHOT_UPDATE_WARNING}',)
    assert (ctx / "expected" / "changed.txt").read_text() == "old line\n"
    assert sorted(p.name for p in (ctx / "expected").iterdir()) == ["changed.txt"]


@pytest.mark.parametrize(
    ("before", "after", "changed"),
    [
        (b"", b"brand new\n", 1),
        (b"old line\n", b"line 1\nline 2\n", 2),
        (b"a\r\nb\r\n", b"a\nb\n", 0),
        (b"a\nb\nc", b"a\nc", 2),
        (b"same", b"same", 0),
    ],
)
def test_changed_lines_are_counted_by_position_as_waza_counts_them(
    before: bytes, after: bytes, changed: int
) -> None:
    assert changed_lines(before, after) == changed


def test_a_snapshot_that_cannot_be_read_still_fails_when_updating(
    tmp_path: Path, ws: Path, ctx: Path
) -> None:
    write(ws, {"out.txt": "x"})
    (ctx / "expected").mkdir()  # a directory where the snapshot file should be
    config = {
        "expected_files": [{"path": "out.txt", "snapshot": "expected"}],
        "context_dir": str(ctx),
        "update_snapshots": True,
    }
    result = run_diff(tmp_path, config)
    assert result.raw["feedback"] == (
        f"Failed to read snapshot file expected for out.txt: read {ctx}/expected: is a directory"
    )


def test_update_snapshots_with_nothing_to_change_is_wazas_verdict(
    tmp_path: Path, ws: Path, ctx: Path
) -> None:
    write(ws, {"stable.txt": "same\n"})
    write(ctx, {"expected.txt": "same\n"})
    config = {
        "expected_files": [{"path": "stable.txt", "snapshot": "expected.txt"}],
        "context_dir": str(ctx),
        "update_snapshots": True,
    }
    result = run_diff(tmp_path, config)
    assert verdict(result) == expected_verdict(
        config,
        ws,
        1.0,
        [],
        feedback="All diff checks passed (snapshots: 0 updated, 0 created, 1 unchanged)",
        updates=[
            {
                "lines_changed": 0,
                "path": "stable.txt",
                "snapshot": "expected.txt",
                "status": "unchanged",
            }
        ],
    )
    assert result.verdict.notes == ()  # said once, before grading, not per run
    assert warnings_of(tmp_path, config) == (f'diff grader "t": {SNAPSHOT_UPDATE_WARNING}',)


def test_update_snapshots_blocks_path_traversal(tmp_path: Path, ws: Path, ctx: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    write(ws, {"stable.txt": "same\n"})
    escape = os.path.relpath(outside / "escape.txt", ctx)
    config = {
        "expected_files": [{"path": "stable.txt", "snapshot": escape}],
        "context_dir": str(ctx),
        "update_snapshots": True,
    }
    result = run_diff(tmp_path, config)
    assert verdict(result) == expected_verdict(
        config,
        ws,
        0.5,
        [f"Invalid snapshot file {escape} for stable.txt: path escapes context directory"],
    )
    assert not (outside / "escape.txt").exists()


# The captured-files tests of waza (PR #196) restated for `waza grade`, which reads the disk.
FRAGMENT_CASES = [
    pytest.param(
        {"result.txt": "hello world"}, "result.txt", ["+hello world"], 1.0, [], id="on disk"
    ),
    pytest.param(
        {"config.yaml": "key: old_value\n"},
        "config.yaml",
        ["+key: new_value"],
        0.5,
        ["File config.yaml missing expected fragment: key: new_value"],
        id="missing fragment fails",
    ),
    pytest.param(
        {},
        "missing.txt",
        ["+something"],
        0.0,
        [
            "Expected file not found in workspace: missing.txt",
            "Contains check skipped (file not found): missing.txt \u2192 +something",
        ],
        id="file in neither capture nor disk",
    ),
    pytest.param(
        {"api-version.ts": 'export const previewVersion = "@previewVersion";\n'},
        "api-version.ts",
        ["+@previewVersion", '+v2025-05-04-preview: "2025-05-04-preview"'],
        2 / 3,
        [
            "File api-version.ts missing expected fragment: v2025-05-04-preview: "
            '"2025-05-04-preview"'
        ],
        id="fragments are substrings",
    ),
    pytest.param(
        {"a.py": "def f():\n    return 42\n"},
        "a.py",
        ["+    return 42", "-return 41", "return", "- def f", "", "+   ", "-"],
        7 / 8,
        ["File a.py contains fragment that should be absent: def f"],
        id="prefixes, trimming, empty fragments pass",
    ),
    pytest.param(
        {"a.txt": "x\u00a0y"},
        "a.txt",
        ["+\u3000x\u00a0y\u00a0"],
        1.0,
        [],
        id="Go's white space is trimmed",
    ),
    pytest.param(
        {"a.txt": "abc"},
        "a.txt",
        ["+\x1fabc"],
        0.5,
        ["File a.txt missing expected fragment: \x1fabc"],
        id="ASCII separator controls are not white space to Go",
    ),
    pytest.param(
        {"a.txt": "ok"},
        "b.txt",
        ["", "+x"],
        0.0,
        [
            "Expected file not found in workspace: b.txt",
            "Contains check skipped (file not found): b.txt \u2192 ",
            "Contains check skipped (file not found): b.txt \u2192 +x",
        ],
        id="every fragment of a missing file fails, empty ones too",
    ),
]


@pytest.mark.parametrize(("files", "path", "contains", "score", "failures"), FRAGMENT_CASES)
def test_fragments(
    tmp_path: Path,
    ws: Path,
    files: Files,
    path: str,
    contains: list[str],
    score: float,
    failures: list[str],
) -> None:
    write(ws, files)
    config = {"expected_files": [{"path": path, "contains": contains}]}
    assert verdict(run_diff(tmp_path, config)) == expected_verdict(config, ws, score, failures)


def test_snapshot_is_read_against_the_working_directory_without_context_dir(
    tmp_path: Path, ws: Path
) -> None:
    write(ws, {"a.txt": "one\r\n", "b.txt": "two\n"})
    write(tmp_path, {"snaps/a.txt": "one\n", "snaps/b.txt": "two\n"})
    config = {
        "expected_files": [
            {"path": "a.txt", "snapshot": "snaps/a.txt", "contains": ["one"]},
            {"path": "b.txt", "snapshot": "snaps/b.txt"},
        ]
    }
    assert verdict(run_diff(tmp_path, config)) == expected_verdict(
        config, ws, 4 / 5, ["File a.txt does not match snapshot snaps/a.txt"]
    )


def test_snapshot_errors(tmp_path: Path, ws: Path, ctx: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, {"x.txt": "x"})
    os.symlink(outside, ctx / "link")
    (ctx / "dir").mkdir()
    write(ws, {"f.txt": "x"})
    config = {
        "expected_files": [
            {"path": "f.txt", "snapshot": "link/x.txt"},
            {"path": "f.txt", "snapshot": "dir"},
            {"path": "f.txt", "snapshot": str(outside / "x.txt")},
            {"path": "f.txt", "snapshot": "nodir/x.txt"},
        ],
        "context_dir": "ctx",
    }
    assert verdict(run_diff(tmp_path, config))["details"]["failures"] == [
        "Invalid snapshot file link/x.txt for f.txt: path escapes context directory",
        f"Failed to read snapshot file dir for f.txt: read {ctx}/dir: is a directory",
        f"Invalid snapshot file {outside}/x.txt for f.txt: path escapes context directory",
        f"Invalid snapshot file nodir/x.txt for f.txt: lstat {ctx}/nodir: "
        "no such file or directory",
    ]


def test_a_missing_context_dir_fails_the_snapshot_check(tmp_path: Path, ws: Path) -> None:
    write(ws, {"f.txt": "x"})
    config = {
        "expected_files": [{"path": "f.txt", "snapshot": "s.txt"}],
        "context_dir": "missing/ctx",
    }
    assert verdict(run_diff(tmp_path, config))["feedback"] == (
        f"Invalid snapshot file s.txt for f.txt: lstat {tmp_path}/missing: "
        "no such file or directory"
    )


def test_symlinks_inside_the_context_dir_are_followed(tmp_path: Path, ws: Path, ctx: Path) -> None:
    write(ctx, {"real/s.txt": "x"})
    os.symlink("real", ctx / "alias")
    write(ws, {"f.txt": "x"})
    config = {
        "expected_files": [{"path": "f.txt", "snapshot": "alias/s.txt"}],
        "context_dir": str(ctx / "alias" / ".."),
    }
    assert verdict(run_diff(tmp_path, config))["passed"] is True


def test_unreadable_workspace_entries_count_as_not_found(
    tmp_path: Path, ws: Path, ctx: Path
) -> None:
    write(tmp_path, {"outside/secret.txt": "secret"})
    os.symlink(tmp_path / "outside", ws / "escape")
    (ws / "sub").mkdir()
    config = {
        "expected_files": [
            {"path": "escape/secret.txt", "contains": ["secret"]},
            {"path": "sub", "snapshot": "s.txt"},
        ]
    }
    assert verdict(run_diff(tmp_path, config))["details"]["failures"] == [
        "Expected file not found in workspace: escape/secret.txt",
        "Contains check skipped (file not found): escape/secret.txt \u2192 secret",
        "Expected file not found in workspace: sub",
        "Snapshot comparison skipped (file not found): sub",
    ]


def test_no_workspace_fails_without_details(tmp_path: Path) -> None:
    result = run_diff(tmp_path, {"expected_files": [{"path": "a", "contains": ["x"]}]}, "")
    assert verdict(result) == {
        "identifier": "t",
        "type": "diff",
        "score": 0.0,
        "weight": 1.0,
        "passed": False,
        "feedback": NO_WORKSPACE,
    }


@pytest.mark.parametrize(
    ("config", "error"),
    [
        pytest.param(
            {"expected_files": [{"path": "../x", "contains": ["a"]}]},
            'failed to run grader t: path "../x" resolves to "{tmp}/x" which is outside '
            'workspace "{tmp}/ws"',
            id="path outside the workspace",
        ),
        pytest.param(
            {"expected_files": [{"path": "/etc/hosts", "contains": ["a"]}]},
            'failed to run grader t: path "/etc/hosts" is absolute and not relative to '
            'workspace "{tmp}/ws"',
            id="absolute path",
        ),
        pytest.param(
            {"expected_files": [{"contains": ["a"]}]},
            "failed to create grader t: diff grader 't': expected_files[0] missing required 'path'",
            id="entry without path",
        ),
        pytest.param(
            {"expected_files": [{"path": "a", "contains": ["x"]}, {"path": "b.txt"}]},
            "failed to create grader t: diff grader 't': expected_files[1] ('b.txt') must "
            "have 'snapshot' or 'contains'",
            id="entry with nothing to check",
        ),
        pytest.param(
            {"expected_files": [{"path": "b.txt", "contains": []}]},
            "failed to create grader t: diff grader 't': expected_files[0] ('b.txt') must "
            "have 'snapshot' or 'contains'",
            id="empty contains is nothing to check",
        ),
    ],
)
def test_go_errors(tmp_path: Path, ws: Path, config: dict[str, Any], error: str) -> None:
    result = run_diff(tmp_path, config)
    assert result.verdict.error == error.format(tmp=tmp_path)
    assert "details" not in result.raw


def test_a_missing_workspace_is_a_grader_error(tmp_path: Path) -> None:
    result = run_diff(tmp_path, {"expected_files": [{"path": "a", "contains": ["x"]}]}, "gone")
    assert result.verdict.error == (
        "failed to run grader t: opening workspace for diff grading: "
        "open gone: no such file or directory"
    )


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param(
            "{context_dir: x}",
            'diff grader "t": must have at least one file in config.expected_files',
            id="no expected files",
        ),
        pytest.param(
            "{expected_files: []}",
            'diff grader "t": must have at least one file in config.expected_files',
            id="empty expected files",
        ),
        pytest.param(
            "\n  expected_files:\n    - path: a\n      contain: [x]",
            'invalid grader config for "t" (type "diff"): failed to decode grader parameters '
            "of type models.DiffGraderParameters: yaml: unmarshal errors: line 3: field "
            "contain not found in type models.DiffExpectedFileParameters",
            id="unknown key in an entry",
        ),
        pytest.param(
            "{expected_files: [{path: a, contains: [x]}], update_snapshots: maybe}",
            'invalid grader config for "t" (type "diff"): failed to decode grader parameters '
            "of type models.DiffGraderParameters: yaml: unmarshal errors: line 1: cannot "
            "unmarshal !!str `maybe` into bool",
            id="not a bool",
        ),
    ],
)
def test_load_time_errors_in_wazas_words(tmp_path: Path, config: str, message: str) -> None:
    grader = diff_grader(tmp_path, config).grader("t")
    kind = kind_of(grader)
    assert kind is not None
    with pytest.raises(InputError) as raised:
        kind.configure(grader)
    assert raised.value.message == message


def test_check_count(tmp_path: Path) -> None:
    config = {
        "expected_files": [
            {"path": "a", "snapshot": "s", "contains": ["x", "y"]},
            {"path": "b", "contains": [""]},
        ]
    }
    grader = diff_grader(tmp_path, config).grader("t")
    kind = kind_of(grader)
    assert kind is not None
    assert kind.configure(grader).checks == 6


@pytest.mark.slow
def test_the_command_gives_wazas_verdicts_warns_once_and_writes_no_snapshot(
    project: Project,
) -> None:
    # `update_snapshots: true` is graded as waza grades it: the first run updates the
    # snapshot, so the second finds it unchanged; nothing is written, said in one warning.
    (project.workspace / "out.txt").write_text("new\n")
    snapshots = project.root / "snapshots"
    snapshots.mkdir()
    (snapshots / "out.txt").write_text("old\n")
    project.write_eval(
        "- name: same\n  type: diff\n  config:\n    update_snapshots: true\n"
        "    expected_files: [{path: out.txt, snapshot: snapshots/out.txt}]\n"
    )
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run(1), make_run(2)]}))
    before = sorted((p.name, p.read_bytes()) for p in snapshots.iterdir())
    output = project.root / "out.json"
    done = run_cli_process([*project.grade_args(), "--output", str(output)], cwd=project.root)
    assert done.code == 0, done.stderr
    runs = json.loads(output.read_text())["tasks"][0]["runs"]
    assert [run["validations"]["same"]["feedback"] for run in runs] == [
        "All diff checks passed (snapshots: 1 updated, 0 created, 0 unchanged)",
        "All diff checks passed (snapshots: 0 updated, 0 created, 1 unchanged)",
    ]
    warnings = [line for line in done.stderr.splitlines() if "update_snapshots" in line]
    assert len(warnings) == 1, done.stderr
    assert "no snapshot file is written" in warnings[0] and "eval.yaml:" in warnings[0]
    assert sorted((p.name, p.read_bytes()) for p in snapshots.iterdir()) == before
    assert (project.workspace / "out.txt").read_text() == "new\n"
