"""Go's strconv.ParseFloat (waza_ci/golang/strconv.py), restating cases of Go's own table
`atoftests` in src/strconv/atof_test.go and the seeds of its fuzz test: the literals Go takes,
the underscores it allows (underscoreOK, src/strconv/atoi.go), and where it says `invalid
syntax` or `value out of range`."""

from __future__ import annotations

import math

import pytest

from waza_ci.golang.strconv import go_parse_float

READ = [
    ("1", 1.0),
    ("+1", 1.0),
    ("-0", -0.0),
    ("1e23", 1e23),
    ("1E23", 1e23),
    ("625e-3", 0.625),
    (".5", 0.5),
    ("5.", 5.0),
    ("1e-320", 1e-320),
    ("1e-350", 0.0),
    ("1.7976931348623157e308", 1.7976931348623157e308),
    ("1090544144181609348671888949248", 1.0905441441816093e30),
    ("0x1p-2", 0.25),
    ("0x1.fffffffffffffp1023", 1.7976931348623157e308),
    ("0x1_ep-1", 15.0),
    ("1_23.50_0_0e+1_2", 1.235e14),
    ("0x_1_2.3_4_5p+1_2", 74565.0),
    ("infinity", math.inf),
    ("+INF", math.inf),
    ("-Infinity", -math.inf),
]

INVALID = [
    "",
    " 1",
    "1 ",
    "1x",
    "1.1.",
    "1e",
    "0x1",  # a hexadecimal mantissa needs a `p` exponent
    "0x1e2",
    "+nan",  # a sign only before an infinity
    "-_123.5e+12",
    "_123.5e+12",
    "1__23.5e+12",
    "123_.5e+12",
    "123._5e+12",
    "123.5_e+12",
    "123.5e_+12",
    "123.5e+_12",
    "123.5e+12_",
    "-_0x12.345p+12",
    "0x__12.345p+12",
    "0x12_.345p+12",
    "0x12._345p+12",
]


@pytest.mark.parametrize(("text", "value"), READ)
def test_go_reads_these(text: str, value: float) -> None:
    got = go_parse_float(text)
    assert got == value and math.copysign(1, got) == math.copysign(1, value)


def test_nan_in_any_case() -> None:
    assert math.isnan(go_parse_float("NaN")) and math.isnan(go_parse_float("nan"))


@pytest.mark.parametrize("text", INVALID)
def test_go_refuses_these_as_invalid_syntax(text: str) -> None:
    with pytest.raises(ValueError) as refused:
        go_parse_float(text)
    assert str(refused.value).endswith(": invalid syntax")
    assert str(refused.value).startswith('strconv.ParseFloat: parsing "')


@pytest.mark.parametrize(
    "text", ["2e308", "1.7976931348623159e308", "1e+18446744073709551616", "0x1p1024"]
)
def test_an_overflow_is_out_of_range(text: str) -> None:
    with pytest.raises(ValueError, match=r": value out of range$"):
        go_parse_float(text)
