"""Go's regular expressions (regexp, RE2): Go's error texts, RE2's matching, and the Unicode
class names Go 1.25 added."""

from __future__ import annotations

import pytest

from waza_ci.golang.regexp import GoRegexError, compile_go, matches


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
