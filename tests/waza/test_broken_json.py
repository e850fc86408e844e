"""A results file that does not parse is named for what it is, with the fix: empty, truncated,
compressed, UTF-16 or UTF-32, a UTF-8 byte-order mark, binary, not JSON, two documents; never in
the JSON decoder's words. Real files, loaded as every loader loads them (`load_results`)."""

from __future__ import annotations

import codecs
import gzip
import io
import json
import zipfile
from pathlib import Path

import pytest

from tests.conftest import DEMO
from waza_ci.errors import EXIT_INPUT_ERROR, InputError
from waza_ci.waza.results import load_results

RESULTS = (DEMO / "results.json").read_bytes()
TEXT = RESULTS.decode("utf-8")


def _zipped() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("results.json", RESULTS)
    return buffer.getvalue()


CASES = {
    "empty": (b"", ("is empty (0 bytes)", "waza run --output")),
    "white space": (b" \n\t\n", ("holds only white space (4 bytes)",)),
    "gzip": (gzip.compress(RESULTS), ("this is a gzip file", "decompress it first")),
    "zip": (_zipped(), ("this is a zip archive", "unzip it first")),
    "utf-8 bom": (
        codecs.BOM_UTF8 + RESULTS,
        ("UTF-8 byte-order mark", "waza refuses too", "save it without one", "utf8NoBOM"),
    ),
    "utf-16 le bom": (
        codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"),
        ("UTF-16 (little-endian), with a byte-order mark", "iconv -f UTF-16", "`>`"),
    ),
    "utf-16 be bom": (codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), ("UTF-16 (big-endian)",)),
    "utf-16 le, no bom": (TEXT.encode("utf-16-le"), ("UTF-16 (little-endian), not UTF-8",)),
    "utf-16 be, no bom": (TEXT.encode("utf-16-be"), ("UTF-16 (big-endian), not UTF-8",)),
    "utf-32": (codecs.BOM_UTF32_LE + TEXT.encode("utf-32-le"), ("UTF-32 (little-endian)",)),
    "binary": (b"\x00\x00\x00\x01\x02", ("binary file", "00 00 00 01 02")),
    "latin-1": ('{"tasks": [], "eval_name": "caf\xe9"}'.encode("latin-1"), ("not valid UTF-8",)),
    "plain text": (b"hello world\n", ("this is not JSON: it starts with `hello world`",)),
    "html page": (
        b"<!DOCTYPE html>\n<html><body>Sign in</body></html>",
        ("an HTML error or sign-in page", "<!DOCTYPE html>"),
    ),
    "yaml": (b"name: x\ntasks: [tasks/*.yaml]\n", ("this is YAML (an eval spec or a task file?)",)),
    "two documents": (b'{"tasks": []}\n{"tasks": []}\n', ("more than one JSON document", "line 2")),
    "syntax error": (b'{"tasks": [,]}', ("invalid JSON: Expecting value (column 12)",)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_broken_file_is_named_for_what_it_is(tmp_path: Path, case: str) -> None:
    data, words = CASES[case]
    path = tmp_path / "results.json"
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        load_results(path)
    message = str(caught.value)
    assert message.startswith(str(path)), message
    for word in words:
        assert word in message, message
    assert "\n" not in message
    assert caught.value.exit_code == EXIT_INPUT_ERROR
    # Python's decoder's own words are gone where we know better.
    for python_words in ("utf-8-sig", "Expecting property name", "Unterminated string"):
        assert python_words not in message


@pytest.mark.parametrize("cut", [1, 100, 3000, len(RESULTS) - 2])
def test_a_truncated_file_says_where_it_ends(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "cut.json"
    data = RESULTS[:cut]
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        load_results(path)
    message = str(caught.value)
    lines = data.rstrip().count(b"\n") + 1
    assert f"this results file is truncated: it ends at line {lines:,}, column" in message
    assert caught.value.location is not None and caught.value.location.line == lines
    assert "still open, before its JSON does" in message


def test_a_truncated_file_counts_the_containers_still_open(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    path.write_text('{"tasks": [{"test_id": "a", "runs": [{"final_output": "hal')
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert "column 58 (58 bytes), inside a string, with 5 objects or lists still open" in str(
        caught.value
    )


def test_text_shown_from_a_file_is_one_safe_line(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(b"oops\x1b[31m`red`\r\n::error::x")
    with pytest.raises(InputError) as caught:
        load_results(path)
    message = str(caught.value)
    assert "\x1b" not in message and "\r" not in message and "\n" not in message
    assert "`oops\\x1b[31m'red'\\r\\n::error::x`" in message


def test_a_valid_file_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(RESULTS)
    assert load_results(path).model.tasks
    assert json.loads(RESULTS)["tasks"]
