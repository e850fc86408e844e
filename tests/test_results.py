"""Results files: tolerant loading of real waza files, precise errors, Go-compatible writing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from waza_ci.errors import InputError
from waza_ci.results import dump_results, load_results, name_results_files

SAMPLE_FILES = sorted(SAMPLES.rglob("*.json"))


def test_the_shared_samples_are_present() -> None:
    assert len(SAMPLE_FILES) == 10


@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=lambda p: p.name)
def test_every_sample_loads_and_round_trips(sample: Path) -> None:
    results = load_results(sample)
    original = json.loads(sample.read_text())
    assert results.model.tasks
    assert json.loads(dump_results(results.raw)) == original


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
    assert json.loads(dump_results(results.raw)) == doc


def test_go_style_output() -> None:
    text = dump_results({"score": 1.0, "half": 0.5, "html": "<a & b>"})
    assert text == '{\n  "score": 1,\n  "half": 0.5,\n  "html": "\\u003ca \\u0026 b\\u003e"\n}\n'


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"schemaVersion": "2.0"}', "waza migrate"),
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
