"""Go's spellings that waza's texts are made of (`%q`, `%v`, encoding/json, ToLower) and Go's
regular expressions (RE2, Go's error texts)."""

from __future__ import annotations

import math

import pytest

from waza_ci.graders.gofmt import go_float, go_json, go_list, go_lower, go_quote, go_value
from waza_ci.graders.goregex import GoRegexError, compile_go, matches


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
    ("pattern", "error"),
    [
        ("[invalid", "error parsing regexp: missing closing ]: `[invalid`"),
        ("(?=x)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
        ("a\\", "error parsing regexp: trailing backslash at end of expression: ``"),
        ("x{1001}", "error parsing regexp: invalid repeat count: `{1001}`"),
        ("a**", "error parsing regexp: invalid nested repetition operator: `**`"),
        ("\\C", "error parsing regexp: invalid escape sequence: `\\C`"),
    ],
)
def test_patterns_go_refuses_fail_with_go_s_text(pattern: str, error: str) -> None:
    with pytest.raises(GoRegexError) as caught:
        compile_go(pattern)
    assert str(caught.value) == error


def test_matching_is_re2_s() -> None:
    assert not matches(compile_go("done$"), "done\n")  # Python's $ would match before \n
    assert matches(compile_go("(?m)done$"), "done\n")
    assert not matches(compile_go("\\d"), "٣")  # ASCII digits only
    assert matches(compile_go("(?i)ǅ"), "ǆ")  # Unicode simple folding
    assert matches(compile_go("[[:alpha:]]+\\pL"), "abc")


# Go 1.25's regexp/syntax `unicodeTable`: canonicalName lookups, unicode.CategoryAliases, and
# the classes Any, ASCII, Assigned, LC and Cn (waza is built with Go 1.26).
@pytest.mark.parametrize(
    ("pattern", "matching", "not_matching"),
    [
        ("^\\p{Letter}+$", "héllo", "h3llo"),
        ("^\\p{letter}+$", "ΔΔ", "1"),
        ("^\\p{Uppercase_Letter}$", "É", "é"),
        ("^\\p{uppercase-letter}$", "É", "é"),
        ("^\\p{lu}$", "É", "é"),
        ("^\\pl$", "é", "1"),
        ("^\\P{Decimal Number}$", "a", "7"),
        ("^[\\p{Digit}x]+$", "1x2", "1y"),
        ("^[^\\p{Punct}]+$", "ab", "a,b"),
        ("^\\p{ASCII}+$", "ab~", "é"),
        ("^\\P{ascii}$", "é", "a"),
        ("^[\\P{ASCII}]$", "é", "a"),
        ("^\\p{Assigned}$", "a", "\u0378"),
        ("^\\p{Cn}$", "\u0378", "a"),
        ("^\\P{Unassigned}$", "a", "\u0378"),
        ("^\\p{LC}+$", "aǅB", "ª"),
        ("^\\p{Cased_Letter}+$", "aB", "ª"),
        ("^\\P{LC}$", "ª", "a"),
        ("^\\p{any}$", "\u0378", ""),
        ("^\\p{Greek}+$", "αβ", "ab"),
    ],
)
def test_go_s_unicode_class_names(pattern: str, matching: str, not_matching: str) -> None:
    compiled = compile_go(pattern)
    assert matches(compiled, matching)
    assert not matches(compiled, not_matching)


@pytest.mark.parametrize(
    "pattern",
    ["\\\\p{Letter}", "\\Q\\p{Letter}\\E", "[\\\\]p{Letter}", "[]\\\\p]{Letter}"],
    ids=["escaped backslash", "quoted", "class with a backslash", "class starting with ]"],
)
def test_a_class_name_only_after_an_escape_is_rewritten(pattern: str) -> None:
    assert matches(compile_go(pattern), "\\p{Letter}")


def test_an_unknown_class_name_is_refused_with_go_s_text() -> None:
    with pytest.raises(GoRegexError) as caught:
        compile_go("\\p{Nope}")
    assert str(caught.value) == "error parsing regexp: invalid character class range: `\\p{Nope}`"
