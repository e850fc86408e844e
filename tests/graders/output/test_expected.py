"""The task `expected.output_*` checks: waza's evaluateExpectations tests (run_test.go) restated,
and what the reference pins beyond them (feedback texts, %v and %q, empty strings, Go's
ToLower, the verdict's shape)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_run, require_shared
from tests.graders.harness import Loaded, grade, grade_raw, load_task
from waza_ci.errors import InputError
from waza_ci.graders import kind_of
from waza_ci.waza.spec import GraderSpec, load_eval


def expected_task(folder: Path, **lists: list[Any]) -> Loaded:
    """A task whose `expected:` block has the given `output_*` lists (JSON is YAML)."""
    block = "".join(f"  {key}: {json.dumps(value)}\n" for key, value in lists.items())
    return load_task(folder, f"id: t\nexpected:\n{block}")


def verdict(score: float, passed: bool, feedback: str, name: str) -> dict[str, Any]:
    return {
        "identifier": name,
        "type": "",
        "score": score,
        "weight": 1.0,
        "passed": passed,
        "feedback": feedback,
    }


CONTAINS = "_output_contains"
NOT_CONTAINS = "_output_not_contains"
CONTAINS_ANY = "_output_contains_any"

CASES = [
    # run_test.go TestEvaluateExpectations_MayInclude
    pytest.param(
        "output_contains_any",
        ["alpha", "beta", "gamma"],
        "The result is Beta plus delta",
        verdict(1.0, True, 'found accepted string: "beta"', CONTAINS_ANY),
        id="go-may-include-any-match",
    ),
    pytest.param(
        "output_contains_any",
        ["alpha", "beta"],
        "nothing relevant here",
        verdict(0.0, False, "none of the accepted strings found", CONTAINS_ANY),
        id="go-may-include-none",
    ),
    # TestEvaluateExpectations_MustInclude
    pytest.param(
        "output_contains",
        ["hello", "world"],
        "Hello World",
        verdict(1.0, True, "matched 2/2 required strings", CONTAINS),
        id="go-must-include-all",
    ),
    pytest.param(
        "output_contains",
        ["hello", "world"],
        "Hello there",
        verdict(0.5, False, "matched 1/2 required strings; missing: [world]", CONTAINS),
        id="go-must-include-partial",
    ),
    # TestEvaluateExpectations_MustExclude
    pytest.param(
        "output_not_contains",
        ["error", "fail"],
        "all good",
        verdict(1.0, True, "2/2 excluded strings absent", NOT_CONTAINS),
        id="go-must-exclude-none-present",
    ),
    pytest.param(
        "output_not_contains",
        ["error", "fail"],
        "error occurred",
        verdict(0.5, False, "1/2 excluded strings absent; found: [error]", NOT_CONTAINS),
        id="go-must-exclude-some-present",
    ),
    # The reference's rules: %v keeps the YAML's spelling and order, duplicates count twice.
    pytest.param(
        "output_contains",
        ["A B", "c", "c", "Found"],
        "found it",
        verdict(0.25, False, "matched 1/4 required strings; missing: [A B c c]", CONTAINS),
        id="missing-listed-as-written",
    ),
    pytest.param(
        "output_not_contains",
        ["ERROR", "Fail", "x"],
        "an error, then a failure",
        verdict(1 / 3, False, "1/3 excluded strings absent; found: [ERROR Fail]", NOT_CONTAINS),
        id="found-listed-as-written",
    ),
    pytest.param(
        "output_contains_any",
        ["Zeta", 'Quote "me"', "delta"],
        'he said QUOTE "ME" and delta',
        verdict(1.0, True, 'found accepted string: "Quote \\"me\\""', CONTAINS_ANY),
        id="first-match-in-list-order-go-quoted",
    ),
    # An empty string is in every output.
    pytest.param(
        "output_contains",
        [""],
        "",
        verdict(1.0, True, "matched 1/1 required strings", CONTAINS),
        id="empty-string-contained",
    ),
    pytest.param(
        "output_not_contains",
        [""],
        "anything",
        verdict(0.0, False, "0/1 excluded strings absent; found: []", NOT_CONTAINS),
        id="empty-string-always-found",
    ),
    pytest.param(
        "output_contains_any",
        ["", "x"],
        "y",
        verdict(1.0, True, 'found accepted string: ""', CONTAINS_ANY),
        id="empty-string-accepted",
    ),
    # yaml.v3 decodes any scalar into a string as its text; null is "".
    pytest.param(
        "output_contains",
        [1.50, True, "yes"],
        "1.5 true yes",
        verdict(1.0, True, "matched 3/3 required strings", CONTAINS),
        id="scalars-as-text",
    ),
    # Go's strings.ToLower maps rune by rune: no final sigma, U+0130 to "i".
    pytest.param(
        "output_contains",
        ["ΟΔΟΣ", "İstanbul"],
        "οδοσ istanbul",
        verdict(1.0, True, "matched 2/2 required strings", CONTAINS),
        id="go-simple-lower-case",
    ),
    pytest.param(
        "output_not_contains",
        ["ΟΔΟΣ"],
        "οδος",
        verdict(1.0, True, "1/1 excluded strings absent", NOT_CONTAINS),
        id="no-final-sigma-rule",
    ),
]


@pytest.mark.parametrize(("key", "strings", "output", "expected"), CASES)
def test_expected_check(
    tmp_path: Path, key: str, strings: list[Any], output: str, expected: dict[str, Any]
) -> None:
    loaded = expected_task(tmp_path, **{key: strings})
    assert grade_raw(loaded, f"_{key}", make_run(final_output=output)) == expected


def test_a_null_entry_is_the_empty_string(tmp_path: Path) -> None:
    loaded = load_task(tmp_path, "id: t\nexpected:\n  output_contains:\n    - ~\n    - zz\n")
    raw = grade_raw(loaded, CONTAINS, make_run(final_output="a"))
    assert raw["feedback"] == "matched 1/2 required strings; missing: [zz]"


def test_combined_checks_each_have_their_verdict(tmp_path: Path) -> None:
    # run_test.go TestEvaluateExpectations_Combined
    loaded = expected_task(
        tmp_path,
        output_contains=["result"],
        output_not_contains=["error"],
        output_contains_any=["option_a", "option_b"],
    )
    run = make_run(final_output="The result is option_b")
    names = [g.name for g in loaded.task.graders]
    assert names == [CONTAINS, NOT_CONTAINS, CONTAINS_ANY]
    assert all(grade_raw(loaded, name, run)["passed"] for name in names)


def test_an_empty_list_makes_no_check(tmp_path: Path) -> None:
    # run_test.go "skipped when empty"
    loaded = expected_task(tmp_path, output_contains_any=[], output_contains=["a"])
    assert [g.name for g in loaded.task.graders] == [CONTAINS]


def test_the_verdict_is_a_regraded_expected_check_without_details(tmp_path: Path) -> None:
    loaded = expected_task(tmp_path, output_contains=["x"])
    result = grade(loaded, CONTAINS, make_run(final_output="x"))
    assert "details" not in result.raw
    assert result.raw["type"] == ""
    assert result.verdict.kind == "expected"
    assert result.verdict.regraded and result.verdict.error is None


def wild_graders(corpus: Path, kind: str) -> list[GraderSpec]:
    """Every grader of `kind` in the corpus's eval specs that load (once each)."""
    found: dict[int, GraderSpec] = {}
    for path in sorted(corpus.rglob("*.yaml")):
        if "eval" not in path.name:
            continue
        try:
            spec = load_eval(path, working_directory=path.parent)
        except InputError:
            continue  # not a spec, or one waza refuses too (test_wild_corpus.py says which)
        for task in spec.tasks:
            found.update((id(g), g) for g in task.graders if g.kind == kind)
    return list(found.values())


@pytest.mark.slow
def test_every_expected_check_of_the_wild_corpus_grades() -> None:
    graders = wild_graders(require_shared("waza-wild"), "expected")
    assert len(graders) > 100
    run = make_run(final_output="")
    for grader in graders:
        kind = kind_of(grader)
        assert kind is not None
        config = kind.configure(grader)
        assert config.strings, grader.location
        assert config.check(config, run["final_output"]).score in (0.0, 1.0)
