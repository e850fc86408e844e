"""for_log and json_for_log: untrusted text made safe for one log line."""

from __future__ import annotations

import json

import pytest

from waza_ci.report.text_safety import for_log, json_for_log


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain text\twith tab", "plain text\twith tab"),
        ("a\r\nb\rc\nd", "a\\r\\nb\\rc\\nd"),
        ("red \x1b[31mtext", "red \\x1b[31mtext"),
        ("nul\x00 del\x7f nel\x85", "nul\\x00 del\\x7f nel\\x85"),
        ("line\u2028para\u2029", "line\\u2028para\\u2029"),
        ("\u202eevil\u2066x\u2069", "\\u202eevil\\u2066x\\u2069"),
        ("lone \ud800", "lone \\ud800"),
        ("::error::x", "\\x3a:error::x"),
        ("  ::add-mask::x", "  \\x3a:add-mask::x"),
        ("a::b", "a::b"),
        (":x", ":x"),
    ],
)
def test_for_log_escapes_visibly(text: str, expected: str) -> None:
    assert for_log(text) == expected


def test_for_log_output_is_one_line_that_never_starts_a_command() -> None:
    nasty = "".join(chr(c) for c in range(0x00, 0xA0)) + "\u2028\u2029::x"
    for text in (nasty, "\n::error::x", "\r::x", "::" + nasty):
        escaped = for_log(text)
        assert escaped.splitlines() == [escaped] or escaped == ""
        assert not escaped.lstrip().startswith("::")
        escaped.encode("utf-8")  # no lone surrogate left


def test_json_for_log_keeps_the_values_and_escapes_separators() -> None:
    value = {"k\u2028\x85": ["\u202e", "\ud800", "é", "\x7f"]}
    serialized = json_for_log(json.dumps(value, ensure_ascii=False))
    assert json.loads(serialized) == value
    assert "é" in serialized
    for char in ("\u2028", "\x85", "\u202e", "\ud800", "\x7f"):
        assert char not in serialized
