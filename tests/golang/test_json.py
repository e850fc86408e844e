"""The Go-style JSON writer: the same bytes as the plain standard-library rendering, streamed."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest

from waza_ci.golang.json import (
    UnsupportedValueError,
    dumps_go_json,
    go_numbers,
    go_round_trip,
    write_go_json,
)
from waza_ci.golang.json_scanner import GoJSONError

_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def reference(value: Any) -> str:
    """What waza-ci wrote before the streaming writer: the whole text in one go."""
    text = json.dumps(go_numbers(value), indent=2, ensure_ascii=False, allow_nan=False)
    return re.sub("[<>&\u2028\u2029]", lambda m: _ESCAPES[m.group(0)], text) + "\n"


def deep(levels: int) -> list[Any]:
    """`levels` lists nested in one another, each also holding an integral float."""
    root: list[Any] = []
    node = root
    for _ in range(levels):
        child: list[Any] = []
        node.extend([child, 1.0])
        node = child
    return root


RUN = {
    "run_number": 1,
    "final_output": "ünï <b>&</b> \u2028 \u2029 \x1f \x7f 😀",
    "transcript": [{"type": "m", "content": 'a\nb\t"q"', "n": [1.0, 2.5, -0.0, 3]}],
    "validations": {"g": {"score": 1.0, "weight": 0.5, "details": {}, "args": []}},
    "empty": {},
    "none": None,
    "flags": [True, False],
}
DOCUMENTS = [
    {"tasks": [{"test_id": "t", "runs": [RUN, RUN], "stats": {"mean": 1.0, "sd": 0.25}}]},
    {"tasks": [], "summary": {}, "big": 2**70, "exp": 1e22, "near": 1e20, "int_float": 1e16},
    {"tiny": [1e-5, 1e-7, 5e-324, -2.5e-9], "tasks": [{"runs": [{"t": [1e-12, 1.0]}]}]},
    {"x": [{"y": [{"z": [[1.0]]}]}]},
    {"deep": deep(40)},
    {"deeper than pydantic-core serializes": deep(300)},
    [1.0, "top-level list", {"a": [[], {}]}],
    "just a <string>",
    3.0,
    {},
    [],
]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_bytes_are_those_of_the_whole_text_rendering(document: Any) -> None:
    stream = io.BytesIO()
    write_go_json(document, stream)
    assert stream.getvalue().decode("utf-8") == reference(document)
    assert dumps_go_json(document) == reference(document)


@pytest.mark.parametrize("number", [float("nan"), float("inf"), -float("inf")])
def test_a_number_json_cannot_hold_is_refused_not_written(number: float) -> None:
    with pytest.raises(ValueError, match="JSON compliant"):
        dumps_go_json({"tasks": [{"runs": [{"score": number}]}]})


def test_a_lone_surrogate_fails_as_before() -> None:
    with pytest.raises(UnicodeEncodeError):
        dumps_go_json({"tasks": [{"runs": [{"x": "bad \ud800"}]}]})


class RecordingStream(io.BytesIO):
    def __init__(self) -> None:
        super().__init__()
        self.largest_write = 0

    def write(self, data: Any) -> int:
        self.largest_write = max(self.largest_write, len(data))
        return super().write(data)


def test_no_write_is_larger_than_one_runs_member() -> None:
    # The memory guard: 50 runs with 40 kB transcripts are written one member at a time, so
    # the writer never holds more than one transcript's bytes, not the document's.
    transcript = [{"type": "assistant.message", "content": "x" * 1000} for _ in range(40)]
    one = len(dumps_go_json(transcript).encode())
    runs = [{"run_number": n, "transcript": transcript, "score": 1.0} for n in range(50)]
    document = {
        "tasks": [{"test_id": f"t{n}", "runs": runs[n * 10 : n * 10 + 10]} for n in range(5)]
    }
    stream = RecordingStream()
    write_go_json(document, stream)
    assert len(stream.getvalue()) > 50 * one
    assert stream.largest_write < 1.2 * one
    assert stream.getvalue().decode() == reference(document)


# --- go_round_trip: json.Marshal, then json.Unmarshal into `any` -----------------------------
# encoding/json: decode.go stores every number of an `any` as float64 and an invalid `\ud800`
# escape as U+FFFD (unquote); encode.go's mapEncoder sorts the keys, and floatEncoder refuses a
# NaN or an infinity with UnsupportedValueError ("json: unsupported value: " + the %v of it).


def test_a_round_trip_makes_numbers_float64_and_keys_strings_in_their_order() -> None:
    value = {"b": [1, 2.5, True, None], 3: ("x",), "a": {"n": 10**20}}
    assert go_round_trip(value) == {"b": [1.0, 2.5, True, None], "3": ["x"], "a": {"n": 1e20}}
    assert list(go_round_trip(value)) == ["b", "3", "a"]
    assert type(go_round_trip(7)) is float


def test_a_lone_surrogate_becomes_one_replacement_character() -> None:
    assert go_round_trip({"k\udc80": "a\ud800b"}) == {"k\ufffd": "a\ufffdb"}
    assert go_round_trip("\U0001f600") == "\U0001f600"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (float("nan"), "json: unsupported value: NaN"),
        ([1, float("-inf")], "json: unsupported value: -Inf"),
        # Go walks map keys sorted: "a" before "b", whatever the insertion order.
        ({"b": float("nan"), "a": [float("inf")]}, "json: unsupported value: +Inf"),
        ({"b": [float("inf")], "a": {"z": float("nan")}}, "json: unsupported value: NaN"),
    ],
)
def test_a_value_json_cannot_hold_is_refused_in_gos_words(value: Any, text: str) -> None:
    with pytest.raises(UnsupportedValueError) as raised:
        go_round_trip(value)
    assert str(raised.value) == text


def test_an_integer_beyond_float64_is_refused_as_unmarshal_refuses_it() -> None:
    with pytest.raises(GoJSONError, match=r"^json: cannot unmarshal number 1000+ into Go value"):
        go_round_trip([10**400])
