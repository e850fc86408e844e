"""Results files: tolerant loading of real waza files, precise errors, Go-compatible writing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_results, make_run, require_shared, shared_files
from waza_ci.errors import InputError
from waza_ci.golang.json import dumps_go_json
from waza_ci.waza.results import load_results, name_results_files

SHARED_SAMPLES = shared_files("waza-samples", "**/*.json")


@pytest.mark.parametrize("sample", SHARED_SAMPLES)
def test_every_shared_sample_loads_and_round_trips(sample: Path | None) -> None:
    folder = require_shared("waza-samples")
    assert sample is not None and len(list(folder.rglob("*.json"))) == 10
    results = load_results(sample)
    original = json.loads(sample.read_text())
    assert results.model.tasks
    assert json.loads(dumps_go_json(results.raw)) == original


def test_a_hand_made_dashboard_fixture_in_the_results_shape_loads(tmp_path: Path) -> None:
    # Modelled on waza's hand-made showcase files (shared/reference §1.6): no schemaVersion,
    # legacy session_digest keys, grader types that are not waza kinds, old transcript types.
    doc = {
        "eval_id": "showcase-1",
        "skill": "demo",
        "eval_name": "demo",
        "timestamp": "2026-02-01T10:00:00Z",
        "config": {"runs_per_test": 1, "model_id": "m", "engine_type": "copilot-sdk"},
        "summary": {"total_tests": 1, "succeeded": 1, "success_rate": 1.0},
        "tasks": [
            {
                "test_id": "explain-1",
                "display_name": "Explain",
                "status": "passed",
                "runs": [
                    {
                        "run_number": 1,
                        "status": "passed",
                        "duration_ms": 1200,
                        "validations": {
                            "mentions-x": {
                                "identifier": "mentions-x",
                                "type": "regex",
                                "score": 1,
                                "passed": True,
                                "feedback": "ok",
                            },
                            "keyword": {
                                "identifier": "keyword",
                                "type": "keyword",
                                "score": 1,
                                "passed": True,
                            },
                        },
                        "session_digest": {
                            "total_turns": 3,
                            "tokens_in": 10,
                            "tokens_out": 5,
                            "tokens_total": 15,
                            "tool_call_count": 0,
                            "tools_used": [],
                            "errors": [],
                        },
                        "transcript": [
                            {"type": "Turn", "content": "hi"},
                            {"type": "ToolExecutionStart", "tool": "read"},
                        ],
                        "final_output": "x explained",
                    }
                ],
            }
        ],
    }
    path = tmp_path / "showcase.json"
    path.write_text(json.dumps(doc))
    results = load_results(path)
    assert results.model.tasks[0].runs[0].validations is not None
    assert json.loads(dumps_go_json(results.raw)) == doc


def test_unknown_fields_survive(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    doc = {
        "schemaVersion": "1.9",
        "future": {"x": 1},
        "tasks": [{"test_id": "t", "new_task_field": 2, "runs": [{"novel": True}]}],
    }
    path.write_text(json.dumps(doc))
    results = load_results(path)
    assert results.raw == doc
    assert json.loads(dumps_go_json(results.raw)) == doc


def test_go_style_output() -> None:
    text = dumps_go_json({"score": 1.0, "half": 0.5, "html": "<a & b>"})
    assert text == '{\n  "score": 1,\n  "half": 0.5,\n  "html": "\\u003ca \\u0026 b\\u003e"\n}\n'


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"schemaVersion": "2.0"}', 'run "waza migrate <file>"'),
        ('{"schemaVersion": "one"}', "not MAJOR.MINOR"),
        ('{"kind": "waza.preflight"}', "not evaluation results"),
        ("[1, 2]", "must hold a JSON object"),
        ('{"tasks": [{"runs": []}]}', "$.tasks[0].test_id"),
        (
            '{"tasks": [{"test_id": "t", "runs": [{"final_output": 5}]}]}',
            "$.tasks[0].runs[0].final_output",
        ),
    ],
)
def test_bad_results_name_the_place(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert message in str(caught.value)
    assert str(path) in str(caught.value)


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{\n  "tasks": [\n    oops\n')
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert str(caught.value).startswith(f"{path}:3: invalid JSON")


def test_names_are_disambiguated_only_when_needed(tmp_path: Path) -> None:
    assert name_results_files([Path("a/one.json"), Path("b/two.json")]) == ["one.json", "two.json"]
    paths = [
        tmp_path / "a" / "results.json",
        tmp_path / "b" / "c" / "results.json",
        tmp_path / "other.json",
    ]
    # Relative to the folder they share: never absolute, never climbing out with "..".
    assert name_results_files(paths) == ["a/results.json", "b/c/results.json", "other.json"]


# --- strict types beside tolerated unknown fields, as Go's decoder reads them ---------------


def _results_with(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    ("patch", "json_path"),
    [
        ({"config": {"runs_per_test": "bad"}}, "$.config.runs_per_test"),
        ({"config": {"runs_per_test": 1.5}}, "$.config.runs_per_test"),
        ({"config": {"runs_per_test": 2**64}}, "$.config.runs_per_test"),
        ({"summary": {"success_rate": "high"}}, "$.summary.success_rate"),
        ({"summary": {"usage": {"input_tokens": "12"}}}, "$.summary.usage.input_tokens"),
        ({"metrics": {"m": {"passed": "yes"}}}, "$.metrics.m.passed"),
        ({"timestamp": "yesterday"}, "$.timestamp"),
        ({"is_baseline": 1}, "$.is_baseline"),
        ({"eval_name": ["x"]}, "$.eval_name"),
    ],
)
def test_wrong_types_are_refused_with_their_json_path_despite_unknown_fields(
    tmp_path: Path, patch: dict[str, Any], json_path: str
) -> None:
    doc = make_results({"t1": [make_run()]}, future_field=True)
    doc.update(patch)
    path = _results_with(tmp_path, doc)
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert caught.value.location is not None
    assert caught.value.location.json_path == json_path
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("run_patch", "json_path"),
    [
        ({"attempts": "1"}, "$.tasks[0].runs[0].attempts"),
        (
            {"session_digest": {"usage": {"turns": 1.5}}},
            "$.tasks[0].runs[0].session_digest.usage.turns",
        ),
        ({"validations": {"g": {"score": "1"}}}, "$.tasks[0].runs[0].validations.g.score"),
        ({"skill_invocations": [{"name": 3}]}, "$.tasks[0].runs[0].skill_invocations[0].name"),
        ({"checkpoints": [{"after_turn": "one"}]}, "$.tasks[0].runs[0].checkpoints[0].after_turn"),
    ],
)
def test_wrong_types_inside_runs_are_refused(
    tmp_path: Path, run_patch: dict[str, Any], json_path: str
) -> None:
    path = _results_with(tmp_path, make_results({"t1": [make_run(future=1, **run_patch)]}))
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert caught.value.location is not None and caught.value.location.json_path == json_path


def test_task_stats_of_a_wrong_type_are_refused(tmp_path: Path) -> None:
    doc = make_results({"t1": [make_run()]})
    doc["tasks"][0]["stats"] = {"total_runs": "3", "novel": {}}
    with pytest.raises(InputError, match=re.escape("$.tasks[0].stats.total_runs")):
        load_results(_results_with(tmp_path, doc))


def test_nulls_are_zero_values_and_unknown_fields_stay(tmp_path: Path) -> None:
    doc = make_results({"t1": [make_run(attempts=None, future={"deep": [1]})]}, novel=None)
    doc["config"]["runs_per_test"] = None
    results = load_results(_results_with(tmp_path, doc))
    assert results.model.tasks[0].runs[0].attempts == 0
    assert results.raw == doc


# --- results schemaVersion, as waza's compatibility corpus tests it -----------------------


@pytest.mark.parametrize("version", [None, "", "1.0", "1.1", "1.4", "1.5", "1.99", "+1.2"])
def test_results_schema_versions_waza_accepts(tmp_path: Path, version: str | None) -> None:
    doc = make_results({"t1": [make_run()]}, future_field=True)
    doc["schemaVersion"] = version
    assert load_results(_results_with(tmp_path, doc)).model.tasks


@pytest.mark.parametrize(
    ("version", "message"),
    [
        (
            "2.0",
            'uses schemaVersion "2.0" (major 2), but this waza supports schema major 1 (current '
            'schemaVersion 1.5); run "waza migrate <file>" to migrate the artifact file',
        ),
        ("3.1", "(major 3), but this waza supports schema major 1"),
        ("broken", "is not MAJOR.MINOR"),
        ("1.-1", "minor version must be a non-negative integer"),
        (" 1.4", "major version"),
        (1.4, "schemaVersion must be a string"),
    ],
)
def test_results_schema_versions_waza_refuses(tmp_path: Path, version: Any, message: str) -> None:
    doc = make_results({"t1": [make_run()]})
    doc["schemaVersion"] = version
    with pytest.raises(InputError) as caught:
        load_results(_results_with(tmp_path, doc))
    assert message in caught.value.message
    assert caught.value.location is not None
    assert caught.value.location.json_path == "$.schemaVersion"


# --- numbers JSON cannot hold -------------------------------------------------------------


@pytest.mark.parametrize(
    ("literal", "json_path"),
    [
        ("1e999", "$.tasks[0].runs[0].validations.g.score"),
        ("-1e999", "$.tasks[0].runs[0].validations.g.score"),
        ("NaN", "$.tasks[0].runs[0].validations.g.score"),
        ("Infinity", "$.tasks[0].runs[0].validations.g.score"),
        ("-Infinity", "$.tasks[0].runs[0].validations.g.score"),
    ],
)
def test_numbers_that_are_not_finite_are_refused_with_their_path(
    tmp_path: Path, literal: str, json_path: str
) -> None:
    doc = make_results({"t1": [make_run(validations={"g": {"score": 0.5}})]})
    text = json.dumps(doc).replace('"score": 0.5', f'"score": {literal}')
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert caught.value.location is not None and caught.value.location.json_path == json_path
    assert literal in caught.value.message


def test_a_non_finite_number_in_an_unknown_field_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"tasks": [], "future": {"list": [1, 2, 1e400]}}')
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert caught.value.location is not None
    assert caught.value.location.json_path == "$.future.list[2]"


def test_100000_levels_of_nesting_are_one_input_error(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"tasks": [], "deep": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(InputError, match="nested too deeply"):
        load_results(path)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_the_writer_never_writes_nan_or_infinity(value: float) -> None:
    with pytest.raises(ValueError, match="not JSON compliant"):
        dumps_go_json({"score": value})


def test_the_nested_baseline_outcome_is_typed_too(tmp_path: Path) -> None:
    baseline = make_results({"t1": [make_run()]})
    baseline["tasks"][0]["runs"][0]["duration_ms"] = "slow"
    doc = make_results({"t1": [make_run()]}, is_baseline=False, baseline_outcome=baseline)
    with pytest.raises(InputError) as caught:
        load_results(_results_with(tmp_path, doc))
    assert caught.value.location is not None
    assert caught.value.location.json_path == "$.baseline_outcome.tasks[0].runs[0].duration_ms"
    baseline["tasks"][0]["runs"][0]["duration_ms"] = 5
    assert load_results(_results_with(tmp_path, doc)).raw["baseline_outcome"] == baseline
