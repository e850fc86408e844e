"""`tool_calls`: waza's Go tests (tool_calls_grader_test.go) restated as a table, then
`expect` details, tool events, construction and load errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.graders.harness import grade_raw, grader_task
from waza_ci.errors import InputError
from waza_ci.graders import KINDS

PASSED = "all tool_calls checks passed"


def _call(name: str, call_id: str = "", **arguments: str) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def _run(*calls: dict[str, Any], events: list[Any] | None = None) -> dict[str, Any]:
    run: dict[str, Any] = {
        "run_number": 1,
        "status": "passed",
        "session_digest": {"tool_calls": list(calls)},
    }
    if events is not None:
        run["tool_events"] = events
    return run


def _event(name: str, args: Any, call_id: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"turn": 1, "sequence": 1, "tool_name": name, "success": True}
    if call_id is not None:
        event["tool_call_id"] = call_id
    if args is not None:
        event["args"] = args
    return event


def _grade(tmp_path: Path, config: str, run: dict[str, Any]) -> dict[str, Any]:
    loaded = grader_task(tmp_path, f"name: tc\ntype: tool_calls\nconfig:\n{_indent(config)}")
    return grade_raw(loaded, "tc", run)


def _indent(config: str) -> str:
    return "\n".join(f"  {line}" for line in config.strip().splitlines())


# (config, run, score, passed, feedback)
GO_CASES = [
    pytest.param(
        "required_tools: [bash, view]",
        _run(_call("bash"), _call("view"), _call("edit")),
        1.0,
        True,
        PASSED,
        id="required-tools-all-present",
    ),
    pytest.param(
        "required_tools: [bash, view, grep]",
        _run(_call("bash")),
        1 / 3,
        False,
        'required tool "view" was not called; required tool "grep" was not called',
        id="required-tools-some-missing",
    ),
    pytest.param(
        "forbidden_tools: [rm, sudo]",
        _run(_call("bash")),
        1.0,
        True,
        PASSED,
        id="forbidden-tools-none-used",
    ),
    pytest.param(
        "forbidden_tools: [rm, sudo]",
        _run(_call("rm"), _call("bash")),
        0.5,
        False,
        'forbidden tool "rm" was called',
        id="forbidden-tools-some-used",
    ),
    pytest.param(
        "min_calls: 2", _run(_call("bash"), _call("view")), 1.0, True, PASSED, id="min-calls-pass"
    ),
    pytest.param(
        "min_calls: 5",
        _run(_call("bash")),
        0.0,
        False,
        "expected at least 5 tool calls, got 1",
        id="min-calls-fail",
    ),
    pytest.param(
        "max_calls: 3", _run(_call("bash"), _call("view")), 1.0, True, PASSED, id="max-calls-pass"
    ),
    pytest.param(
        "max_calls: 1",
        _run(_call("bash"), _call("view"), _call("edit")),
        0.0,
        False,
        "expected at most 1 tool calls, got 3",
        id="max-calls-fail",
    ),
    pytest.param(
        "{required_tools: [bash], forbidden_tools: [rm], min_calls: 1, max_calls: 5}",
        _run(_call("bash"), _call("view")),
        1.0,
        True,
        PASSED,
        id="combined-all-pass",
    ),
    pytest.param(
        "{required_tools: [bash, grep], forbidden_tools: [rm], min_calls: 1, max_calls: 10}",
        _run(_call("bash"), _call("view")),
        0.8,
        False,
        'required tool "grep" was not called',
        id="combined-partial-failure",
    ),
    pytest.param(
        "{required_tools: [bash], forbidden_tools: [rm], min_calls: 10}",
        _run(_call("rm")),
        0.0,
        False,
        'required tool "bash" was not called; forbidden tool "rm" was called; '
        "expected at least 10 tool calls, got 1",
        id="all-checks-fail",
    ),
    pytest.param(
        "required_tools: [bash]",
        _run(),
        0.0,
        False,
        'required tool "bash" was not called',
        id="empty-tool-calls",
    ),
    pytest.param(
        "{required_tools: [bash], max_calls: 5}",
        _run(_call("bash"), _call("bash"), _call("bash")),
        1.0,
        True,
        PASSED,
        id="duplicate-tool-calls",
    ),
    pytest.param("min_calls: 0", _run(), 1.0, True, PASSED, id="min-calls-zero"),
    pytest.param(
        "max_calls: 0",
        _run(_call("bash")),
        0.0,
        False,
        "expected at most 0 tool calls, got 1",
        id="max-calls-zero-is-a-real-bound",
    ),
    pytest.param(
        "expect: [{tool: bash}]",
        _run(_call("bash", command="ls")),
        1.0,
        True,
        PASSED,
        id="expect-without-args-passes",
    ),
    pytest.param(
        "expect: [{tool: bash}, {tool: view}]",
        _run(_call("bash")),
        0.5,
        False,
        'expectation tool="view" not satisfied: no tool call with matching name',
        id="expect-missing-tool-fails",
    ),
    pytest.param(
        "expect: [{tool: bash, args: {command: {regex: '^ls .*'}}}]",
        _run(_call("bash", command="ls -la")),
        1.0,
        True,
        PASSED,
        id="expect-regex-arg-matches",
    ),
    pytest.param(
        "expect: [{tool: bash, args: {command: {regex: '^npm test'}}}]",
        _run(_call("bash", command="ls -la")),
        0.0,
        False,
        'expectation tool="bash" not satisfied: argument "command": regex "^npm test" did not '
        'match "ls -la"',
        id="expect-regex-arg-mismatch",
    ),
    pytest.param(
        "expect: [{tool: view, args: {path: {equals: /etc/hosts}}}]",
        _run(_call("view", path="/etc/hosts")),
        1.0,
        True,
        PASSED,
        id="expect-equals-arg-matches",
    ),
    pytest.param(
        "expect: [{tool: bash, args: {command: {contains: test}}}]",
        _run(_call("bash", command="go test ./...")),
        1.0,
        True,
        PASSED,
        id="expect-contains-arg-matches",
    ),
    pytest.param(
        "expect: [{tool: bash, args: {command: {regex: .+}}}]",
        _run(_call("bash")),
        0.0,
        False,
        'expectation tool="bash" not satisfied: argument "command": not present on tool call',
        id="expect-arg-key-missing",
    ),
    pytest.param(
        "expect: [{tool: nessie-candidate-entity_search_clients, "
        "args: {query: {equals: Bissell}}}]",
        _run(
            _call("nessie-candidate-entity_search_clients", "call-1"),
            events=[
                _event("nessie-candidate-entity_search_clients", {"query": "Bissell"}, "call-1")
            ],
        ),
        1.0,
        True,
        PASSED,
        id="expect-args-use-tool-events-after-a-results-round-trip",
    ),
    pytest.param(
        "expect: [{tool: bash, args: {command: {equals: ls}}}]",
        _run(_call("bash", command="pwd"), _call("bash", command="ls")),
        1.0,
        True,
        PASSED,
        id="expect-any-same-name-call-may-satisfy",
    ),
]


@pytest.mark.parametrize(("config", "run", "score", "passed", "feedback"), GO_CASES)
def test_waza_tool_calls_cases(
    tmp_path: Path, config: str, run: dict[str, Any], score: float, passed: bool, feedback: str
) -> None:
    verdict = _grade(tmp_path, config, run)
    assert (verdict["score"], verdict["passed"], verdict["feedback"]) == (score, passed, feedback)
    assert verdict["type"] == ""  # waza never sets this kind's type


def test_details(tmp_path: Path) -> None:
    verdict = _grade(
        tmp_path, "required_tools: [bash]", _run(_call("bash"), _call("bash"), _call("view"))
    )
    # waza lists unique_tools in Go's random map order; waza-ci in first-call order
    assert verdict["details"] == {
        "total_calls": 3,
        "unique_tools": ["bash", "view"],
        "passed_checks": 1,
        "total_checks": 1,
    }


def test_details_without_calls_list_no_tools(tmp_path: Path) -> None:
    verdict = _grade(tmp_path, "min_calls: 0", {"run_number": 1, "status": "passed"})
    assert verdict["details"]["unique_tools"] == []
    assert verdict["details"]["total_calls"] == 0


def test_expect_details(tmp_path: Path) -> None:
    config = """
    expect:
      - tool: bash
      - tool: search
        args:
          query: {equals: Bissell}
          limit: {range: {gte: 1, lte: 5}}
      - tool: view
        args: {path: {contains: hosts}}
    """
    run = _run(
        _call("bash", "b-1"),
        _call("search", "s-1"),
        _call("search", "s-2"),
        events=[
            _event("bash", {}, "b-1"),
            _event("search", {"query": "Bissell", "limit": 3}, "s-1"),
            _event("search", {"query": "x", "limit": 3}, "s-2"),
        ],
    )
    verdict = _grade(tmp_path, config, run)
    assert verdict["details"]["expect"] == [
        {"tool": "bash", "matched_call_index": 0, "matched_call_id": "b-1"},
        {
            "tool": "search",
            "args": {"limit": {"range": {"gte": 1.0, "lte": 5.0}}, "query": {"equals": "Bissell"}},
            "matched_call_index": 1,
            "matched_call_id": "s-1",
        },
        {
            "tool": "view",
            "args": {"path": {"contains": "hosts"}},
            "reason": "no tool call with matching name",
        },
    ]
    assert verdict["details"]["passed_checks"] == 2
    assert verdict["score"] == 2 / 3


def test_the_reason_is_the_last_name_matching_call_s(tmp_path: Path) -> None:
    config = "expect: [{tool: bash, args: {command: {equals: make}}}]"
    verdict = _grade(
        tmp_path, config, _run(_call("bash", command="ls"), _call("view"), _call("bash"))
    )
    assert verdict["feedback"] == (
        'expectation tool="bash" not satisfied: argument "command": not present on tool call'
    )


def test_matcher_failures_of_one_call_are_joined(tmp_path: Path) -> None:
    config = "expect: [{tool: bash, args: {description: {contains: x}, command: {equals: make}}}]"
    verdict = _grade(tmp_path, config, _run(_call("bash", command="ls")))
    assert verdict["details"]["expect"][0]["reason"] == (
        'argument "command": expected "make", got "ls"; '
        'argument "description": not present on tool call'
    )


def test_the_tool_pattern_is_an_unanchored_case_insensitive_search(tmp_path: Path) -> None:
    verdict = _grade(tmp_path, "expect: [{tool: BASH}]", _run(_call("my-bashful-tool")))
    assert verdict["passed"] is True
    # ... while required/forbidden names compare exactly
    assert _grade(tmp_path, "required_tools: [Bash]", _run(_call("bash")))["passed"] is False


def test_names_and_counts_never_come_from_tool_events(tmp_path: Path) -> None:
    run = _run(events=[_event("rm", {"path": "/"}, "c-1")])
    verdict = _grade(tmp_path, "{forbidden_tools: [rm], max_calls: 0}", run)
    assert (verdict["score"], verdict["passed"]) == (1.0, True)


# --- which argument values a call has ------------------------------------------------------

ID_EXPECT = "expect: [{tool: catalog_lookup, args: {id: {equals: item-7}}}]"


@pytest.mark.parametrize(
    ("run", "reason"),
    [
        pytest.param(
            _run(_call("catalog_lookup"), events=[_event("catalog_lookup", {"id": "item-7"})]),
            None,
            id="event-at-the-same-position-without-ids",
        ),
        pytest.param(
            _run(_call("catalog_lookup"), events=[_event("catalog_lookup", {"id": "item-8"})]),
            'argument "id": expected "item-7", got "item-8"',
            id="event-at-the-same-position-with-another-value",
        ),
        pytest.param(
            _run(
                _call("catalog_lookup", "c-2"),
                events=[
                    _event("other", {"id": "x"}, "c-1"),
                    _event("catalog_lookup", {"id": "item-7"}, "c-2"),
                ],
            ),
            None,
            id="event-found-by-id-elsewhere",
        ),
        pytest.param(
            _run(_call("catalog_lookup"), events=[_event("other_tool", {"id": "item-7"})]),
            'argument "id": not present on tool call',
            id="event-of-another-tool-is-not-the-call-s",
        ),
        pytest.param(
            _run(_call("catalog_lookup", path="item-7"), events=[_event("catalog_lookup", None)]),
            'argument "id": not present on tool call',
            id="event-without-args-has-none",
        ),
        pytest.param(
            _run(_call("catalog_lookup"), events=[_event("catalog_lookup", "item-7")]),
            "unmarshaling tool event args: json: cannot unmarshal string into Go value of type "
            "map[string]interface {}",
            id="event-args-not-an-object",
        ),
        pytest.param(
            _run(_call("catalog_lookup"), events=[_event("catalog_lookup", [1])]),
            "unmarshaling tool event args: json: cannot unmarshal array into Go value of type "
            "map[string]interface {}",
            id="event-args-an-array",
        ),
    ],
)
def test_argument_values_come_from_the_call_s_tool_event(
    tmp_path: Path, run: dict[str, Any], reason: str | None
) -> None:
    detail = _grade(tmp_path, ID_EXPECT, run)["details"]["expect"][0]
    assert detail.get("reason") == reason


def test_event_args_replace_the_call_s_own_arguments(tmp_path: Path) -> None:
    config = "expect: [{tool: bash, args: {command: {equals: ls}}}]"
    run = _run(_call("bash", "c-1", command="ls"), events=[_event("bash", {"other": 1}, "c-1")])
    assert _grade(tmp_path, config, run)["details"]["expect"][0]["reason"] == (
        'argument "command": not present on tool call'
    )


def test_an_explicit_empty_string_in_event_args_is_present(tmp_path: Path) -> None:
    config = "expect: [{tool: bash, args: {command: {equals: ''}}}]"
    assert _grade(tmp_path, config, _run(_call("bash"), events=[_event("bash", {"command": ""})]))[
        "passed"
    ]
    # ... while an empty known argument of the call itself is absent
    verdict = _grade(tmp_path, config, _run(_call("bash", command="")))
    assert verdict["details"]["expect"][0]["reason"] == (
        'argument "command": not present on tool call'
    )


def test_event_args_keep_their_json_types(tmp_path: Path) -> None:
    config = "expect: [{tool: search, args: {limit: {range: {gt: 5}}, opts: {regex: '^\\{'}}}]"
    run = _run(_call("search"), events=[_event("search", {"limit": 5, "opts": {"x": 1}})])
    assert _grade(tmp_path, config, run)["details"]["expect"][0]["reason"] == (
        'argument "limit": range: 5 <= gt 5'
    )


# --- construction and load errors ------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "error"),
    [
        pytest.param(
            "{}",
            "at least one constraint (required_tools, forbidden_tools, min_calls, max_calls, "
            "expect) must be specified",
            id="no-constraint",
        ),
        pytest.param(
            "{required_tools: [], expect: []}",
            "at least one constraint (required_tools, forbidden_tools, min_calls, max_calls, "
            "expect) must be specified",
            id="only-empty-lists",
        ),
        pytest.param("min_calls: -1", "min_calls must be non-negative, got -1", id="negative-min"),
        pytest.param("max_calls: -1", "max_calls must be non-negative, got -1", id="negative-max"),
        pytest.param(
            "{min_calls: 5, max_calls: 2}",
            "min_calls (5) must be <= max_calls (2)",
            id="min-above-max",
        ),
        pytest.param(
            "{min_calls: -1, expect: [{tool: ''}]}",
            "min_calls must be non-negative, got -1",
            id="counts-are-checked-before-expectations",
        ),
        pytest.param(
            "expect: [{tool: '  '}]",
            "expect[0].tool: required non-empty string",
            id="blank-tool",
        ),
        pytest.param(
            "expect: [{args: {command: {regex: x}}}]",
            "expect[0].tool: required non-empty string",
            id="no-tool",
        ),
        pytest.param(
            "expect: [{tool: bash}, {tool: '('}]",
            "expect[1].tool: invalid regex: error parsing regexp: missing closing ): `(?i)(`",
            id="invalid-tool-pattern",
        ),
        pytest.param(
            "expect: [{tool: 'a(?=b)'}]",
            "expect[0].tool: invalid regex: error parsing regexp: invalid or unsupported Perl "
            "syntax: `(?=`",
            id="lookahead-is-not-re2",
        ),
        pytest.param(
            "expect: [{tool: bash, args: {query: }}]",
            "expect[0].args[query]: argmatcher: matcher kind not set",
            id="null-matcher",
        ),
    ],
)
def test_construction_errors(tmp_path: Path, config: str, error: str) -> None:
    verdict = _grade(tmp_path, config, _run(_call("bash")))
    assert verdict["feedback"] == f'failed to create grader tc: tool_calls grader "tc": {error}'
    assert (verdict["score"], verdict["passed"], verdict["type"]) == (0.0, False, "")


def test_min_equal_to_max_is_valid(tmp_path: Path) -> None:
    verdict = _grade(tmp_path, "{min_calls: 1, max_calls: 1}", _run(_call("bash")))
    assert verdict["passed"] is True


WRAPPER = (
    'invalid grader config for "tc" (type "tool_calls"): failed to decode grader parameters of '
    "type models.ToolCallsGraderParameters: "
)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param(
            "expect: [{tool: bash, args: {command: {regex: '['}}}]",
            'argmatcher: invalid regex "[": error parsing regexp: missing closing ]: `[`',
            id="invalid-matcher-regex",
        ),
        pytest.param(
            "{min_calls: 1, expect: [{tool: bash, args: {command: {wat: x}}}], bogus: 1}",
            'argmatcher: unknown matcher kind "wat" (allowed: equals, regex, contains, range, '
            "json_schema)",
            id="a-matcher-error-wins-over-an-unknown-key",
        ),
        pytest.param(
            "{min_calls: 1, bogus: 1}",
            "yaml: unmarshal errors: line 1: field bogus not found in type "
            "models.ToolCallsGraderParameters",
            id="unknown-key",
        ),
        pytest.param(
            "min_calls: many",
            "yaml: unmarshal errors: line 1: cannot unmarshal !!str `many` into int",
            id="min-calls-not-a-number",
        ),
    ],
)
def test_load_errors(tmp_path: Path, config: str, message: str) -> None:
    loaded = grader_task(tmp_path, f"name: tc\ntype: tool_calls\nconfig:\n{_indent(config)}")
    with pytest.raises(InputError) as raised:
        KINDS["tool_calls"].configure(loaded.grader("tc"))
    assert raised.value.message == WRAPPER + message
