"""Load errors of results files in waza's words: a file that is not a results file is named for
what it is; a type error names its JSON path, the type waza wants (its struct's name) and what
the file holds, never a Python class."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from tests.conftest import make_results, make_run
from waza_ci.errors import InputError
from waza_ci.waza import results_schema
from waza_ci.waza.results import SavedResults, SavedRun, SavedTask, load_results
from waza_ci.waza.results_errors import GO_STRUCTS, json_path

# Modelled on the artifacts waza writes beside results files (shared/reference, waza's
# internal/snapshot and `waza serve`): small and synthetic.
_SNAPSHOT = {
    "schemaVersion": "1.0",
    "kind": "task-snapshot",
    "createdAt": "2026-01-01T00:00:00Z",
    "task": {"testId": "t1", "runNumber": 1},
    "engine": {"type": "mock", "modelId": "m"},
    "prompt": {"message": "Say ready."},
    "result": {"status": "passed", "finalOutput": "ready"},
}
_DASHBOARD_RUN = {
    "id": "run-1",
    "spec": "demo",
    "outcome": "passed",
    "passCount": 1,
    "taskCount": 1,
    "tasks": [{"name": "Task one", "outcome": "passed", "graderResults": [{"name": "g"}]}],
}


def _write(tmp_path: Path, doc: Any) -> Path:
    path = tmp_path / "artifact.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    ("doc", "what"),
    [
        (_SNAPSHOT, "a waza task snapshot (`kind: task-snapshot`"),
        (_DASHBOARD_RUN, "a waza dashboard export (one run as `waza serve` shows it"),
        ({"tasks": [{"name": "x", "graderResults": []}]}, "a waza dashboard export"),
        ([_DASHBOARD_RUN], "a waza dashboard export (the list of runs"),
        ({"kind": "waza.preflight", "tasks": []}, "a waza preflight report"),
        ({"kind": "waza.release-assurance"}, "a waza release record"),
        ({"name": "my-app", "dependencies": {}}, "this JSON object has no `tasks`"),
    ],
)
def test_a_file_that_is_not_a_results_file_is_named_for_what_it_is(
    tmp_path: Path, doc: Any, what: str
) -> None:
    path = _write(tmp_path, doc)
    with pytest.raises(InputError) as caught:
        load_results(path)
    text = str(caught.value)
    assert text.startswith(f"{path}: not evaluation results: ")
    assert what in text
    assert "take the results file `waza run --output` writes" in text
    assert "no tasks were graded" not in text and "\n" not in text


def test_an_empty_run_is_still_a_results_file(tmp_path: Path) -> None:
    # waza writes `"tasks": null` when nothing ran: a results file, just an empty one.
    doc = make_results({})
    doc["tasks"] = None
    assert load_results(_write(tmp_path, doc)).model.tasks == []


@pytest.mark.parametrize(
    ("patch", "where", "message"),
    [
        (
            {"metrics": {"blob": "x"}},
            "$.metrics.blob",
            "want an object (waza's MeasureResult), got a string",
        ),
        ({"metrics": 3}, "$.metrics", "want an object, got the number 3"),
        ({"config": []}, "$.config", "want an object (waza's OutcomeSetup), got a list"),
        (
            {"summary": {"statistics": {"pass_hat_k": [True]}}},
            "$.summary.statistics.pass_hat_k[0]",
            "want a number, got true",
        ),
        ({"timestamp": "noon"}, "$.timestamp", "want an RFC 3339 date and time (waza's time.Time)"),
        ({"tasks": {}}, "$.tasks", "want a list, got an object"),
        ({"tasks": [7]}, "$.tasks[0]", "want an object (waza's TestOutcome), got the number 7"),
        ({"tasks": [{"runs": []}]}, "$.tasks[0].test_id", "required: waza's TestOutcome needs"),
        (
            {"baseline_outcome": {"tasks": [{"runs": [1]}]}},
            "$.baseline_outcome.tasks[0].runs[0]",
            "want an object (waza's RunResult), got the number 1",
        ),
    ],
)
def test_top_level_type_errors_name_waza_s_field_and_type(
    tmp_path: Path, patch: dict[str, Any], where: str, message: str
) -> None:
    doc = make_results({"t1": [make_run()]})
    doc.update(patch)
    path = _write(tmp_path, doc)
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert str(caught.value).startswith(f"{path}: at {where}: {message}")


@pytest.mark.parametrize(
    ("run_patch", "where", "message"),
    [
        ({"validations": {"g": 5}}, "validations.g", "want an object (waza's GraderResults)"),
        ({"validations": []}, "validations", "want an object, got a list"),
        (
            {"validations": {"g": {"passed": "no"}}},
            "validations.g.passed",
            "want true or false, got a string",
        ),
        ({"run_number": 1.5}, "run_number", "want a whole number, got the number 1.5"),
        ({"run_number": 2**64}, "run_number", "want a whole number that fits Go's 64-bit"),
        ({"session_digest": "x"}, "session_digest", "want an object (waza's SessionDigest)"),
        (
            {"session_digest": {"usage": {"model_metrics": {"m": 1}}}},
            "session_digest.usage.model_metrics.m",
            "want an object (waza's ModelUsage)",
        ),
        ({"transcript": [1]}, "transcript[0]", "want an object, got the number 1"),
        (
            {"failure_artifacts": {"context": {"k": 1}}},
            "failure_artifacts.context.k",
            "want a string, got the number 1",
        ),
        (
            {"validations": {"my grader": {"score": "1"}}},
            'validations["my grader"].score',
            "want a number, got a string",
        ),
    ],
)
def test_type_errors_inside_runs_name_waza_s_field_and_type(
    tmp_path: Path, run_patch: dict[str, Any], where: str, message: str
) -> None:
    path = _write(tmp_path, make_results({"t1": [make_run(**run_patch)]}))
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert str(caught.value).startswith(f"{path}: at $.tasks[0].runs[0].{where}: {message}")


def test_no_message_names_a_python_class(tmp_path: Path) -> None:
    # Every model reachable from a results file has waza's struct name for messages.
    seen: set[str] = set()
    pending: list[type[BaseModel]] = [SavedResults]
    while pending:
        model = pending.pop()
        if model.__name__ in seen:
            continue
        seen.add(model.__name__)
        assert model.__name__ in GO_STRUCTS, model.__name__
        for field in model.model_fields.values():
            pending.extend(_models_in(field.annotation))
    assert {"SavedRun", "SavedTask", "BaselineOutcome", "MeasureResult"} <= seen
    defined = {
        name
        for name, value in vars(results_schema).items()
        if isinstance(value, type)
        and issubclass(value, BaseModel)
        and value.__module__ == results_schema.__name__
        and name != "Tolerant"
    }
    assert defined | {SavedRun.__name__, SavedTask.__name__, SavedResults.__name__} <= set(
        GO_STRUCTS
    )


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []
    pending = [annotation]
    while pending:
        current = pending.pop()
        if isinstance(current, type) and issubclass(current, BaseModel):
            found.append(current)
        pending.extend(getattr(current, "__args__", ()))  # X | None, list[X], dict[str, X]
        origin = getattr(current, "__origin__", None)  # Annotated[X, ...] -> X
        if isinstance(origin, type) and issubclass(origin, BaseModel):
            pending.append(origin)
    return found


@pytest.mark.parametrize(
    ("loc", "path"),
    [
        (("tasks", 0, "runs", 1, "validations", "g"), "$.tasks[0].runs[1].validations.g"),
        (("validations", "a.b"), '$.validations["a.b"]'),
        (("validations", 'say "hi"'), '$.validations["say \\"hi\\""]'),
        (("validations", ""), '$.validations[""]'),
    ],
)
def test_json_paths_quote_keys_that_are_not_plain_words(loc: Any, path: str) -> None:
    assert json_path(loc) == path


def test_messages_have_no_lowercased_class_names(tmp_path: Path) -> None:
    doc = make_results({"t1": [make_run()]}, metrics={"blob": "x"})
    with pytest.raises(InputError) as caught:
        load_results(_write(tmp_path, doc))
    assert not re.search(r"instance of|measureresult|input should", str(caught.value))
