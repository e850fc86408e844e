"""The `text` grader: waza's Go tests restated as a table (score, passed, feedback, details),
Go's lowering and RE2 semantics, and load-time errors in waza's words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_run, require_shared
from tests.graders.harness import Loaded, grade_raw, grader_task
from waza_ci.errors import InputError
from waza_ci.graders import kind_of
from waza_ci.graders.output.text import ALL_PASSED
from waza_ci.waza.spec import load_eval

LISTS = ("contains", "not_contains", "contains_cs", "not_contains_cs", "regex_match",
         "regex_not_match")  # fmt: skip


def text_grader(tmp_path: Path, config: dict[str, Any] | str | None) -> Loaded:
    entry = "name: t\ntype: text\n"
    if config is not None:
        body = config if isinstance(config, str) else json.dumps(config, ensure_ascii=False)
        entry += f"config: {body}\n"
    return grader_task(tmp_path, entry)


def grade_text(tmp_path: Path, config: dict[str, Any] | str | None, output: str) -> dict[str, Any]:
    return grade_raw(text_grader(tmp_path, config), "t", make_run(final_output=output))


def expected_verdict(config: dict[str, Any], score: float, failures: list[str]) -> dict[str, Any]:
    details: dict[str, Any] = {name: config.get(name) for name in LISTS}
    details["failures"] = failures or None
    return {
        "identifier": "t",
        "type": "text",
        "score": score,
        "weight": 1.0,
        "passed": not failures,
        "feedback": "; ".join(failures) or ALL_PASSED,
        "details": dict(sorted(details.items())),
    }


# waza's text_grader_test.go, case by case (config, output, score, failures).
GO_CASES = [
    pytest.param(
        {"regex_match": ["he.*", "world"]}, "hello world", 1.0, [], id="all regex_match match"
    ),
    pytest.param(
        {"regex_match": ["hello", "missing"]},
        "hello world",
        0.5,
        ["Missing expected pattern: missing"],
        id="regex_match pattern missing",
    ),
    pytest.param(
        {"regex_match": ["[invalid"]},
        "anything",
        0.0,
        [
            'Invalid regex_match pattern "[invalid": error parsing regexp: '
            "missing closing ]: `[invalid`"
        ],
        id="invalid regex_match reports failure",
    ),
    pytest.param(
        {"regex_not_match": ["err.*", "fail"]}, "all good here", 1.0, [], id="pattern absent"
    ),
    pytest.param(
        {"regex_not_match": ["error", "warning"]},
        "found an error in output",
        0.5,
        ["Found forbidden pattern: error"],
        id="forbidden pattern found",
    ),
    pytest.param(
        {"regex_not_match": ["[invalid"]},
        "anything",
        0.0,
        [
            'Invalid regex_not_match pattern "[invalid": error parsing regexp: '
            "missing closing ]: `[invalid`"
        ],
        id="invalid regex_not_match reports failure",
    ),
    pytest.param(
        {"contains": ["hello", "WORLD"]}, "Hello World", 1.0, [], id="case-insensitive match"
    ),
    pytest.param(
        {"contains": ["hello", "missing"]},
        "Hello World",
        0.5,
        ["Missing expected substring: missing"],
        id="case-insensitive match fails when missing",
    ),
    pytest.param(
        {"not_contains": ["error", "fail"]}, "all good here", 1.0, [], id="forbidden absent"
    ),
    pytest.param(
        {"not_contains": ["ERROR"]},
        "found an error here",
        0.0,
        ["Found forbidden substring: ERROR"],
        id="not_contains is case-insensitive",
    ),
    pytest.param(
        {"contains_cs": ["Hello", "World"]}, "Hello World", 1.0, [], id="case-sensitive match"
    ),
    pytest.param(
        {"contains_cs": ["hello"]},
        "Hello World",
        0.0,
        ["Missing expected substring (case-sensitive): hello"],
        id="case-sensitive match fails on wrong case",
    ),
    pytest.param(
        {"not_contains_cs": ["ERROR"]},
        "found an error here",
        1.0,
        [],
        id="case-sensitive not-contains passes when case differs",
    ),
    pytest.param(
        {"not_contains_cs": ["ERROR"]},
        "got an ERROR here",
        0.0,
        ["Found forbidden substring (case-sensitive): ERROR"],
        id="case-sensitive not-contains fails on exact match",
    ),
    pytest.param(
        {
            "contains": ["hello"],
            "not_contains": ["error"],
            "contains_cs": ["Hello"],
            "not_contains_cs": ["ERROR"],
            "regex_match": ["He.*ld"],
            "regex_not_match": ["panic"],
        },
        "Hello World",
        1.0,
        [],
        id="all six fields pass together",
    ),
    pytest.param(
        {
            "contains": ["hello"],
            "not_contains": ["world"],
            "contains_cs": ["Missing"],
            "not_contains_cs": ["xyz"],
            "regex_match": ["func"],
            "regex_not_match": ["panic"],
        },
        "hello world func panic()",
        0.5,
        [
            "Found forbidden substring: world",
            "Missing expected substring (case-sensitive): Missing",
            "Found forbidden pattern: panic",
        ],
        id="mixed failures across field types, in waza's order",
    ),
    pytest.param({}, "anything", 1.0, [], id="no fields yields score 1 and passes"),
    pytest.param(
        {"contains": ["something"]},
        "",
        0.0,
        ["Missing expected substring: something"],
        id="empty output fails contains",
    ),
    pytest.param(
        {"contains": ["a"], "regex_match": ["b"]}, "abc", 1.0, [], id="details hold the lists"
    ),
    pytest.param(
        {"contains": ["hello"], "regex_match": ["world"], "regex_not_match": ["bye"]},
        "hello world",
        1.0,
        [],
        id="via Create",
    ),
]


@pytest.mark.parametrize(("config", "output", "score", "failures"), GO_CASES)
def test_waza_go_cases(
    tmp_path: Path, config: dict[str, Any], output: str, score: float, failures: list[str]
) -> None:
    assert grade_text(tmp_path, config, output) == expected_verdict(config, score, failures)


# Beyond waza's tests: what Go's semantics decide where Python's would differ.
SEMANTICS_CASES = [
    pytest.param(
        {"regex_match": ["ok$"]},
        "ok\n",
        0.0,
        ["Missing expected pattern: ok$"],
        id="RE2 $ matches only at the very end",
    ),
    pytest.param({"regex_match": ["(?m)ok$"]}, "ok\n", 1.0, [], id="(?m) makes $ per line"),
    pytest.param(
        {"regex_match": [r"\d"]},
        "\u0663",  # ARABIC-INDIC DIGIT THREE: a digit to Python's re, not to RE2
        0.0,
        [r"Missing expected pattern: \d"],
        id="RE2 digit class is ASCII",
    ),
    pytest.param(
        {"regex_match": ["a(?=b)"]},
        "ab",
        0.0,
        [
            'Invalid regex_match pattern "a(?=b)": error parsing regexp: '
            "invalid or unsupported Perl syntax: `(?=`"
        ],
        id="lookahead is refused with Go's text",
    ),
    pytest.param(
        {"regex_not_match": [r"(\w)\1"]},
        "aa",
        0.0,
        [
            'Invalid regex_not_match pattern "(\\\\w)\\\\1": error parsing regexp: '
            "invalid escape sequence: `\\1`"
        ],
        id="backreference is refused, pattern quoted as Go's %q",
    ),
    pytest.param({"regex_match": [""]}, "", 1.0, [], id="empty pattern matches everything"),
    pytest.param(
        {"contains": ["istanbul"]},
        "\u0130STANBUL",
        1.0,
        [],
        id="dotted capital I lowers to i as in Go",
    ),
    pytest.param(
        {"contains": ["\u03bf\u03b4\u03bf\u03c3"]},
        "\u039f\u0394\u039f\u03a3",
        1.0,
        [],
        id="no final-sigma rule in Go's lowering",
    ),
    pytest.param({"contains": [""]}, "x", 1.0, [], id="empty item is always contained"),
    pytest.param(
        {"not_contains": [""], "not_contains_cs": [""]},
        "x",
        0.0,
        ["Found forbidden substring: ", "Found forbidden substring (case-sensitive): "],
        id="empty forbidden item always fails",
    ),
    pytest.param(
        {"contains": ["x", "x"]},
        "y",
        0.0,
        ["Missing expected substring: x", "Missing expected substring: x"],
        id="duplicates count twice",
    ),
    pytest.param(
        {"contains": ["A", "b"], "not_contains": ["c"]},
        "ab c",
        2 / 3,
        ["Found forbidden substring: c"],
        id="a third of the checks failed",
    ),
    pytest.param(
        {"contains": [], "regex_match": ["x"]},
        "x",
        1.0,
        [],
        id="an empty list is [] in details, an absent one null",
    ),
]


@pytest.mark.parametrize(("config", "output", "score", "failures"), SEMANTICS_CASES)
def test_go_semantics(
    tmp_path: Path, config: dict[str, Any], output: str, score: float, failures: list[str]
) -> None:
    assert grade_text(tmp_path, config, output) == expected_verdict(config, score, failures)


def test_null_list_and_null_item_decode_as_go_does(tmp_path: Path) -> None:
    raw = grade_text(tmp_path, "{contains: ~, not_contains: [~]}", "x")
    assert raw["details"]["contains"] is None
    assert raw["details"]["not_contains"] == [""]
    assert raw["feedback"] == "Found forbidden substring: "


def test_without_config_every_list_is_null(tmp_path: Path) -> None:
    raw = grade_text(tmp_path, None, "anything")
    assert raw["passed"] is True
    assert raw["details"] == {name: None for name in (*LISTS, "failures")}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param(
            "{contain: [x]}",
            'invalid grader config for "t" (type "text"): failed to decode grader parameters '
            "of type models.TextGraderParameters: yaml: unmarshal errors: line 1: field "
            "contain not found in type models.TextGraderParameters",
            id="unknown key",
        ),
        pytest.param(
            "{contains: foo}",
            'invalid grader config for "t" (type "text"): failed to decode grader parameters '
            "of type models.TextGraderParameters: yaml: unmarshal errors: line 1: cannot "
            "unmarshal !!str `foo` into []string",
            id="scalar where a list is wanted",
        ),
    ],
)
def test_load_time_errors_in_wazas_words(tmp_path: Path, config: str, message: str) -> None:
    loaded = text_grader(tmp_path, config)
    grader = loaded.grader("t")
    kind = kind_of(grader)
    assert kind is not None
    with pytest.raises(InputError) as raised:
        kind.configure(grader)
    assert raised.value.message == message


def test_patterns_are_compiled_once_when_configured(tmp_path: Path) -> None:
    loaded = text_grader(tmp_path, {"regex_match": ["[bad", "ok"]})
    grader = loaded.grader("t")
    kind = kind_of(grader)
    assert kind is not None
    config = kind.configure(grader)
    assert config.regex_match[0].compiled is None
    assert config.regex_match[0].error == "error parsing regexp: missing closing ]: `[bad`"
    assert config.regex_match[1].compiled is not None


def saved_text_verdicts(folder: Path) -> list[tuple[str, Loaded, dict[str, Any], dict[str, Any]]]:
    """Every `text` verdict waza wrote in the corpus's results files beside their eval.yaml:
    (where, the loaded spec and task, the saved run, the verdict as waza wrote it)."""
    found = []
    for results in sorted(folder.rglob("results.json")):
        spec_path = results.parent / "eval.yaml"
        if not spec_path.is_file():
            continue
        spec = load_eval(spec_path, working_directory=results.parent)
        tasks = {task.id: task for task in spec.tasks}
        for saved in json.loads(results.read_text(encoding="utf-8")).get("tasks", []):
            task = tasks.get(saved.get("test_id"))
            if task is None:
                continue
            for run in saved.get("runs", []):
                for name, written in (run.get("validations") or {}).items():
                    if written.get("type") == "text" and run.get("status") != "error":
                        found.append((f"{results}:{name}", Loaded(spec, task), run, written))
    return found


@pytest.mark.slow
def test_wazas_own_text_verdicts_are_reproduced() -> None:
    corpus = saved_text_verdicts(require_shared("waza-wild") / "runs")
    assert len(corpus) >= 40
    for where, loaded, run, written in corpus:
        expected = {key: value for key, value in written.items() if key != "duration_ms"}
        assert grade_raw(loaded, written["identifier"], run) == expected, where
