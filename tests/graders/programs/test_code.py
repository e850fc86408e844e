"""The `code` grader: waza's inline_script_grader_test.go restated for both languages, the
reference's rules for the runner (namespace, truthiness, shared names, error texts), the
transcript and tool calls the assertions see, waza's Go errors, and the interpreter lookup.

Python assertions run under the interpreter the tests run under (its folder leads PATH), so
the expected exception texts are computed with it; JavaScript ones need `node`."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FAST_PATH, make_run, require_shared
from tests.graders.harness import Loaded, grade, grade_raw, grader_task
from tests.graders.output.test_expected import wild_graders
from waza_ci.errors import InputError
from waza_ci.graders import kind_of
from waza_ci.graders.base import GraderJob, GraderSetup
from waza_ci.graders.inprocess import GraderError
from waza_ci.graders.programs.code_io import decode_results, stdin_document
from waza_ci.waza.results import SavedRun
from waza_ci.waza.scoring import Problem

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="javascript assertions need `node` on PATH")
ENV = {"PATH": FAST_PATH}


def code_task(folder: Path, assertions: list[Any], language: str | None = None) -> Loaded:
    config: dict[str, Any] = {"assertions": assertions}
    if language is not None:
        config["language"] = language
    return grader_task(folder, f"type: code\nname: c\nconfig: {json.dumps(config)}")


def run_code(
    folder: Path,
    assertions: list[str],
    language: str | None = None,
    run: dict[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    kwargs.setdefault("env", ENV)
    return grade_raw(code_task(folder, assertions, language), "c", run or make_run(), **kwargs)


def code_verdict(
    score: float, feedback: str, failures: list[str] | None, total: int
) -> dict[str, Any]:
    return {
        "identifier": "c",
        "type": "code",
        "score": score,
        "weight": 1.0,
        "passed": failures is None,
        "feedback": feedback,
        "details": {
            "failures": failures,
            "passed_assertions": total - len(failures or ()),
            "total_assertions": total,
        },
    }


def python_error(expression: str, names: dict[str, Any] | None = None) -> str:
    """The text this interpreter gives for the expression's exception, as the runner reports it."""
    try:
        eval(expression, {"__builtins__": {}}, names or {})
    except Exception as error:
        return str(error)
    raise AssertionError(f"{expression!r} raised nothing")


ALL = "All assertions passed"

# inline_script_grader_test.go TestInlineScriptGrader, in both languages.
GO_CASES = [
    pytest.param(["1 == 1"], "", code_verdict(1.0, ALL, None, 1), id="basic-success"),
    pytest.param(
        ["1 == 0"],
        "",
        code_verdict(0.0, "Failed: 1 == 0", ["Failed: 1 == 0"], 1),
        id="basic-failure",
    ),
    pytest.param(
        ["1 == 1", "2 == 3", "3 == 3", "4 == 5"],
        "",
        code_verdict(
            0.5, "Failed: 2 == 3; Failed: 4 == 5", ["Failed: 2 == 3", "Failed: 4 == 5"], 4
        ),
        id="partial-pass-fail",
    ),
]
PYTHON_GO_CASES = [
    *GO_CASES,
    pytest.param(
        ['"hello" in output', "len(output) > 0"],
        "hello world",
        code_verdict(1.0, ALL, None, 2),
        id="with-context-output",
    ),
]
JS_GO_CASES = [
    *GO_CASES,
    pytest.param(
        ['output.includes("hello")', "output.length > 0"],
        "hello world",
        code_verdict(1.0, ALL, None, 2),
        id="with-context-output",
    ),
]


@pytest.mark.parametrize(("assertions", "output", "expected"), PYTHON_GO_CASES)
def test_python_assertions(
    tmp_path: Path, assertions: list[str], output: str, expected: dict[str, Any]
) -> None:
    assert run_code(tmp_path, assertions, run=make_run(final_output=output)) == expected


@needs_node
@pytest.mark.parametrize(("assertions", "output", "expected"), JS_GO_CASES)
def test_javascript_assertions(
    tmp_path: Path, assertions: list[str], output: str, expected: dict[str, Any]
) -> None:
    run = make_run(final_output=output)
    assert run_code(tmp_path, assertions, "javascript", run=run) == expected


# A transcript as waza saves it: a skill used through one tool call (TestWithRealContext*).
TRANSCRIPT = [
    {"type": "user.message", "content": "explain the skill"},
    {"type": "assistant.message_delta", "content": "Let me"},
    {"type": "skill.invoked", "content": "", "tool_name": "skill"},
    {
        "type": "tool.execution_start",
        "tool_call_id": "call-1",
        "tool_name": "view",
        "arguments": {"Path": "/ws/README.md", "view_range": [1, 5], "command": 7},
    },
    {"type": "tool.execution_partial_result", "tool_call_id": "call-1", "content": "par"},
    {
        "type": "tool.execution_complete",
        "tool_call_id": "call-1",
        "success": True,
        "tool_result": {"content": "# README", "detailedContent": "# README\nall of it"},
    },
    {"type": "tool.execution_start", "tool_call_id": "", "tool_name": "ignored"},
    {"type": "assistant.message", "content": "hello world"},
]
REAL_RUN = make_run(final_output="hello world", transcript=TRANSCRIPT, duration_ms=101)

PYTHON_CONTEXT = [
    "len(transcript) == 8",
    "len(errors) == 0",
    "len(tool_calls) == 1",
    "outcome == {}",  # `waza grade` passes an empty outcome
    "output == 'hello world'",
    "duration_ms < 102 and duration_ms > 100",
    "len(tool_calls[0]['result']['content']) > 0",
    # The event model keeps only the fields it knows, per type.
    "transcript[0] == {'content': 'explain the skill', 'type': 'user.message'}",
    "transcript[1] == {'type': 'assistant.message_delta'}",
    "transcript[2] == {'type': 'skill.invoked'}",
    "transcript[4] == {'type': 'tool.execution_partial_result', 'tool_call_id': 'call-1'}",
    "list(transcript[3]) == ['type', 'arguments', 'tool_call_id', 'tool_name']",
    "transcript[3]['arguments']['view_range'] == [1, 5]",
    "transcript[5]['tool_result']['detailedContent'] == '# README\\nall of it'",
    # Tool calls: the five argument fields, any letter case of their keys, strings only.
    "tool_calls[0]['arguments'] == {'path': '/ws/README.md', 'file_text': '',"
    " 'command': '', 'description': '', 'skill': ''}",
    "list(tool_calls[0]) == ['id', 'name', 'arguments', 'result', 'success']",
    "tool_calls[0]['id'] == 'call-1' and tool_calls[0]['success'] is True",
]


def test_python_sees_the_run_as_waza_passes_it(tmp_path: Path) -> None:
    raw = run_code(tmp_path, PYTHON_CONTEXT, run=REAL_RUN)
    assert raw["feedback"] == ALL


@needs_node
def test_javascript_sees_the_run_as_waza_passes_it(tmp_path: Path) -> None:
    assertions = [
        "transcript.length === 8",
        "errors.length === 0",
        "tool_calls.length === 1",
        "Object.keys(outcome).length === 0",
        "output === 'hello world'",
        "duration_ms < 102 && duration_ms > 100",
        "tool_calls[0].result.content.length > 0",
        "tool_calls[0].arguments.path === '/ws/README.md'",
        'JSON.stringify(transcript[1]) === \'{"type":"assistant.message_delta"}\'',
    ]
    raw = run_code(tmp_path, assertions, "javascript", run=REAL_RUN)
    assert raw["feedback"] == ALL


ERROR_TRANSCRIPT = [
    # TestWithError: content mentioning "error" makes an error event.
    {"type": "assistant.message", "content": "oh no there was a fake error"},
    {"type": "session.error", "message": "boom", "content": "dropped"},
    {"type": "assistant.message", "content": "An Error, capitalised"},
]


def test_python_errors_are_events_whose_type_or_content_says_error(tmp_path: Path) -> None:
    assertions = [
        "len(transcript) == 3",
        "len(errors) == 2",
        "len(tool_calls) == 0",
        "errors[1] == {'type': 'session.error', 'message': 'boom'}",
    ]
    raw = run_code(tmp_path, assertions, run=make_run(transcript=ERROR_TRANSCRIPT))
    assert raw["feedback"] == ALL


@needs_node
def test_javascript_errors_are_events_whose_type_or_content_says_error(tmp_path: Path) -> None:
    assertions = ["transcript.length === 3", "errors.length === 2", "tool_calls.length === 0"]
    run = make_run(transcript=ERROR_TRANSCRIPT)
    assert run_code(tmp_path, assertions, "javascript", run=run)["feedback"] == ALL


SYNTAX_ERROR = "what language is this, anyways?"


def test_python_failures_carry_the_interpreter_s_error_text(tmp_path: Path) -> None:
    assertions = [SYNTAX_ERROR, "sum([1]) == 1", "outcome['k']", "[]", "''", "0", "None"]
    raw = run_code(tmp_path, assertions)
    failures = [
        f"Failed: {SYNTAX_ERROR}: {python_error(SYNTAX_ERROR)}",  # TestWithSyntaxError
        "Failed: sum([1]) == 1: name 'sum' is not defined",  # only a few builtins exist
        "Failed: outcome['k']: 'k'",
        "Failed: []",  # Python's falsy values fail
        "Failed: ''",
        "Failed: 0",
        "Failed: None",
    ]
    assert "invalid syntax" in failures[0]
    assert raw == code_verdict(0.0, "; ".join(failures), failures, 7)


@needs_node
def test_javascript_failures_carry_the_interpreter_s_error_text(tmp_path: Path) -> None:
    assertions = [SYNTAX_ERROR, "foo", "[]", "'0'", "''", "True && !False"]
    raw = run_code(tmp_path, assertions, "javascript")
    failures = raw["details"]["failures"]
    assert failures[0].startswith(f"Failed: {SYNTAX_ERROR}: SyntaxError: Unexpected identifier")
    assert failures[1:] == ["Failed: foo: ReferenceError: foo is not defined", "Failed: ''"]
    assert raw["score"] == 0.5  # `[]`, "0" and True are truthy in JavaScript


def test_python_names_bound_by_one_assertion_are_seen_by_the_next(tmp_path: Path) -> None:
    raw = run_code(tmp_path, ["(x := len(output)) > 0", "x == 10", "re.search('a.s', output)"])
    assert raw["feedback"] == ALL


@needs_node
def test_javascript_globals_set_by_one_assertion_are_seen_by_the_next(tmp_path: Path) -> None:
    assertions = ["(n = output.length) > 0", "n === 10", "new RegExp('a.s').test(output)"]
    assert run_code(tmp_path, assertions, "javascript")["feedback"] == ALL


@pytest.mark.slow
@needs_node
def test_a_javascript_assertion_has_five_seconds(tmp_path: Path) -> None:
    raw = run_code(tmp_path, ["while (true) {}", "1 === 1"], "javascript")
    assert raw["feedback"] == (
        "Failed: while (true) {}: Error: Script execution timed out after 5000ms"
    )


def test_an_unsupported_language_fails_at_construction(tmp_path: Path) -> None:
    # TestUnsupportedLanguage
    result = grade(code_task(tmp_path, ["true"], "ruby"), "c", make_run(), env=ENV)
    message = "failed to create grader c: language 'ruby' is not yet supported with inline scripts"
    assert result.raw["feedback"] == message
    assert result.verdict.error == message
    assert "details" not in result.raw and result.raw["score"] == 0.0


LOAD_ERRORS = [
    pytest.param(
        "type: code\nname: c\nconfig: {assertions: []}",
        'code grader "c": must have at least one assertion in config.assertions',
        id="no-assertions",
    ),
    pytest.param(
        "type: code\nname: c",
        'code grader "c": must have at least one assertion in config.assertions',
        id="no-config",
    ),
    pytest.param(
        # A task-level entry may have `assertions:` beside `type:`, but waza grades only
        # config.assertions.
        "type: code\nname: c\nassertions: [len(output) > 0]",
        'code grader "c": must have at least one assertion in config.assertions',
        id="assertions-beside-type",
    ),
    pytest.param(
        "type: code\nname: c\nconfig: {assertions: [x], lang: js}",
        'invalid grader config for "c" (type "code"): failed to decode grader parameters of'
        " type models.InlineScriptGraderParameters: yaml: unmarshal errors: line 1: field lang"
        " not found in type models.InlineScriptGraderParameters",
        id="unknown-key",
    ),
    pytest.param(
        "type: code\nname: c\nconfig: {assertions: len(x)}",
        'invalid grader config for "c" (type "code"): failed to decode grader parameters of'
        " type models.InlineScriptGraderParameters: yaml: unmarshal errors: line 1: cannot"
        " unmarshal !!str `len(x)` into []string",
        id="assertions-not-a-list",
    ),
]


@pytest.mark.parametrize(("entry", "message"), LOAD_ERRORS)
def test_load_time_errors(tmp_path: Path, entry: str, message: str) -> None:
    loaded = grader_task(tmp_path, entry)
    grader = loaded.grader("c")
    kind = kind_of(grader)
    assert kind is not None
    with pytest.raises(InputError) as caught:
        kind.configure(grader)
    assert caught.value.args[0] == message


# --- waza's Go errors, with stand-in interpreters ---------------------------------------------


def fake_interpreter(folder: Path, name: str, script: str) -> str:
    """A `name` executable in `folder` running the shell script; returns the PATH to use."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n" + textwrap.dedent(script), encoding="utf-8")
    path.chmod(0o755)
    return str(folder)


def test_a_runner_that_exits_non_zero_is_a_go_error(tmp_path: Path) -> None:
    script = '[ "$1" = --version ] && exit 0\necho partial; echo oops >&2; exit 3\n'
    path = fake_interpreter(tmp_path / "bin", "python3", script)
    result = grade(code_task(tmp_path, ["1"]), "c", make_run(), env={"PATH": path})
    # waza's text holds the runner's stdout; its stderr is kept for the report.
    assert result.raw["feedback"] == (
        "failed to run grader c: failed to execute inline script for assertions (partial\n): "
        "exit status 3"
    )
    assert result.verdict.error == result.raw["feedback"]
    assert result.verdict.diagnosis is not None
    assert result.verdict.diagnosis.stderr == "oops\n"


def test_python3_failing_its_version_check_and_no_python_is_a_go_error(tmp_path: Path) -> None:
    path = fake_interpreter(tmp_path / "bin", "python3", "exit 3\n")
    result = grade(code_task(tmp_path, ["1"]), "c", make_run(), env={"PATH": path})
    assert result.raw["feedback"] == (
        "failed to run grader c: failed to execute inline script for assertions (): "
        'exec: "python": executable file not found in $PATH'
    )


def test_output_that_is_not_the_results_json_is_a_go_error(tmp_path: Path) -> None:
    path = fake_interpreter(tmp_path / "bin", "python3", "echo 'x{}'\n")
    result = grade(code_task(tmp_path, ["1"]), "c", make_run(), env={"PATH": path})
    assert result.raw["feedback"] == (
        "failed to run grader c: failed to deserialize output (x{}\n) from assertions: "
        "invalid character 'x' looking for beginning of value"
    )
    assert result.verdict.error == result.raw["feedback"]


def test_a_python3_that_does_not_run_gives_way_to_python(tmp_path: Path) -> None:
    # A stub python3 (the Windows Store's) fails `--version`: waza runs `python` instead.
    fake_interpreter(tmp_path / "bin", "python3", "exit 9\n")
    path = fake_interpreter(tmp_path / "bin", "python", 'echo \'{"Results": ["", "fail"]}\'\n')
    raw = run_code(tmp_path, ["a", "b"], env={"PATH": path})
    assert raw == code_verdict(0.5, "Failed: b", ["Failed: b"], 2)


def test_the_interpreter_runs_in_the_working_directory_with_the_graders_environment(
    tmp_path: Path,
) -> None:
    script = 'echo "{\\"results\\": [\\"$(pwd) $MARK\\"]}"\n'
    path = fake_interpreter(tmp_path / "bin", "python3", script)
    work = tmp_path / "work"
    work.mkdir()
    raw = run_code(tmp_path, ["a"], env={"PATH": path, "MARK": "m1"}, working_directory=str(work))
    assert raw["feedback"] == f"Failed: a: {work} m1"


@pytest.mark.parametrize(
    ("language", "name", "hint"),
    [
        pytest.param(None, "python", "python3", id="python"),
        pytest.param("javascript", "node", "node", id="javascript"),
    ],
)
def test_a_missing_interpreter_says_what_to_install(
    tmp_path: Path, language: str | None, name: str, hint: str
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = grade(code_task(tmp_path, ["1"], language), "c", make_run(), env={"PATH": str(empty)})
    assert result.raw["feedback"] == (
        "failed to run grader c: failed to execute inline script for assertions (): "
        f'exec: "{name}": executable file not found in $PATH'
    )
    assert result.verdict.diagnosis is not None
    assert result.verdict.diagnosis.problem == Problem.NOT_STARTED
    assert len(result.verdict.notes) == 1 and f"`{hint}`" in result.verdict.notes[0]


@pytest.mark.slow
def test_a_runner_past_the_timeout_is_killed(tmp_path: Path) -> None:
    script = f'[ "$1" = --version ] && exit 0\nexec {shutil.which("sleep")} 30\n'
    path = fake_interpreter(tmp_path / "bin", "python3", script)
    result = grade(code_task(tmp_path, ["1"]), "c", make_run(), env={"PATH": path}, timeout_s=1)
    assert result.raw["feedback"] == (
        "failed to run grader c: failed to execute inline script for assertions (): signal: killed"
    )
    assert result.verdict.diagnosis is not None
    assert result.verdict.diagnosis.problem == Problem.TIMED_OUT
    assert result.verdict.notes == ("timed out after 1 s",)  # waza itself sets no limit


# --- the pieces -----------------------------------------------------------------------------


def test_the_stdin_document_has_waza_s_keys_in_waza_s_order(tmp_path: Path) -> None:
    loaded = code_task(tmp_path, ["a", "b"])
    job = GraderJob(
        grader=loaded.grader("c"),
        task=loaded.task,
        config=None,
        run=SavedRun.model_validate(make_run(final_output="out <&>", duration_ms=7)),
        context=b"",
        timeout_s=30,
        timeout_source="test",
        setup=GraderSetup(".", ".", {}, "/tmp"),
    )
    pairs = json.loads(stdin_document(job, ("a", "b")), object_pairs_hook=lambda kv: kv)
    assert pairs == [
        ("output", "out <&>"),
        ("outcome", []),
        ("transcript", []),
        ("tool_calls", []),
        ("duration_ms", 7),
        ("assertions", ["a", "b"]),
        ("debug", False),
    ]


def test_tool_calls_follow_waza_s_pairing(tmp_path: Path) -> None:
    transcript = [
        {"type": "tool.execution_complete", "tool_call_id": "a", "success": True},  # early
        {"type": "tool.execution_start", "tool_call_id": "a", "tool_name": "bash"},
        {"type": "tool.execution_start", "tool_call_id": "b", "tool_name": ""},  # no name
        {"type": "tool.execution_start", "tool_call_id": "c", "tool_name": "edit"},
        {"type": "tool.execution_complete", "tool_call_id": "c", "success": True},
        {"type": "tool.execution_complete", "tool_call_id": "c", "success": False},  # last wins
    ]
    assertions = [
        "[t['name'] for t in tool_calls] == ['bash', 'edit']",
        "tool_calls[0]['success'] is False and 'result' not in tool_calls[0]",
        "tool_calls[1]['success'] is False and 'result' not in tool_calls[1]",
    ]
    raw = run_code(tmp_path, assertions, run=make_run(transcript=transcript))
    assert raw["feedback"] == ALL


RESULTS = [
    pytest.param('{"results": ["", "fail"]}', ["", "fail"], id="plain"),
    pytest.param('{"RESULTS": [null, "x"]}', ["", "x"], id="any-case-and-null"),
    pytest.param('{"other": 1}', [], id="no-results"),
]


@pytest.mark.parametrize(("stdout", "results"), RESULTS)
def test_decode_results(stdout: str, results: list[str]) -> None:
    assert decode_results(stdout) == results


@pytest.mark.parametrize(
    ("stdout", "problem"),
    [
        pytest.param("", "unexpected end of JSON input", id="empty"),
        pytest.param(
            '{"results": []} x', "invalid character 'x' after top-level value", id="extra"
        ),
        pytest.param("'", "invalid character '\\'' looking for beginning of value", id="quote"),
        # encoding/json's scanner, the first error in the text (not Python's decoder's).
        pytest.param('{"a" 1}', "invalid character '1' after object key", id="no colon"),
        pytest.param("nope", "invalid character 'o' in literal null (expecting 'u')", id="nope"),
        pytest.param("[1 2]", "invalid character '2' after array element", id="no comma"),
        pytest.param(
            '{"a":tru}', "invalid character '}' in literal true (expecting 'e')", id="tru"
        ),
        pytest.param("NaN", "invalid character 'N' looking for beginning of value", id="NaN"),
        pytest.param(
            '{"results": [Infinity]}',
            "invalid character 'I' looking for beginning of value",
            id="Infinity",
        ),
    ],
)
def test_undecodable_results(stdout: str, problem: str) -> None:
    with pytest.raises(GraderError) as caught:
        decode_results(stdout)
    assert (
        caught.value.message
        == f"failed to deserialize output ({stdout}) from assertions: {problem}"
    )


@pytest.mark.slow
def test_every_code_grader_of_the_wild_corpus_loads() -> None:
    graders = wild_graders(require_shared("waza-wild"), "code")
    assert len(graders) > 50
    for grader in graders:
        kind = kind_of(grader)
        assert kind is not None
        config = kind.configure(grader)
        assert config.assertions and config.creation_error is None, grader.location
