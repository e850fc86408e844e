"""The `file` grader: waza's Go tests restated as a table over real workspaces (score,
passed, feedback, details), the paths waza refuses (Go errors), rooted reads, load-time
errors, and waza's own grader-challenge example graded from the shared corpus."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Project, make_results, make_run, require_shared, run_cli_process
from tests.graders.harness import Loaded, grade, grade_raw, grader_task
from waza_ci.errors import InputError
from waza_ci.graders import kind_of
from waza_ci.graders.workspace.file import ALL_PASSED, NO_WORKSPACE
from waza_ci.waza.spec import load_eval

Files = dict[str, str]


def file_grader(tmp_path: Path, config: dict[str, Any] | str) -> Loaded:
    body = config if isinstance(config, str) else json.dumps(config, ensure_ascii=False)
    return grader_task(tmp_path / "spec", f"name: t\ntype: file\nconfig: {body}\n")


def make_workspace(tmp_path: Path, files: Files) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    for name, content in files.items():
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return workspace


def grade_files(
    tmp_path: Path, config: dict[str, Any] | str, files: Files, workspace: str | None = None
) -> dict[str, Any]:
    root = make_workspace(tmp_path, files)
    loaded = file_grader(tmp_path, config)
    return grade_raw(
        loaded,
        "t",
        make_run(),
        workspace=str(root) if workspace is None else workspace,
        working_directory=tmp_path,
    )


def content_details(config: dict[str, Any]) -> list[dict[str, Any]] | None:
    entries = config.get("content_patterns")
    if entries is None:
        return None
    return [
        {key: entry[key] for key in ("must_match", "must_not_match", "path") if entry.get(key)}
        | {"path": entry.get("path", "")}
        for entry in entries
    ]


def expected_verdict(
    config: dict[str, Any], workspace: str, score: float, failures: list[str]
) -> dict[str, Any]:
    return {
        "identifier": "t",
        "type": "file",
        "score": score,
        "weight": 1.0,
        "passed": not failures,
        "feedback": "; ".join(failures) or ALL_PASSED,
        "details": {
            "content_patterns": content_details(config),
            "failures": failures or None,
            "must_exist": config.get("must_exist"),
            "must_not_exist": config.get("must_not_exist"),
            "workspace_dir": workspace,
        },
    }


GO_MAIN = 'func main() {\n\tfmt.Println("hello")\n}'

# waza's file_grader_test.go (and the file cases of challenge_corpus_test.go), case by case:
# (config, workspace files, score, failures).
GO_CASES = [
    pytest.param(
        {"must_exist": ["test.txt"]}, {"test.txt": "hello"}, 1.0, [], id="must_exist passes"
    ),
    pytest.param(
        {"must_exist": ["missing.txt"]},
        {},
        0.0,
        ["File must exist but not found: missing.txt"],
        id="must_exist fails when file missing",
    ),
    pytest.param(
        {"must_not_exist": ["should-not-exist.txt"]}, {}, 1.0, [], id="must_not_exist passes"
    ),
    pytest.param(
        {"must_not_exist": ["forbidden.txt"]},
        {"forbidden.txt": "oops"},
        0.0,
        ["File must not exist but found: forbidden.txt"],
        id="must_not_exist fails when file present",
    ),
    pytest.param(
        {"content_patterns": [{"path": "code.go", "must_match": ["func main", r"fmt\.Println"]}]},
        {"code.go": GO_MAIN},
        1.0,
        [],
        id="must_match passes",
    ),
    pytest.param(
        {"content_patterns": [{"path": "code.go", "must_match": ["func main"]}]},
        {"code.go": "package main"},
        0.5,
        ["File code.go missing expected pattern: func main"],
        id="must_match fails when pattern missing",
    ),
    pytest.param(
        {"content_patterns": [{"path": "safe.go", "must_not_match": ["panic", r"os\.Exit"]}]},
        {"safe.go": "func main() {}"},
        1.0,
        [],
        id="must_not_match passes when pattern absent",
    ),
    pytest.param(
        {"content_patterns": [{"path": "bad.go", "must_not_match": ["panic"]}]},
        {"bad.go": 'func main() { panic("boom") }'},
        0.5,
        ["File bad.go contains forbidden pattern: panic"],
        id="must_not_match fails when forbidden pattern found",
    ),
    pytest.param(
        {"content_patterns": [{"path": "missing.go", "must_match": ["anything"]}]},
        {},
        0.0,
        [
            "File not found for content check: missing.go",
            "File missing.go missing expected pattern (file not found): anything",
        ],
        id="content file not found",
    ),
    pytest.param(
        {
            "content_patterns": [
                {"path": "missing.go", "must_not_match": ["forbidden_pattern", "another_bad"]}
            ]
        },
        {},
        0.0,
        [
            "File not found for content check: missing.go",
            "File missing.go could not verify absence of pattern (file not found): "
            "forbidden_pattern",
            "File missing.go could not verify absence of pattern (file not found): another_bad",
        ],
        id="must_not_match on missing file reports unverifiable",
    ),
    pytest.param(
        {"must_exist": ["exists.txt", "missing.txt"], "must_not_exist": ["forbidden.txt"]},
        {"exists.txt": "content", "forbidden.txt": "bad"},
        1 / 3,
        [
            "File must exist but not found: missing.txt",
            "File must not exist but found: forbidden.txt",
        ],
        id="combined checks partial failure",
    ),
    pytest.param(
        {"content_patterns": [{"path": "test.txt", "must_match": ["[invalid"]}]},
        {"test.txt": "content"},
        0.5,
        [
            "Invalid 'must_match' regex pattern \"[invalid\" for file test.txt: "
            "error parsing regexp: missing closing ]: `[invalid`"
        ],
        id="invalid regex reports failure",
    ),
    pytest.param(
        {"content_patterns": [{"path": "test.txt", "must_not_match": ["[invalid_regex"]}]},
        {"test.txt": "content"},
        0.5,
        [
            "Invalid 'must_not_match' regex pattern \"[invalid_regex\" for file test.txt: "
            "error parsing regexp: missing closing ]: `[invalid_regex`"
        ],
        id="invalid regex in must_not_match reports failure",
    ),
    pytest.param(
        {
            "must_exist": ["src/pkg/main.go"],
            "content_patterns": [{"path": "src/pkg/main.go", "must_match": ["package main"]}],
        },
        {"src/pkg/main.go": "package main"},
        1.0,
        [],
        id="nested file paths work",
    ),
    pytest.param(
        {"must_exist": ["test.txt"], "must_not_exist": ["bad.txt"]},
        {"test.txt": "hello"},
        1.0,
        [],
        id="result details contains expected fields",
    ),
    pytest.param(
        {
            "must_exist": ["hello.txt"],
            "must_not_exist": ["bad.txt"],
            "content_patterns": [{"path": "hello.txt", "must_match": ["hello"]}],
        },
        {"hello.txt": "hello world"},
        1.0,
        [],
        id="via Create",
    ),
    pytest.param(
        {
            "content_patterns": [
                {
                    "path": "state.txt",
                    "must_match": ["(?m)^access=private$"],
                    "must_not_match": ["(?m)^access=public$"],
                }
            ]
        },
        {"state.txt": "access=private\naccess=public\n"},
        2 / 3,
        ["File state.txt contains forbidden pattern: (?m)^access=public$"],
        id="challenge: contradictory state",
    ),
    pytest.param(
        {"content_patterns": [{"path": "state.txt", "must_match": ["^ready$"]}]},
        {},
        0.0,
        [
            "File not found for content check: state.txt",
            "File state.txt missing expected pattern (file not found): ^ready$",
        ],
        id="challenge: missing evidence file",
    ),
]


@pytest.mark.parametrize(("config", "files", "score", "failures"), GO_CASES)
def test_waza_go_cases(
    tmp_path: Path, config: dict[str, Any], files: Files, score: float, failures: list[str]
) -> None:
    raw = grade_files(tmp_path, config, files)
    assert raw == expected_verdict(config, str(tmp_path / "ws"), score, failures)


CORPUS_STATE = r"(?m)^{field}[ \t]*=[ \t]*{value}[ \t]*$"


@pytest.mark.parametrize(
    ("state", "score"),
    [
        pytest.param("target=staging\n", 1.0, id="known-good"),
        pytest.param("# equivalent state\ntarget = staging\n", 1.0, id="alternative-valid"),
        pytest.param("target=production\n", 1 / 3, id="bad-wrong-state"),
    ],
)
def test_challenge_corpus_outcome_scores(tmp_path: Path, state: str, score: float) -> None:
    config = {
        "content_patterns": [
            {
                "path": "config.state",
                "must_match": [CORPUS_STATE.format(field="target", value="staging")],
                "must_not_match": [CORPUS_STATE.format(field="target", value="production")],
            }
        ]
    }
    raw = grade_files(tmp_path, config, {"config.state": state})
    assert (raw["score"], raw["passed"]) == (score, score == 1.0)


def test_no_workspace_fails_without_details(tmp_path: Path) -> None:
    raw = grade_files(tmp_path, {"must_exist": ["file.txt"]}, {}, workspace="")
    assert raw == {
        "identifier": "t",
        "type": "file",
        "score": 0.0,
        "weight": 1.0,
        "passed": False,
        "feedback": NO_WORKSPACE,
    }


def test_a_symlink_cannot_lead_out_of_the_workspace(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    workspace = make_workspace(tmp_path, {})
    os.symlink(outside, workspace / "escape")
    config = {
        "must_exist": ["escape/secret.txt"],
        "content_patterns": [{"path": "escape/secret.txt", "must_match": ["secret"]}],
    }
    raw = grade_files(tmp_path, config, {})
    assert raw == expected_verdict(
        config,
        str(workspace),
        0.0,
        [
            "Failed to check required file escape/secret.txt: statat escape/secret.txt: "
            "path escapes from parent",
            "Failed to read file escape/secret.txt: openat escape/secret.txt: "
            "path escapes from parent",
            "File escape/secret.txt missing expected pattern (file not found): secret",
        ],
    )


def test_directories_exist_and_unreadable_files_exist(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path, {"forbidden-unreadable.txt": "secret"})
    (workspace / "required-dir").mkdir()
    (workspace / "forbidden-dir").mkdir()
    (workspace / "forbidden-unreadable.txt").chmod(0)
    config = {
        "must_exist": ["required-dir"],
        "must_not_exist": ["forbidden-dir", "forbidden-unreadable.txt", "node_modules/"],
    }
    raw = grade_files(tmp_path, config, {})
    assert raw["feedback"] == (
        "File must not exist but found: forbidden-dir; "
        "File must not exist but found: forbidden-unreadable.txt"
    )
    assert raw["score"] == 0.5


def test_a_directory_read_for_content_fails_with_gos_read_error(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path, {"sub/x": ""})
    config = {"content_patterns": [{"path": "sub", "must_match": ["x"]}]}
    raw = grade_files(tmp_path, config, {}, workspace="ws")
    assert raw["feedback"] == (
        "Failed to read file sub: read ws/sub: is a directory; "
        "File sub missing expected pattern (file not found): x"
    )
    assert raw["details"]["workspace_dir"] == "ws"
    assert workspace.is_dir()


def test_relative_workspace_is_used_verbatim_against_the_working_directory(
    tmp_path: Path,
) -> None:
    make_workspace(tmp_path, {"a.txt": "x"})
    raw = grade_files(tmp_path, {"must_exist": ["./a.txt"]}, {}, workspace="./ws")
    assert (raw["passed"], raw["details"]["workspace_dir"]) == (True, "./ws")


def test_content_patterns_with_no_patterns_count_one_read_check(tmp_path: Path) -> None:
    config = {"content_patterns": [{"path": "a.txt"}, {"path": "b.txt", "must_match": []}]}
    raw = grade_files(tmp_path, config, {"a.txt": ""})
    assert raw["score"] == 0.5
    assert raw["feedback"] == "File not found for content check: b.txt"
    assert raw["details"]["content_patterns"] == [{"path": "a.txt"}, {"path": "b.txt"}]


def test_content_is_matched_as_go_text(tmp_path: Path) -> None:
    config = {
        "content_patterns": [
            {"path": "a.txt", "must_match": ["^original\n$", r"\x{FFFD}"], "must_not_match": ["x$"]}
        ]
    }
    workspace = make_workspace(tmp_path, {})
    (workspace / "a.txt").write_bytes(b"original\n\xff" + b"x\n")
    raw = grade_files(tmp_path, config, {})
    # `^original\n$` needs the newline to end the text; the invalid byte reads as U+FFFD;
    # `x$` does not match before the final newline (Go's `$` is the end of the text).
    assert raw["feedback"] == "File a.txt missing expected pattern: ^original\n$"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param(
            {"must_exist": ["../../etc/passwd"]},
            'path "../../etc/passwd" resolves to "{up2}/etc/passwd" which is outside '
            'workspace "{ws}"',
            id="path traversal in must_exist",
        ),
        pytest.param(
            {"must_not_exist": ["../secret.key"]},
            'path "../secret.key" resolves to "{up1}/secret.key" which is outside workspace "{ws}"',
            id="path traversal in must_not_exist",
        ),
        pytest.param(
            {"content_patterns": [{"path": "../../../etc/shadow", "must_match": ["root"]}]},
            'path "../../../etc/shadow" resolves to "{up3}/etc/shadow" which is outside '
            'workspace "{ws}"',
            id="path traversal in content_patterns",
        ),
        pytest.param(
            {"must_exist": ["/etc/passwd"]},
            'path "/etc/passwd" is absolute and not relative to workspace "{ws}"',
            id="absolute path",
        ),
        pytest.param(
            {"must_exist": ["ok.txt"], "content_patterns": [{"path": "", "must_match": ["x"]}]},
            'path "" resolves to "{ws}" which is outside workspace "{ws}"',
            id="empty content path",
        ),
        pytest.param(
            {"must_exist": ["."]},
            'path "." resolves to "{ws}" which is outside workspace "{ws}"',
            id="the workspace itself",
        ),
    ],
)
def test_paths_outside_the_workspace_are_grader_errors(
    tmp_path: Path, config: dict[str, Any], message: str
) -> None:
    workspace = make_workspace(tmp_path, {})
    loaded = file_grader(tmp_path, config)
    result = grade(loaded, "t", make_run(), workspace=str(workspace), working_directory=tmp_path)
    text = "failed to run grader t: " + message.format(
        ws=workspace, up1=workspace.parent, up2=workspace.parents[1], up3=workspace.parents[2]
    )
    assert result.verdict.error == text
    assert (result.raw["feedback"], result.raw["passed"], result.raw["score"]) == (text, False, 0)
    assert "details" not in result.raw


def test_a_missing_workspace_is_a_grader_error(tmp_path: Path) -> None:
    loaded = file_grader(tmp_path, {"must_exist": ["a"]})
    result = grade(loaded, "t", make_run(), workspace="gone", working_directory=tmp_path)
    assert result.verdict.error == (
        "failed to run grader t: opening workspace for file grading: "
        "open gone: no such file or directory"
    )


@pytest.mark.parametrize(
    ("config", "checks"),
    [
        ({"must_exist": ["a.txt", "b.txt"]}, 2),
        ({"must_not_exist": ["a.txt"]}, 1),
        ({"content_patterns": [{"path": "f.go", "must_match": ["a", "b"]}]}, 3),
        ({"content_patterns": [{"path": "f.go", "must_not_match": ["x"]}]}, 2),
        (
            {
                "content_patterns": [
                    {"path": "f.go", "must_match": ["a"], "must_not_match": ["b", "c"]}
                ]
            },
            4,
        ),
        (
            {
                "content_patterns": [
                    {"path": "a.go", "must_match": ["x"]},
                    {"path": "b.go", "must_not_match": ["y"]},
                ]
            },
            4,
        ),
        (
            {
                "must_exist": ["a.txt", "b.txt"],
                "must_not_exist": ["c.txt"],
                "content_patterns": [
                    {"path": "d.go", "must_match": ["p1", "p2"], "must_not_match": ["p3"]}
                ],
            },
            7,
        ),
    ],
)
def test_count_total_checks(tmp_path: Path, config: dict[str, Any], checks: int) -> None:
    grader = file_grader(tmp_path, config).grader("t")
    kind = kind_of(grader)
    assert kind is not None
    assert kind.configure(grader).checks == checks


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param(
            "{}",
            'file grader "t": must specify at least one of config.must_exist, '
            "config.must_not_exist, or config.content_patterns",
            id="no checks",
        ),
        pytest.param(
            "{must_exist: [], content_patterns: []}",
            'file grader "t": must specify at least one of config.must_exist, '
            "config.must_not_exist, or config.content_patterns",
            id="only empty lists",
        ),
        pytest.param(
            "{must_exists: [a]}",
            'invalid grader config for "t" (type "file"): failed to decode grader parameters '
            "of type models.FileGraderParameters: yaml: unmarshal errors: line 1: field "
            "must_exists not found in type models.FileGraderParameters",
            id="unknown key",
        ),
        pytest.param(
            "\n  content_patterns:\n    - path: a\n      must_matches: [x]",
            'invalid grader config for "t" (type "file"): failed to decode grader parameters '
            "of type models.FileGraderParameters: yaml: unmarshal errors: line 3: field "
            "must_matches not found in type models.FileContentPatternParameters",
            id="unknown key in a content pattern",
        ),
        pytest.param(
            "{content_patterns: [{path: a, must_match: x}]}",
            'invalid grader config for "t" (type "file"): failed to decode grader parameters '
            "of type models.FileGraderParameters: yaml: unmarshal errors: line 1: cannot "
            "unmarshal !!str `x` into []string",
            id="scalar where a list is wanted",
        ),
    ],
)
def test_load_time_errors_in_wazas_words(tmp_path: Path, config: str, message: str) -> None:
    grader = file_grader(tmp_path, config).grader("t")
    kind = kind_of(grader)
    assert kind is not None
    with pytest.raises(InputError) as raised:
        kind.configure(grader)
    assert raised.value.message == message


@pytest.mark.parametrize(
    ("candidate", "score"),
    [("good", 1.0), ("alternative-valid", 1.0), ("bad-wrong-state", 1 / 3)],
)
def test_wazas_cli_target_challenge(candidate: str, score: float) -> None:
    folder = require_shared("waza-samples") / "grader-challenges-cli-target"
    spec = load_eval(folder / "grade.yaml", working_directory=folder)
    loaded = Loaded(spec, spec.tasks[0])
    workspace = str(folder / "workspaces" / candidate)
    raw = grade_raw(loaded, "outcome", make_run(), workspace=workspace, working_directory=folder)
    assert (raw["score"], raw["passed"]) == (score, score == 1.0)
    assert raw["details"]["workspace_dir"] == workspace


@pytest.mark.parametrize("given", ["workspace", "./workspace/", "sub/../workspace"])
def test_the_command_keeps_the_workspace_as_given_in_details(project: Project, given: str) -> None:
    # waza grade passes --workspace on verbatim; the files are read through the path made
    # absolute against waza-ci's own directory (here the project root, not --working-directory).
    (project.workspace / "made.txt").write_text("done\n")
    (project.root / "sub").mkdir()
    (project.root / "elsewhere").mkdir()
    project.write_eval(
        "- {name: made, type: file, config: {must_exist: [made.txt]}}\n"
        "- name: same\n  type: diff\n"
        "  config: {expected_files: [{path: made.txt, contains: [+done]}]}\n"
    )
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run()]}))
    output = project.root / "out.json"
    args = [*project.grade_args(), "--output", str(output)]
    args[args.index("--workspace") + 1] = given
    args[args.index("--working-directory") + 1] = "elsewhere"
    done = run_cli_process(args, cwd=project.root)
    assert done.code == 0, done.stderr
    validations = json.loads(output.read_text())["tasks"][0]["runs"][0]["validations"]
    assert {
        name: (v["passed"], v["details"]["workspace_dir"]) for name, v in validations.items()
    } == {
        "made": (True, given),
        "same": (True, given),
    }
