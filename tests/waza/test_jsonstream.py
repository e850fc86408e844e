"""The piecewise results-file parser: the values json.loads gives, or None to defer to it."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from waza_ci.waza import jsonstream
from waza_ci.waza.jsonstream import parse_streamed

FLAG = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def parse(path: Path) -> tuple[dict[str, Any], bool] | None:
    with path.open("rb") as source:
        return parse_streamed(source, flag=FLAG)


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    # Pieces far larger than a read: every value straddles several reads.
    monkeypatch.setattr(jsonstream, "_CHUNK_CHARS", 7)


RUN = {"run_number": 1, "transcript": [{"type": "m", "content": "ünï 😀 " * 30}], "n": 12345}
TEXTS = [
    json.dumps({"schemaVersion": "1.4", "tasks": [{"test_id": "t", "runs": [RUN] * 3}]}),
    json.dumps({"tasks": [], "summary": {"a": 1.5e-7, "b": [True, False, None]}}, indent=2),
    '\r\n{ "tasks" : [ 1 , 22 , 333 ] , "tasks" : [ 4444 ] , "z" : 5 }\r\n\t ',
    '{"a": "x", "tasks": {"not": "an array"}, "b": -0.5e+3}',
    "{}",
    '{"tasks": [{"x": "\\ud800 lone"}]}',
]


@pytest.mark.parametrize("text", TEXTS)
def test_values_are_those_of_json_loads(tmp_path: Path, text: str) -> None:
    path = tmp_path / "results.json"
    path.write_text(text, encoding="utf-8")
    parsed = parse(path)
    assert parsed is not None
    expected = json.loads(text)
    assert parsed[0] == expected and list(parsed[0]) == list(expected)
    assert parsed[1] == bool(FLAG.search(text))


@pytest.mark.parametrize(
    "text",
    [
        '{"tasks": [1, 2,]}',
        '{"tasks": [1, 2]',
        '{"tasks": [1]} extra',
        "[1, 2]",
        '{"a": NaN}',
        '{"tasks": [Infinity]}',
        '{"tasks": [{"score": 1e999}]}',
        '{"big": 1' + "0" * 5000 + "}",
        "\ufeff{}",
        '{"a": "unterminated',
        "",
        "{1: 2}",
    ],
)
def test_anything_doubtful_is_left_to_the_whole_text_parse(tmp_path: Path, text: str) -> None:
    path = tmp_path / "results.json"
    path.write_text(text, encoding="utf-8")
    assert parse(path) is None


def test_invalid_utf8_is_left_to_the_whole_text_parse(tmp_path: Path) -> None:
    # A missing or irregular file never gets here: files.open_regular_file refuses it first.
    path = tmp_path / "results.json"
    path.write_bytes(b'{"tasks": ["\xff"]}')
    assert parse(path) is None


def two_hundred_tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """200 tasks of about 2 kB each, read 4,096 characters at a time."""
    monkeypatch.setattr(jsonstream, "_CHUNK_CHARS", 4096)
    task = {"test_id": "t", "runs": [{"final_output": "y" * 2000}]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"tasks": [task] * 200}), encoding="utf-8")
    return path


def test_the_buffer_holds_one_piece_not_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The memory guard: 200 tasks of about 2 kB each are parsed from a buffer that never
    # grows past a few pieces, never to the file's size.
    path = two_hundred_tasks(tmp_path, monkeypatch)
    largest = 0
    real_read = jsonstream._Reader._read

    def recording_read(self: Any, size: int) -> None:
        nonlocal largest
        real_read(self, size)
        largest = max(largest, len(self._buffer))

    monkeypatch.setattr(jsonstream._Reader, "_read", recording_read)
    parsed = parse(path)
    assert parsed is not None and len(parsed[0]["tasks"]) == 200
    assert path.stat().st_size > 400_000
    assert largest < 3 * 4096


def random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind == 0:
        return rng.choice([True, False, None])
    if kind == 1:
        return rng.randrange(-(10**12), 10**12)
    if kind == 2:
        return rng.uniform(-1e6, 1e6) * rng.choice([1, 1e-9, 1e12])
    if kind in (3, 4):
        return "".join(rng.choice('ab "\\\n\tü😀<&') for _ in range(rng.randrange(12)))
    if kind == 5:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{i}": random_value(rng, depth + 1) for i in range(rng.randrange(4))}


@pytest.mark.parametrize("seed", range(30))
def test_random_documents_at_random_chunk_sizes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(jsonstream, "_CHUNK_CHARS", rng.randrange(1, 14))
    doc = {
        "head": random_value(rng, 0),
        "tasks": [random_value(rng, 1) for _ in range(rng.randrange(5))],
        "tail": random_value(rng, 0),
    }
    text = json.dumps(doc, indent=rng.choice([None, 2]), ensure_ascii=rng.random() < 0.5)
    path = tmp_path / "results.json"
    path.write_text(text, encoding="utf-8")
    parsed = parse(path)
    assert parsed is not None
    assert parsed[0] == json.loads(text)


def test_pieces_alike_in_size_are_scanned_once_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reads of 4,096 characters cut a task of about 2 kB every other task; reading ahead to the
    # size of the largest piece so far means only the first task can be cut (and rescanned).
    path = two_hundred_tasks(tmp_path, monkeypatch)
    scans = 0
    real_init = jsonstream._Reader.__init__

    def counting_init(self: Any, *args: Any) -> None:
        real_init(self, *args)
        scan = self._scan

        def counted(text: str, pos: int) -> tuple[Any, int]:
            nonlocal scans
            scans += 1
            value, end = scan(text, pos)
            return value, end

        self._scan = counted

    monkeypatch.setattr(jsonstream._Reader, "__init__", counting_init)
    parsed = parse(path)
    assert parsed is not None and len(parsed[0]["tasks"]) == 200
    assert scans <= 1 + 200 + 2  # the key, the tasks, at most two rescans
