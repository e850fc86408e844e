"""Argument matchers: waza's Go tests (argmatcher matcher_test.go, coverage_test.go) restated
as tables, then waza's exact texts, Go's spellings and RE2's rules."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from waza_ci.golang.yaml import node_value
from waza_ci.graders.session.argmatcher import Matcher, argument_failures
from waza_ci.graders.session.argmatcher_decode import MatcherError, decode_matcher

CWD = "/work/project"
"""The working directory (waza's process cwd): a schema's URL in the matcher's texts."""


def _matcher(text: str) -> Matcher:
    """The matcher written as `text`, decoded as the value of one key of a `config` block."""
    root = yaml.compose(f"arg: {text}")
    assert isinstance(root, yaml.MappingNode)
    return decode_matcher(root.value[0][1], root)


def _error(text: str) -> str:
    with pytest.raises(MatcherError) as raised:
        _matcher(text)
    return str(raised.value)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        pytest.param('{equals: "hello"}', "equals", id="equals-string"),
        pytest.param("{equals: 42}", "equals", id="equals-number"),
        pytest.param("{equals: {a: 1, b: 2}}", "equals", id="equals-object"),
        pytest.param('{regex: "^auth"}', "regex", id="regex"),
        pytest.param('{contains: "abc"}', "contains", id="contains"),
        pytest.param("{range: {gte: 1, lte: 5}}", "range", id="range-gte-lte"),
        pytest.param("{range: {gt: 0}}", "range", id="range-gt-only"),
        pytest.param("{json_schema: {type: object, required: [a]}}", "json_schema", id="schema"),
    ],
)
def test_decoding(text: str, kind: str) -> None:
    assert _matcher(text).kind == kind


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "{}",
            "argmatcher: empty matcher; expected one of equals, regex, contains, range, "
            "json_schema",
            id="empty-matcher",
        ),
        pytest.param(
            '{regex: "a", contains: "b"}',
            "argmatcher: exactly one matcher kind allowed, got 2 (regex, contains)",
            id="two-keys",
        ),
        pytest.param(
            '{wat: "x"}',
            'argmatcher: unknown matcher kind "wat" (allowed: equals, regex, contains, range, '
            "json_schema)",
            id="unknown-kind",
        ),
        pytest.param(
            '{regex: ""}',
            "argmatcher: regex matcher requires a non-empty pattern",
            id="regex-empty",
        ),
        pytest.param(
            '{regex: "["}',
            'argmatcher: invalid regex "[": error parsing regexp: missing closing ]: `[`',
            id="regex-invalid",
        ),
        pytest.param(
            '{contains: ""}',
            "argmatcher: contains matcher requires a non-empty substring",
            id="contains-empty",
        ),
        pytest.param(
            "{range: {}}",
            "argmatcher: range matcher requires at least one bound (gte, lte, gt, lt)",
            id="range-without-bounds",
        ),
        pytest.param(
            "{json_schema: {}}",
            "argmatcher: json_schema matcher requires a non-empty schema",
            id="json-schema-empty",
        ),
        pytest.param(
            '"foo"',
            "argmatcher: expected mapping (e.g. {regex: '^foo'}), got scalar",
            id="not-a-mapping",
        ),
        pytest.param(
            "[regex, x]",
            "argmatcher: expected mapping (e.g. {regex: '^foo'}), got sequence",
            id="a-sequence",
        ),
        pytest.param(
            "{regex: 'a(?=b)'}",
            'argmatcher: invalid regex "a(?=b)": error parsing regexp: invalid or unsupported '
            "Perl syntax: `(?=`",
            id="lookahead-is-not-re2",
        ),
        pytest.param(
            "{regex: [a]}",
            "argmatcher regex: yaml: unmarshal errors: line 1: cannot unmarshal !!seq into string",
            id="regex-not-a-string",
        ),
        pytest.param(
            "{contains: {a: 1}}",
            "argmatcher contains: yaml: unmarshal errors: line 1: cannot unmarshal !!map into "
            "string",
            id="contains-not-a-string",
        ),
        pytest.param(
            "{range: 5}",
            "argmatcher range: yaml: unmarshal errors: line 1: cannot unmarshal !!int `5` into "
            "argmatcher.RangeSpec",
            id="range-not-a-mapping",
        ),
        pytest.param(
            "{range: {gte: abc, lt: 'x'}}",
            "argmatcher range: yaml: unmarshal errors: line 1: cannot unmarshal !!str `abc` into "
            "float64; line 1: cannot unmarshal !!str `x` into float64",
            id="range-bounds-not-numbers",
        ),
        pytest.param(
            "{range: {gte: a-very-long-value}}",
            "argmatcher range: yaml: unmarshal errors: line 1: cannot unmarshal !!str "
            "`a-very-...` into float64",
            id="long-values-are-cut-as-yaml-v3-cuts-them",
        ),
        pytest.param(
            "{range: {min: 1, max: 5}}",
            "argmatcher: range matcher requires at least one bound (gte, lte, gt, lt)",
            id="range-unknown-keys-are-ignored",
        ),
        pytest.param(
            "{json_schema: [a]}",
            "argmatcher json_schema: yaml: unmarshal errors: line 1: cannot unmarshal !!seq into "
            "map[string]interface {}",
            id="schema-not-a-mapping",
        ),
        pytest.param(
            "{range: ~}",
            "argmatcher: range matcher requires at least one bound (gte, lte, gt, lt)",
            id="range-null",
        ),
    ],
)
def test_decoding_errors(text: str, message: str) -> None:
    assert _error(text) == message


def test_an_invalid_schema_is_refused() -> None:
    assert _error('{json_schema: {type: "nonsense"}}').startswith(
        "argmatcher: invalid json_schema: "
    )


def test_lines_are_counted_within_the_config_block() -> None:
    document = "name: x\nconfig:\n  expect:\n    - tool: x\n      args:\n        a: {regex: [1]}\n"
    root = yaml.compose(document)
    assert isinstance(root, yaml.MappingNode)
    config = root.value[1][1]  # starts on the file's line 3, the block's line 1
    node = config.value[0][1].value[0].value[1][1].value[0][1]
    with pytest.raises(MatcherError) as raised:
        decode_matcher(node, config)
    assert "line 4: cannot unmarshal !!seq into string" in str(raised.value)
    assert raised.value.node is node


def test_a_null_matcher_decodes_and_fails_only_at_construction() -> None:
    matcher = _matcher("~")
    assert matcher.construction_error == "argmatcher: matcher kind not set"
    assert matcher.as_json() is None
    assert matcher.mismatch("x", CWD) == 'argmatcher: unsupported matcher kind ""'
    assert _matcher("{regex: a}").construction_error is None


def test_unknown_range_keys_are_ignored_beside_a_bound() -> None:
    assert _matcher("{range: {gte: 1, max: 5}}").operand == {"gte": 1.0}


# --- matching ------------------------------------------------------------------------------


def _equals(expected: Any, actual: Any) -> str | None:
    return Matcher("equals", expected).mismatch(actual, CWD)


@pytest.mark.parametrize(
    ("expected", "actual", "reason"),
    [
        pytest.param("hello", "hello", None, id="string-match"),
        pytest.param("hello", "world", 'expected "hello", got "world"', id="string-mismatch"),
        pytest.param(42, 42.0, None, id="int-vs-float"),
        pytest.param({"a": 1}, {"a": 1.0}, None, id="object-match"),
        pytest.param({"a": 1}, {"a": 2}, 'expected {"a":1}, got {"a":2}', id="object-mismatch"),
        pytest.param(None, None, None, id="nil-match"),
        pytest.param([1, 2], [1, 2], None, id="array-match"),
        pytest.param(42, "42", 'expected 42, got "42"', id="a-string-is-not-a-number"),
        pytest.param(True, 1, "expected true, got 1", id="a-bool-is-not-a-number"),
        pytest.param(None, "", 'expected null, got ""', id="null-is-not-empty"),
        pytest.param(
            "<a&b>",
            {"k": "<a&b>"},
            'expected "<a&b>", got {"k":"\\u003ca\\u0026b\\u003e"}',
            id="go-json-escapes-html",
        ),
        pytest.param(1e21, 1e21, None, id="large-numbers"),
        pytest.param(
            1,
            1e21,
            "expected 1, got 1e+21",
            id="go-json-exponent-form",
        ),
        pytest.param(
            float("nan"),
            1,
            "argmatcher equals: cannot normalise expected: json: unsupported value: NaN",
            id="nan-is-not-json",
        ),
        pytest.param(9007199254740993, 9007199254740992, None, id="numbers-are-float64"),
    ],
)
def test_equals(expected: Any, actual: Any, reason: str | None) -> None:
    assert _equals(expected, actual) == reason


@pytest.mark.parametrize(
    ("text", "value", "reason"),
    [
        pytest.param("{regex: ^auth}", "auth-login", None, id="regex-match"),
        pytest.param(
            "{regex: ^auth}", "login", 'regex "^auth" did not match "login"', id="regex-mismatch"
        ),
        pytest.param(
            "{regex: ^auth}",
            {"x": 1},
            'regex "^auth" did not match "{\\"x\\":1}"',
            id="regex-on-an-object-reads-its-json",
        ),
        pytest.param("{regex: '^\\{'}", {"x": 1}, None, id="an-object-starts-with-a-brace"),
        pytest.param(
            "{regex: ^AUTH}",
            "auth",
            'regex "^AUTH" did not match "auth"',
            id="regex-is-case-sensitive",
        ),
        pytest.param(
            "{regex: '^ls$'}",
            "ls\n",
            'regex "^ls$" did not match "ls\\n"',
            id="dollar-matches-only-at-the-very-end",
        ),
        pytest.param(
            "{regex: '^\\d+$'}",
            "\u0663",
            'regex "^\\\\d+$" did not match "\u0663"',
            id="digit-class-is-ascii",
        ),
        pytest.param("{regex: '^$'}", None, None, id="null-reads-as-empty"),
        pytest.param("{regex: '^5$'}", 5, None, id="a-number-reads-as-json"),
        pytest.param("{regex: '^true$'}", True, None, id="a-bool-reads-as-json"),
        pytest.param("{contains: hello}", "say hello world", None, id="contains-match"),
        pytest.param(
            "{contains: hello}",
            "goodbye",
            'expected substring "hello", got "goodbye"',
            id="contains-mismatch",
        ),
        pytest.param(
            "{contains: Hello}",
            "hello",
            'expected substring "Hello", got "hello"',
            id="contains-is-case-sensitive",
        ),
        pytest.param("{range: {gte: 1, lte: 5}}", 3, None, id="range-within"),
        pytest.param("{range: {gte: 1, lte: 5}}", 0, "range: 0 < gte 1", id="range-below"),
        pytest.param("{range: {gte: 1, lte: 5}}", 6, "range: 6 > lte 5", id="range-above"),
        pytest.param(
            "{range: {gte: 1, lte: 5}}",
            "not a number",
            "range: value not a number is not numeric",
            id="range-non-numeric",
        ),
        pytest.param("{range: {gt: 0, lt: 10}}", 0, "range: 0 <= gt 0", id="range-gt-boundary"),
        pytest.param("{range: {gt: 0, lt: 10}}", 10, "range: 10 >= lt 10", id="range-lt-boundary"),
        pytest.param("{range: {gt: 0, lt: 10}}", 5, None, id="range-exclusive-within"),
        pytest.param(
            "{range: {lte: 5, gte: 1}}", -1, "range: -1 < gte 1", id="range-checks-gte-first"
        ),
        pytest.param(
            "{range: {lt: 2.5e6}}", 1e7, "range: 1e+07 >= lt 2.5e+06", id="range-go-float-format"
        ),
        pytest.param("{range: {gte: 0.5}}", 0.25, "range: 0.25 < gte 0.5", id="range-fraction"),
        pytest.param(
            "{range: {gte: 1}}", "5", "range: value 5 is not numeric", id="strings-are-not-coerced"
        ),
        pytest.param(
            "{range: {gte: 1}}", None, "range: value <nil> is not numeric", id="range-null"
        ),
        pytest.param(
            "{range: {gte: 1}}",
            {"b": [1, 2000000], "a": True},
            "range: value map[a:true b:[1 2e+06]] is not numeric",
            id="range-go-v-of-a-map",
        ),
    ],
)
def test_matching(text: str, value: Any, reason: str | None) -> None:
    assert _matcher(text).mismatch(value, CWD) == reason


SCHEMA = (
    "{json_schema: {type: object, required: [name], properties: "
    "{name: {type: string}, age: {type: integer, minimum: 0}}}}"
)


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        pytest.param({"name": "alice", "age": 30}, True, id="valid"),
        pytest.param({"age": 30}, False, id="required-field-missing"),
        pytest.param({"name": "a", "age": -1}, False, id="below-minimum"),
    ],
)
def test_json_schema(value: Any, valid: bool) -> None:
    reason = _matcher(SCHEMA).mismatch(value, CWD)
    assert (reason is None) is valid
    if not valid:
        assert reason is not None and reason.startswith("json_schema: ")


def test_a_schema_matcher_says_what_waza_says() -> None:
    # waza validates with the library its json_schema grader uses, and so does waza-ci: the
    # same texts, with the matcher's resource name in the URL.
    assert _matcher(SCHEMA).mismatch({"age": 30}, CWD) == (
        "json_schema: jsonschema validation failed with "
        "'file:///work/project/argmatcher.json#'\n- at '': missing property 'name'"
    )


def test_a_schema_matcher_follows_the_go_library_where_python_jsonschema_differs() -> None:
    # Python's jsonschema let both through: it asserts no format unless asked, and its regexes
    # are Python's. waza's library asserts formats up to draft-07 and compiles patterns as RE2.
    ipv4 = '{json_schema: {"$schema": "http://json-schema.org/draft-07/schema#", format: ipv4}}'
    reason = _matcher(ipv4).mismatch("256.1.1.1", CWD)
    assert reason is not None and reason.endswith("decimal must be between 0 and 255")
    assert _error('{json_schema: {type: string, pattern: "(?=x)"}}').startswith(
        'argmatcher: invalid json_schema: invalid regex "(?=x)"'
    )


def test_a_schema_matcher_is_compiled_where_it_is_graded() -> None:
    matcher = _matcher(SCHEMA)
    elsewhere = matcher.mismatch({}, "/elsewhere")
    assert elsewhere is not None and "'file:///elsewhere/argmatcher.json#'" in elsewhere
    assert _error("{json_schema: {maximum: .inf}}") == (
        "argmatcher: failed to serialize json_schema: json: unsupported value: +Inf"
    )


@pytest.mark.parametrize(
    ("text", "written"),
    [
        pytest.param('{regex: "^auth"}', {"regex": "^auth"}, id="regex"),
        pytest.param("{equals: {b: 1, a: [x]}}", {"equals": {"b": 1, "a": ["x"]}}, id="equals"),
        pytest.param("{equals: ~}", {"equals": None}, id="equals-null"),
        pytest.param("{contains: sub}", {"contains": "sub"}, id="contains"),
        pytest.param("{range: {lt: 9, gte: 1}}", {"range": {"gte": 1.0, "lt": 9.0}}, id="range"),
        pytest.param(
            "{json_schema: {type: string}}", {"json_schema": {"type": "string"}}, id="schema"
        ),
    ],
)
def test_a_matcher_is_written_back_in_its_input_shape(text: str, written: Any) -> None:
    assert _matcher(text).as_json() == written


def test_failures_are_in_key_order_and_name_missing_keys() -> None:
    matchers = sorted(
        [("query", _matcher("{equals: a}")), ("limit", _matcher("{range: {gte: 1}}"))]
    )
    assert argument_failures(matchers, {"query": "b"}, CWD) == [
        'argument "limit": not present on tool call',
        'argument "query": expected "a", got "b"',
    ]
    assert argument_failures(matchers, {"query": "a", "limit": 1}, CWD) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        pytest.param("yes", "yes", id="yes-is-a-string"),
        pytest.param("on", "on", id="on-is-a-string"),
        pytest.param("True", True, id="capital-true"),
        pytest.param("0o17", 15, id="octal-0o"),
        pytest.param("017", 15, id="octal-leading-zero"),
        pytest.param("0x1F", 31, id="hex"),
        pytest.param("1_000", 1000, id="underscores"),
        pytest.param("1e3", 1000.0, id="exponent-without-dot"),
        pytest.param("1:30", "1:30", id="no-sexagesimal"),
        pytest.param("2001-12-14", "2001-12-14", id="timestamps-stay-strings"),
        pytest.param("'42'", "42", id="quoted"),
        pytest.param("~", None, id="null"),
        pytest.param("{1: a}", {"1": "a"}, id="keys-are-strings"),
    ],
)
def test_yaml_values_as_yaml_v3_decodes_them(text: str, value: Any) -> None:
    root = yaml.compose(f"v: {text}")
    assert isinstance(root, yaml.MappingNode)
    assert node_value(root.value[0][1]) == value
