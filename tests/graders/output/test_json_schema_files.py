"""A `$ref` to a file, read as the library's FileLoader reads it (Go's os.Open, then its JSON
decoder), with Go's texts: the errno text of the one owner, the decoder's syntax errors; never
blocking on a FIFO. The relative `$id` of a reference's target applies once."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.graders.output.test_json_schema import invalid, passed, run_schema, verdict

PREFIX = "failed to run grader t: json_schema grader 't': failed to compile JSON schema: "


def referencing(name: str) -> dict[str, object]:
    return {"schema": {"properties": {"id": {"$ref": name}}}}


def compile_error(tmp_path: Path, name: str) -> str | None:
    return run_schema(tmp_path, referencing(name), '{"id": 1}').verdict.error


@pytest.mark.parametrize(
    ("content", "cause"),
    [
        pytest.param(None, "open {path}: no such file or directory", id="missing"),
        pytest.param("", "EOF", id="empty"),
        pytest.param('{"type": ', "unexpected EOF", id="cut short"),
        pytest.param("{nope}", "invalid character 'n' looking for beginning of object key string"),
        pytest.param("[1 2]", "invalid character '2' after array element", id="array"),
        pytest.param('{"a": tru}', "invalid character '}' in literal true (expecting 'e')"),
        pytest.param("{} {}", "invalid character after top-level value", id="two values"),
        pytest.param("NaN", "invalid character 'N' looking for beginning of value", id="NaN"),
    ],
)
def test_a_referenced_file_fails_to_load_with_go_s_text(
    tmp_path: Path, content: str | None, cause: str
) -> None:
    path = tmp_path / "defs.json"
    if content is not None:
        path.write_text(content)
    error = compile_error(tmp_path, "defs.json")
    url = f"file://{path}"
    assert error == PREFIX + f'failing loading "{url}": ' + cause.replace("{path}", str(path))


def test_a_referenced_folder_fails_to_read(tmp_path: Path) -> None:
    (tmp_path / "defs.json").mkdir()
    error = compile_error(tmp_path, "defs.json")
    path = tmp_path / "defs.json"
    assert error == PREFIX + f'failing loading "file://{path}": read {path}: is a directory'


def test_a_referenced_fifo_does_not_block(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "defs.json")
    started = time.monotonic()
    error = compile_error(tmp_path, "defs.json")
    assert time.monotonic() - started < 5
    assert error == PREFIX + f'failing loading "file://{tmp_path}/defs.json": EOF'


def test_a_referenced_file_s_numbers_are_float64(tmp_path: Path) -> None:
    (tmp_path / "defs.json").write_text('{"multipleOf": 0.1}')
    assert verdict(run_schema(tmp_path, referencing("defs.json"), '{"id": 0.3}')) == passed()
    (tmp_path / "defs.json").write_text('{"maximum": 1e400}')
    assert compile_error(tmp_path, "defs.json") == (
        PREFIX + f'failing loading "file://{tmp_path}/defs.json": '
        "json: cannot unmarshal number 1e400 into Go value of type float64"
    )


def test_a_relative_id_of_a_reference_s_target_applies_once(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "integer.json").write_text('{"type": "integer"}')
    schema = {
        "properties": {"id": {"$ref": "#/$defs/folder"}},
        "$defs": {"folder": {"$id": "sub/", "$ref": "integer.json"}},
    }
    assert verdict(run_schema(tmp_path, {"schema": schema}, '{"id": 1}')) == passed()
    assert verdict(run_schema(tmp_path, {"schema": schema}, '{"id": "1"}')) == invalid(
        tmp_path, "- at '/id': got string, want integer"
    )
