"""`tool_constraint`: waza's Go tests (tool_constraint_grader_test.go, tool_names_test.go)
restated as tables, then descriptions, details, construction and load errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.graders.harness import grade_raw, grader_task
from waza_ci.errors import InputError
from waza_ci.graders import KINDS
from waza_ci.graders.session.tool_names import canonical_tool_name, matches_tool_call_name

PASSED = "All tool constraint checks passed"


def _call(name: str, **arguments: str) -> dict[str, Any]:
    return {"id": "", "name": name, "arguments": arguments}


def _run(*calls: dict[str, Any], **digest: Any) -> dict[str, Any]:
    names = [call["name"] for call in calls]
    session = {"tool_call_count": len(calls), "tools_used": names, "tool_calls": list(calls)}
    return {"run_number": 1, "status": "passed", "session_digest": {**session, **digest}}


def _grade(tmp_path: Path, config: str, run: dict[str, Any]) -> dict[str, Any]:
    loaded = grader_task(tmp_path, f"name: tc\ntype: tool_constraint\nconfig: {config}")
    return grade_raw(loaded, "tc", run)


BASH_EDIT = "{expect_tools: [{tool: bash}, {tool: edit}]}"

# (config, run, score, passed, feedback)
GO_CASES = [
    pytest.param(
        BASH_EDIT,
        _run(_call("bash"), _call("edit"), _call("view")),
        1.0,
        True,
        PASSED,
        id="expect-tools-pass",
    ),
    pytest.param(
        BASH_EDIT,
        _run(_call("bash"), _call("view")),
        0.5,
        False,
        "Expected tool not used: edit",
        id="expect-tools-fail",
    ),
    pytest.param(
        "{reject_tools: [{tool: create_file}]}",
        _run(_call("bash"), _call("edit")),
        1.0,
        True,
        PASSED,
        id="reject-tools-pass",
    ),
    pytest.param(
        "{reject_tools: [{tool: create_file}, {tool: delete}]}",
        _run(_call("bash"), _call("create_file")),
        0.5,
        False,
        "Rejected tool was used: create_file",
        id="reject-tools-fail",
    ),
    pytest.param(
        "{expect_tools: [{tool: bash}, {tool: edit}], reject_tools: [{tool: create_file}]}",
        _run(
            _call("bash"), _call("edit"), _call("view"), usage={"turns": 10, "input_tokens": 4000}
        ),
        1.0,
        True,
        PASSED,
        id="all-constraints-pass",
    ),
    pytest.param(
        "{expect_tools: [{tool: bash}, {tool: edit}], reject_tools: [{tool: create_file}]}",
        _run(_call("bash"), _call("create_file"), usage={"turns": 10, "input_tokens": 8000}),
        1 / 3,
        False,
        "Expected tool not used: edit; Rejected tool was used: create_file",
        id="all-constraints-partial-fail",
    ),
    pytest.param(
        "{expect_tools: [{tool: bash}], reject_tools: [{tool: delete}]}",
        _run(),
        0.5,
        False,
        "Expected tool not used: bash",
        id="empty-tools-used",
    ),
    pytest.param(
        "{expect_tools: [{tool: bash}]}",
        _run(_call("bash"), _call("edit")),
        1.0,
        True,
        PASSED,
        id="structured-expect-tool-name-only",
    ),
    pytest.param(
        r"{expect_tools: [{tool: bash, command_pattern: 'azd\s+up'}]}",
        _run(_call("bash", command="azd up --region eastus")),
        1.0,
        True,
        PASSED,
        id="structured-expect-command-pattern-pass",
    ),
    pytest.param(
        r"{expect_tools: [{tool: bash, command_pattern: 'azd\s+up'}]}",
        _run(_call("bash", command="git status")),
        0.0,
        False,
        r"Expected tool not used: bash (command_pattern: azd\s+up)",
        id="structured-expect-command-pattern-fail",
    ),
    pytest.param(
        r"{reject_tools: [{tool: bash, command_pattern: 'rm\s+-rf'}]}",
        _run(_call("bash", command="ls -la")),
        1.0,
        True,
        PASSED,
        id="structured-reject-command-pattern-pass",
    ),
    pytest.param(
        r"{reject_tools: [{tool: bash, command_pattern: 'rm\s+-rf'}]}",
        _run(_call("bash", command="rm -rf /tmp/stuff")),
        0.0,
        False,
        r"Rejected tool was used: bash (command_pattern: rm\s+-rf)",
        id="structured-reject-command-pattern-fail",
    ),
    pytest.param(
        "{expect_tools: [{tool: 'bash|shell'}]}",
        _run(_call("bash")),
        1.0,
        True,
        PASSED,
        id="regex-tool-name",
    ),
    pytest.param(
        "{expect_tools: [{tool: view, args: {path: {equals: /etc/hosts}}}]}",
        _run(_call("view", path="/etc/hosts")),
        1.0,
        True,
        PASSED,
        id="expect-arg-equals-pass",
    ),
    pytest.param(
        "{expect_tools: [{tool: bash, args: {command: {regex: '^npm test'}}}]}",
        _run(_call("bash", command="ls")),
        0.0,
        False,
        "Expected tool not used: bash (args: [command])",
        id="expect-arg-regex-fail",
    ),
    pytest.param(
        "{expect_tools: [{tool: bash, args: {command: {contains: go test}}}]}",
        _run(_call("bash", command="go test ./...")),
        1.0,
        True,
        PASSED,
        id="expect-arg-contains-pass",
    ),
    pytest.param(
        # waza's test passes these as in-memory extras; a results file does not keep them
        "{expect_tools: [{tool: search, args: {query: {contains: auth}, "
        "limit: {range: {gte: 1, lte: 10}}}}]}",
        _run({"id": "", "name": "search", "arguments": {"query": "find auth bypass", "limit": 5}}),
        0.0,
        False,
        "Expected tool not used: search (args: [limit, query])",
        id="extra-args-are-not-in-a-results-file",
    ),
    pytest.param(
        "{expect_tools: [{tool: search, args: {query: {contains: auth}}}]}",
        _run(_call("search")),
        0.0,
        False,
        "Expected tool not used: search (args: [query])",
        id="missing-extra-arg",
    ),
    pytest.param(
        "{allow_only: [{tool: bash}, {tool: edit}]}",
        _run(_call("bash"), _call("edit"), _call("bash")),
        1.0,
        True,
        PASSED,
        id="allow-only-accepts-listed-tools",
    ),
    pytest.param(
        "{allow_only: [{tool: bash}, {tool: edit}, {tool: view}]}",
        _run(_call("bash")),
        1.0,
        True,
        PASSED,
        id="allow-only-does-not-require-every-declared-tool",
    ),
    pytest.param(
        "{allow_only: [{tool: bash}]}",
        _run(_call("bash"), _call("curl"), _call("bash")),
        2 / 3,
        False,
        "Undeclared tool used: curl (not in allow_only: [bash])",
        id="allow-only-fails-on-undeclared-tool",
    ),
    pytest.param(
        "{allow_only: [{tool: bash}]}",
        _run(_call("bashful")),
        0.0,
        False,
        "Undeclared tool used: bashful (not in allow_only: [bash])",
        id="allow-only-exact-not-regex",
    ),
    pytest.param(
        "{allow_only: [{tool: Bash}]}",
        _run(_call("bash")),
        1.0,
        True,
        PASSED,
        id="allow-only-case-insensitive",
    ),
    pytest.param(
        "{allow_only: []}",
        _run(_call("bash")),
        0.0,
        False,
        "Undeclared tool used: bash (not in allow_only: [])",
        id="allow-only-empty-denies-a-call",
    ),
    pytest.param(
        "{allow_only: []}",
        _run(),
        1.0,
        True,
        PASSED,
        id="allow-only-empty-without-calls-passes",
    ),
    pytest.param(
        "{expect_tools: [{tool: search}], reject_tools: [{tool: delete}], "
        "allow_only: [{tool: search}, {tool: edit}]}",
        _run(_call("search"), _call("curl"), _call("delete")),
        0.4,
        False,
        "Rejected tool was used: delete; "
        "Undeclared tool used: curl (not in allow_only: [search, edit]); "
        "Undeclared tool used: delete (not in allow_only: [search, edit])",
        id="allow-only-combined-with-expect-and-reject",
    ),
    pytest.param(
        "{allow_only: [{tool: bash}]}",
        _run(_call("bash"), _call("curl"), _call("curl")),
        1 / 3,
        False,
        "Undeclared tool used: curl (2 calls; not in allow_only: [bash])",
        id="allow-only-counts-every-violating-call",
    ),
    pytest.param(
        "{allow_only: [{tool: bash, command_pattern: ^ls}]}",
        _run(_call("bash", command="ls -la"), _call("bash", command="rm -rf /")),
        0.5,
        False,
        "Undeclared tool used: bash (not in allow_only: [bash (command_pattern: ^ls)])",
        id="allow-only-command-pattern-qualifier",
    ),
    pytest.param(
        "{allow_only: [{tool: bash}]}",
        _run(_call("")),
        0.0,
        False,
        "Undeclared tool used: <unnamed> (not in allow_only: [bash])",
        id="allow-only-unnamed-call",
    ),
]


@pytest.mark.parametrize(("config", "run", "score", "passed", "feedback"), GO_CASES)
def test_waza_tool_constraint_cases(
    tmp_path: Path, config: str, run: dict[str, Any], score: float, passed: bool, feedback: str
) -> None:
    verdict = _grade(tmp_path, config, run)
    assert (verdict["score"], verdict["passed"], verdict["feedback"]) == (score, passed, feedback)
    assert verdict["type"] == "tool_constraint"


def test_details_with_usage(tmp_path: Path) -> None:
    config = "{expect_tools: [{tool: bash}], reject_tools: [{tool: create_file}]}"
    run = _run(_call("bash"), usage={"turns": 10, "input_tokens": 4000, "output_tokens": 5})
    assert _grade(tmp_path, config, run)["details"] == {
        "expect_tools": ["bash"],
        "reject_tools": ["create_file"],
        "failures": None,
        "tools_used": ["bash"],
        "tokens_total": 4005,
        "total_turns": 10,
    }


def test_details_with_allow_only(tmp_path: Path) -> None:
    config = "{allow_only: [{tool: ' bash '}, {tool: edit, path_pattern: '\\.md$'}]}"
    run = _run(_call("bash"), _call("curl"), _call("curl"), _call("edit", path="a.txt"))
    assert _grade(tmp_path, config, run)["details"] == {
        "expect_tools": [],
        "reject_tools": [],
        "failures": [
            "Undeclared tool used: curl (2 calls; not in allow_only: "
            "[bash, edit (path_pattern: \\.md$)])",
            "Undeclared tool used: edit (not in allow_only: [bash, edit (path_pattern: \\.md$)])",
        ],
        "tools_used": ["bash", "curl", "curl", "edit"],
        "allow_only": ["bash", "edit (path_pattern: \\.md$)"],
        "allow_only_declared": True,
        "allow_only_violations": ["curl", "edit"],
    }


def test_allow_only_violations_are_null_when_none(tmp_path: Path) -> None:
    verdict = _grade(tmp_path, "{allow_only: [{tool: view}]}", _run(_call("fileRead")))
    assert verdict["passed"] is True
    assert verdict["details"]["allow_only_violations"] is None
    assert verdict["details"]["failures"] is None


def test_an_absent_digest_is_an_empty_one(tmp_path: Path) -> None:
    verdict = _grade(
        tmp_path, "{expect_tools: [{tool: bash}]}", {"run_number": 1, "status": "passed"}
    )
    assert (verdict["score"], verdict["passed"]) == (0.0, False)
    assert verdict["details"]["tools_used"] is None
    assert "tokens_total" not in verdict["details"]


def test_the_full_description(tmp_path: Path) -> None:
    config = (
        "{expect_tools: [{tool: ' bash ', path_pattern: p, command_pattern: 'azd\\s+up', "
        "skill_pattern: s, args: {zeta: {contains: z}, alpha: {regex: a}}}]}"
    )
    verdict = _grade(tmp_path, config, _run(_call("bash")))
    assert verdict["feedback"] == (
        "Expected tool not used: bash (command_pattern: azd\\s+up, skill_pattern: s, "
        "path_pattern: p, args: [alpha, zeta])"
    )


@pytest.mark.parametrize(
    ("spec", "call", "matched"),
    [
        pytest.param("{tool: bash}", _call("bashful"), True, id="tool-is-an-unanchored-search"),
        pytest.param("{tool: BASH}", _call("bash"), True, id="tool-is-case-insensitive"),
        pytest.param("{tool: '^bash$'}", _call("bash\n"), False, id="dollar-only-at-the-end"),
        pytest.param(
            "{tool: read, skill_pattern: '^azure-'}",
            _call("read", skill="Azure-deploy"),
            True,
            id="skill-pattern-is-case-insensitive",
        ),
        pytest.param(
            "{tool: read, path_pattern: docs}",
            _call("read"),
            False,
            id="a-pattern-fails-on-an-empty-argument",
        ),
        pytest.param(
            "{tool: read, path_pattern: '.*'}",
            _call("read"),
            True,
            id="a-pattern-may-match-an-empty-argument",
        ),
        pytest.param(
            "{tool: bash, command_pattern: '^\\d+$'}",
            _call("bash", command="\u0663"),
            False,
            id="digit-class-is-ascii",
        ),
    ],
)
def test_spec_matching(tmp_path: Path, spec: str, call: dict[str, Any], matched: bool) -> None:
    verdict = _grade(tmp_path, f"{{expect_tools: [{spec}]}}", _run(call))
    assert verdict["passed"] is matched


def test_tool_events_are_never_read(tmp_path: Path) -> None:
    config = "{expect_tools: [{tool: search, args: {query: {equals: Bissell}}}]}"
    run = _run({"id": "c-1", "name": "search", "arguments": {}})
    run["tool_events"] = [
        {"tool_call_id": "c-1", "tool_name": "search", "args": {"query": "Bissell"}}
    ]
    assert _grade(tmp_path, config, run)["passed"] is False


def test_the_calls_are_trusted_over_tools_used(tmp_path: Path) -> None:
    run = _run(_call("bash"))
    run["session_digest"]["tools_used"] = ["create_file"]
    verdict = _grade(tmp_path, "{reject_tools: [{tool: create_file}]}", run)
    assert verdict["passed"] is True
    assert verdict["details"]["tools_used"] == ["create_file"]


# --- construction and load errors ------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "error"),
    [
        pytest.param(
            "{expect_tools: [{tool: ''}]}",
            "config.expect_tools[0].tool: required non-empty string",
            id="empty-expect-tool",
        ),
        pytest.param(
            "{reject_tools: [{tool: '  '}]}",
            "config.reject_tools[0].tool: required non-empty string",
            id="blank-reject-tool",
        ),
        pytest.param(
            "{allow_only: [{tool: bash}, {command_pattern: x}]}",
            "config.allow_only[1].tool: required non-empty string",
            id="allow-only-without-tool",
        ),
        pytest.param(
            "{expect_tools: [{tool: '('}]}",
            "config.expect_tools[0].tool: invalid regex: error parsing regexp: missing closing ): "
            "`(?i)(`",
            id="invalid-tool-regex",
        ),
        pytest.param(
            "{reject_tools: [{tool: bash, command_pattern: '('}]}",
            "config.reject_tools[0].command_pattern: invalid regex: error parsing regexp: "
            "missing closing ): `(?i)(`",
            id="invalid-command-pattern",
        ),
        pytest.param(
            "{expect_tools: [{tool: bash, path_pattern: '(', skill_pattern: '['}]}",
            "config.expect_tools[0].skill_pattern: invalid regex: error parsing regexp: "
            "missing closing ]: `[`",
            id="skill-pattern-is-checked-before-path-pattern",
        ),
        pytest.param(
            "{allow_only: [{tool: bash, command_pattern: '(['}]}",
            "config.allow_only[0].command_pattern: invalid regex: error parsing regexp: "
            "missing closing ]: `[`",
            id="allow-only-qualifier-is-still-a-regex",
        ),
        pytest.param(
            "{expect_tools: [{tool: '('}], reject_tools: [{tool: ''}]}",
            "config.expect_tools[0].tool: invalid regex: error parsing regexp: missing closing ): "
            "`(?i)(`",
            id="expect-tools-are-checked-first",
        ),
        pytest.param(
            "{expect_tools: [{tool: bash, command_pattern: 'a(?!b)'}]}",
            "config.expect_tools[0].command_pattern: invalid regex: error parsing regexp: "
            "invalid or unsupported Perl syntax: `(?!`",
            id="lookahead-is-not-re2",
        ),
        pytest.param(
            "{reject_tools: [{tool: bash, args: {command: ~}}]}",
            "config.reject_tools[0].args[command]: argmatcher: matcher kind not set",
            id="null-matcher",
        ),
    ],
)
def test_construction_errors(tmp_path: Path, config: str, error: str) -> None:
    verdict = _grade(tmp_path, config, _run(_call("bash")))
    assert (
        verdict["feedback"] == f"failed to create grader tc: tool_constraint grader 'tc': {error}"
    )
    assert (verdict["score"], verdict["passed"]) == (0.0, False)


def test_an_allow_only_tool_is_a_name_not_a_regex(tmp_path: Path) -> None:
    verdict = _grade(tmp_path, "{allow_only: [{tool: '('}]}", _run(_call("(")))
    assert verdict["passed"] is True


WRAPPER = (
    'invalid grader config for "tc" (type "tool_constraint"): failed to decode grader '
    "parameters of type models.ToolConstraintGraderParameters: "
)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param(
            "{}",
            'tool_constraint grader "tc": must configure config.expect_tools, '
            "config.reject_tools, or config.allow_only",
            id="no-constraint",
        ),
        pytest.param(
            "{expect_tools: [], allow_only: ~}",
            'tool_constraint grader "tc": must configure config.expect_tools, '
            "config.reject_tools, or config.allow_only",
            id="null-allow-only-is-not-declared",
        ),
        pytest.param(
            "{expect_tools: [{tool: bash}], max_turns: 5}",
            WRAPPER + "yaml: unmarshal errors: line 1: field max_turns not found in type "
            "models.ToolConstraintGraderParameters",
            id="documented-but-unknown-max-turns",
        ),
        pytest.param(
            "{expect_tools: [{tool: bash, args: {command: {regex: '['}}}]}",
            WRAPPER + 'argmatcher: invalid regex "[": error parsing regexp: missing closing ]: `[`',
            id="invalid-matcher",
        ),
        pytest.param(
            "{allow_only: [{tool: bash, args: {command: [ls]}}]}",
            WRAPPER + "argmatcher: expected mapping (e.g. {regex: '^foo'}), got sequence",
            id="matcher-not-a-mapping-in-allow-only",
        ),
    ],
)
def test_load_errors(tmp_path: Path, config: str, message: str) -> None:
    loaded = grader_task(tmp_path, f"name: tc\ntype: tool_constraint\nconfig: {config}")
    with pytest.raises(InputError) as raised:
        KINDS["tool_constraint"].configure(loaded.grader("tc"))
    assert raised.value.message == message


# --- tool names (tool_names_test.go) --------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        (" readFile ", "read"),
        ("fileRead", "read"),
        ("builtin:VIEW", "read"),
        ("writeFile", "write"),
        ("fileWrite", "write"),
        ("edit", "write"),
        ("runCommand", "bash"),
        ("web_fetch", "fetch"),
        ("fetch", "fetch"),
        ("mcp:github-list_issues", "mcp:github-list_issues"),
        ("custom:CodeSearch", "custom:codesearch"),
        ("bashful", "bashful"),
        ("", ""),
        ("custom:view", "custom:view"),
    ],
)
def test_canonical_tool_name(name: str, canonical: str) -> None:
    assert canonical_tool_name(name) == canonical
    assert canonical_tool_name(canonical_tool_name(name)) == canonical


@pytest.mark.parametrize(
    ("declared", "observed", "matched"),
    [
        ("fileRead", "builtin:view", True),
        ("fileRead", "custom:view", False),
        ("custom:view", "view", True),
        ("custom:view", "read", False),
        ("custom:view", "builtin:view", False),
        ("CodeSearch", "custom:CodeSearch", False),
        ("custom:CodeSearch", "CodeSearch", True),
        ("github-list_issues", "mcp:github-list_issues", False),
        ("mcp:github-list_issues", "github-list_issues", True),
        ("mcp:github-list_issues", "custom:github-list_issues", False),
        ("mcp:github-list_issues", "other-list_issues", False),
        ("bash", "\u00a0BASH\t", True),
        ("bash", "\x1fbash", False),
    ],
)
def test_matches_tool_call_name(declared: str, observed: str, matched: bool) -> None:
    assert matches_tool_call_name(declared, observed) is matched
