"""Go's spellings that waza's texts are made of: `%q` (strconv.Quote), `%v`, encoding/json's
Marshal, strings.ToLower."""

from __future__ import annotations

import math

import pytest

from waza_ci.golang.fmt import go_fixed, go_float, go_list, go_value
from waza_ci.golang.json import go_json
from waza_ci.golang.strconv import go_quote
from waza_ci.golang.strings import go_lower


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ('say "hi"\\', '"say \\"hi\\"\\\\"'),
        ("\a\b\f\n\r\t\v", '"\\a\\b\\f\\n\\r\\t\\v"'),
        ("\x01\x7f\x85", '"\\x01\\x7f\\u0085"'),
        ("é\u200b😀", '"é\\u200b😀"'),
        ("\\d+", '"\\\\d+"'),
    ],
)
def test_quote_is_strconv_quote(text: str, quoted: str) -> None:
    assert go_quote(text) == quoted


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (5.0, "5"),
        (1.5, "1.5"),
        (100000.0, "100000"),
        (0.0001, "0.0001"),
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (1.5e-5, "1.5e-05"),
        (-2.0, "-2"),
        (math.inf, "+Inf"),
    ],
)
def test_v_of_a_float_is_shortest_g(value: float, shown: str) -> None:
    assert go_float(value) == shown


def test_v_of_lists_and_maps() -> None:
    assert go_list(["a b", "c"]) == "[a b c]"
    assert go_list([]) == "[]"
    assert go_value({"b": 1, "a": [True, None]}) == "map[a:[true <nil>] b:1]"


def test_json_is_go_marshal() -> None:
    value = {"b": 1.0, "a": [0.5, 1e-7, 1e21, 0.00001, "<&>", None, True, 123456789012345678.0]}
    assert go_json(value) == (
        '{"a":[0.5,1e-7,1e+21,0.00001,"\\u003c\\u0026\\u003e",null,true,123456789012345680],"b":1}'
    )


def test_lower_is_per_rune_simple_folding() -> None:
    assert go_lower("İSTANBUL ΟΔΟΣ") == "istanbul οδοσ"  # no final sigma, U+0130 -> i
    assert go_lower("ABC") == "abc"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.875, "0.88"),
        (0.125, "0.12"),  # round half to even on the binary value, as Go's strconv does
        (-0.0, "-0.00"),
        (1e21, "1000000000000000000000.00"),
        (math.nan, "NaN"),
        (math.inf, "+Inf"),
        (-math.inf, "-Inf"),
    ],
)
def test_go_fixed_is_percent_dot_2f(value: float, text: str) -> None:
    # fmt_test.go: {"%f", posInf, "+Inf"}, {"%.1f", negInf, "-Inf"}, {"% f", NaN, " NaN"};
    # an exact half rounds to even (strconv/decimal.go shouldRoundUp).
    assert go_fixed(value, 2) == text
