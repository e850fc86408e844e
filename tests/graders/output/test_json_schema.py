"""The `json_schema` grader: waza's Go tests restated as a table, Go's JSON error texts, the
library's error texts and order, schema files and compile errors (Go errors), `extract_json`,
YAML 1.2 values in inline schemas, and load-time errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_run
from tests.graders.harness import Loaded, grade, grader_task
from waza_ci.errors import InputError
from waza_ci.graders import kind_of
from waza_ci.graders.base import GraderJob, GraderResult, GraderSetup
from waza_ci.graders.jsonschema import compile as json_schema_compile
from waza_ci.graders.jsonschema.formats import format_reason
from waza_ci.graders.output.json_schema import PASSED
from waza_ci.waza.results import SavedRun

PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name"],
}
NAMED = {"type": "object", "required": ["name"]}
FENCED = 'Here is the result:\n```json\n{"name":"Alice"}\n```'
ZERO = "found zero JSON object or array documents"
MANY = "found multiple JSON object or array documents"


def schema_grader(tmp_path: Path, config: dict[str, Any] | str) -> Loaded:
    body = config if isinstance(config, str) else json.dumps(config, ensure_ascii=False)
    return grader_task(tmp_path / "spec", f"name: t\ntype: json_schema\nconfig: {body}\n")


def run_schema(
    tmp_path: Path, config: dict[str, Any] | str, output: str, cwd: Path | None = None
) -> GraderResult:
    return grade(
        schema_grader(tmp_path, config),
        "t",
        make_run(final_output=output),
        working_directory=cwd or tmp_path,
    )


def verdict(result: GraderResult) -> dict[str, Any]:
    raw = dict(result.raw)
    raw.pop("duration_ms")
    raw.pop("identifier")
    raw.pop("type")
    raw.pop("weight")
    return raw


def passed() -> dict[str, Any]:
    return {"score": 1.0, "passed": True, "feedback": PASSED}


def not_json(error: str) -> dict[str, Any]:
    return {
        "score": 0.0,
        "passed": False,
        "feedback": f"Output is not valid JSON: {error}",
        "details": {"error": error},
    }


def not_one_document(error: str) -> dict[str, Any]:
    return {
        "score": 0.0,
        "passed": False,
        "feedback": f"Output must contain exactly one JSON object or array: {error}",
        "details": {"error": error},
    }


def invalid(cwd: Path, *lines: str) -> dict[str, Any]:
    text = "\n".join(
        (
            f"Schema validation failed: jsonschema validation failed with 'file://{cwd}/schema.json#'",
            *lines,
        )
    )
    return {"score": 0.0, "passed": False, "feedback": text, "details": {"failures": [text]}}


# waza's json_schema_grader_test.go, case by case: (config, output, expected verdict).
GO_CASES = [
    pytest.param(
        {"schema": PERSON}, '{"name": "Alice", "age": 30}', passed(), id="valid JSON passes"
    ),
    pytest.param(
        {"schema": {"type": "object"}},
        "not json at all",
        not_json("invalid character 'o' in literal null (expecting 'u')"),
        id="invalid JSON fails with score 0",
    ),
    pytest.param(
        {"schema": NAMED},
        FENCED,
        not_json("invalid character 'H' looking for beginning of value"),
        id="embedded JSON needs extract_json",
    ),
    pytest.param(
        {"schema": NAMED, "extract_json": True}, FENCED, passed(), id="extract_json: fenced"
    ),
    pytest.param(
        {"schema": NAMED, "extract_json": True},
        'The requested object is {"name":"Alice"}.',
        passed(),
        id="extract_json: prose around one document",
    ),
    pytest.param(
        {"schema": {"type": "array", "items": {"type": "integer"}}, "extract_json": True},
        "The values are:\n```json\n[1, 2, 3]\n```",
        passed(),
        id="extract_json: one array",
    ),
    pytest.param(
        {"schema": NAMED, "extract_json": True},
        '{"name":"Alice"}',
        passed(),
        id="extract_json: pure JSON",
    ),
    pytest.param(
        {"schema": {"type": "object"}, "extract_json": True},
        "No structured output was produced.",
        not_one_document(ZERO),
        id="extract_json: zero documents",
    ),
    pytest.param(
        {"schema": {"type": "string"}, "extract_json": True},
        '"not an object or array"',
        not_one_document(ZERO),
        id="extract_json: a scalar is no document",
    ),
    pytest.param(
        {"schema": {"type": "object"}, "extract_json": True},
        'Examples: {"first":true} and {"second":true}',
        not_one_document(MANY),
        id="extract_json: ambiguous",
    ),
    pytest.param(
        {"schema": {"type": "object"}, "extract_json": True},
        '```json\n{"name":"Alice"}\n```\nMetadata: {"source":"agent"}',
        not_one_document(MANY),
        id="extract_json: fenced document plus another",
    ),
    pytest.param(
        {"schema": {"type": "array", "items": {"type": "string"}}},
        '["a", "b", "c"]',
        passed(),
        id="array output matching schema",
    ),
    pytest.param(
        {"schema": {"type": "object", "properties": {"name": {"type": "string"}}}},
        '{"name": "test"}',
        passed(),
        id="via Create",
    ),
    pytest.param({"schema": {"type": "object"}}, "{}", passed(), id="duration test's case"),
]


@pytest.mark.parametrize(("config", "output", "expected"), GO_CASES)
def test_waza_go_cases(
    tmp_path: Path, config: dict[str, Any], output: str, expected: dict[str, Any]
) -> None:
    assert verdict(run_schema(tmp_path, config, output)) == expected


def test_valid_json_not_matching_the_schema_fails_with_the_librarys_text(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    result = run_schema(tmp_path, {"schema": schema}, '{"age": 30}')
    assert verdict(result) == invalid(tmp_path, "- at '': missing property 'name'")


# What the library reports, as it prints it (`got`/`want`, quoting, grouping, order).
LIBRARY_CASES = [
    pytest.param(
        PERSON, '{"name": "A", "age": "x"}', ["- at '/age': got string, want integer"], id="type"
    ),
    pytest.param(
        {"type": "integer"}, "3.0", [], id="integer accepts a whole float, as float64 does"
    ),
    pytest.param({"type": "integer"}, "3.5", ["- at '': got number, want integer"], id="3.5"),
    pytest.param(
        {"type": ["string", "null", "object"]},
        "1",
        ["- at '': got number, want null or string or object"],
        id="wanted types in the library's order",
    ),
    pytest.param({"type": "object"}, "null", ["- at '': got null, want object"], id="null"),
    pytest.param(
        {"required": ["a", "b"]}, "{}", ["- at '': missing properties 'a', 'b'"], id="required"
    ),
    pytest.param(
        {"enum": ["a", 1, True, None]},
        '"b"',
        ["- at '': value must be one of 'a', 1, true, <nil>"],
        id="enum",
    ),
    pytest.param({"const": "it's"}, '"x"', ["- at '': value must be 'it\\'s'"], id="quote"),
    pytest.param({"enum": [[1]]}, "[2]", ["- at '': 'enum' failed"], id="enum of arrays"),
    pytest.param(
        {"additionalProperties": False, "properties": {"a": {}}},
        '{"a": 1, "b": 2, "c": 3}',
        ["- at '': additional properties 'b', 'c' not allowed"],
        id="additional properties",
    ),
    pytest.param(
        {"minLength": 3, "maxItems": 1, "pattern": "^a"},
        '"bb"',
        ["- at '': minLength: got 2, want 3", "- at '': 'bb' does not match pattern '^a'"],
        id="several errors at the root are listed directly",
    ),
    pytest.param(
        {"items": {"minimum": 1000}},
        "[1, 5000]",
        ["- at '/0': minimum: got 1, want 1,000"],
        id="numbers through the English printer",
    ),
    pytest.param(
        {"maxLength": 1000},
        json.dumps("x" * 1234),
        ["- at '': maxLength: got 1,234, want 1,000"],
        id="counts grouped",
    ),
    pytest.param({"multipleOf": 0.1}, "0.3", [], id="multipleOf is exact, as big.Rat"),
    pytest.param(
        {"pattern": "^a$"},
        '"a\\n"',
        ["- at '': 'a\\n' does not match pattern '^a$'"],
        id="RE2: $ only at the very end",
    ),
    pytest.param(
        {"pattern": "^\\d$"},
        '"\u0663"',
        ["- at '': '\u0663' does not match pattern '^\\\\d$'"],
        id="RE2: digits are ASCII",
    ),
    pytest.param({"format": "email"}, '"nope"', [], id="2020-12: format is an annotation only"),
    pytest.param(
        {"$schema": "http://json-schema.org/draft-07/schema#", "format": "email"},
        '"nope"',
        ["- at '': 'nope' is not valid email: missing @"],
        id="draft-07: format is asserted",
    ),
    pytest.param(
        {
            "type": "object",
            "properties": {
                "a": {
                    "type": "object",
                    "properties": {"b": {"type": "string"}, "c": {"type": "string"}},
                }
            },
        },
        '{"a": {"b": 1, "c": 2}}',
        ["- at '/a/b': got number, want string", "- at '/a/c': got number, want string"],
        id="the only error, a group, is flattened at the root",
    ),
    pytest.param(
        {
            "required": ["z"],
            "properties": {"a": {"properties": {"b": {"type": "string"}, "c": {"type": "string"}}}},
        },
        '{"a": {"b": 1, "c": 2}}',
        [
            "- at '': missing property 'z'",
            "- at '/a': validation failed",
            "  - at '/a/b': got number, want string",
            "  - at '/a/c': got number, want string",
        ],
        id="a group beside other errors is nested",
    ),
    pytest.param(
        {"anyOf": [{"type": "string"}, {"type": "number"}]},
        "null",
        [
            "- at '': 'anyOf' failed",
            "  - at '': got null, want string",
            "  - at '': got null, want number",
        ],
        id="anyOf",
    ),
    pytest.param(
        {"oneOf": [{"type": "number"}, {"minimum": 0}]},
        "3",
        ["- at '': 'oneOf' failed, subschemas 0, 1 matched"],
        id="oneOf, two matched",
    ),
    pytest.param({"not": {"type": "string"}}, '"x"', ["- at '': 'not' failed"], id="not"),
    pytest.param(
        {"$defs": {"s": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/s"}}},
        '{"x": 1}',
        ["- at '/x': got number, want string"],
        id="a reference with one failure is not shown",
    ),
    pytest.param(
        {
            "$defs": {"s": {"type": "string", "minLength": 2, "pattern": "^a"}},
            "properties": {"x": {"$ref": "#/$defs/s"}},
        },
        '{"x": "b"}',
        [
            "- at '/x': validation failed",
            "  - at '/x': minLength: got 1, want 2",
            "  - at '/x': 'b' does not match pattern '^a'",
        ],
        id="a reference with several failures is shown",
    ),
    pytest.param(
        {"unevaluatedProperties": False, "allOf": [{"properties": {"a": {}}}]},
        '{"a": 1, "b": 2}',
        ["- at '/b': false schema"],
        id="unevaluatedProperties",
    ),
    pytest.param(
        {"prefixItems": [{"type": "string"}], "items": False},
        '["a", 1]',
        ["- at '/1': false schema"],
        id="2020-12 items after prefixItems",
    ),
    pytest.param(
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "items": [{"type": "string"}],
            "additionalItems": False,
        },
        '["a", 1, 2]',
        ["- at '': last 2 additionalItem(s) not allowed"],
        id="draft-07 additionalItems",
    ),
    pytest.param(
        {"contains": {"type": "string"}},
        "[1]",
        ["- at '': no items match contains schema", "  - at '/0': got number, want string"],
        id="contains",
    ),
    pytest.param(
        {"uniqueItems": True}, "[1, 2, 1.0]", ["- at '': items at 0 and 2 are equal"], id="unique"
    ),
    pytest.param(
        {"propertyNames": {"maxLength": 2}},
        '{"abc": 1}',
        ["- at '': invalid propertyName 'abc'", "  - at '': maxLength: got 3, want 2"],
        id="propertyNames",
    ),
    pytest.param(
        {"if": {"required": ["a"]}, "then": {"required": ["b"]}},
        '{"a": 1}',
        ["- at '': missing property 'b'"],
        id="if/then",
    ),
    pytest.param(
        {"dependentRequired": {"a": ["b", "c"]}},
        '{"a": 1}',
        ["- at '': properties 'b', 'c' required, if 'a' exists"],
        id="dependentRequired",
    ),
]


@pytest.mark.parametrize(("schema", "output", "lines"), LIBRARY_CASES)
def test_library_texts(tmp_path: Path, schema: Any, output: str, lines: list[str]) -> None:
    result = verdict(run_schema(tmp_path, {"schema": schema}, output))
    assert result == (invalid(tmp_path, *lines) if lines else passed())


@pytest.mark.parametrize(
    ("output", "error"),
    [
        ("", "unexpected end of JSON input"),
        ("  \n", "unexpected end of JSON input"),
        ('{"a": [1, 2', "unexpected end of JSON input"),
        ("1.", "invalid character ' ' after decimal point in numeric literal"),
        ("tru", "invalid character ' ' in literal true (expecting 'e')"),
        ('{"a":1} trailing', "invalid character 't' after top-level value"),
        ('{"a" 1}', "invalid character '1' after object key"),
        ('{"a": 1,}', "invalid character '}' looking for beginning of object key string"),
        ("[1 2]", "invalid character '2' after array element"),
        ('"tab\there"', "invalid character '\\t' in string literal"),
        ("NaN", "invalid character 'N' looking for beginning of value"),
        ("'single'", "invalid character '\\'' looking for beginning of value"),
        ("\ufeff{}", "invalid character '\u00ef' looking for beginning of value"),
        ("[1e400]", "json: cannot unmarshal number 1e400 into Go value of type float64"),
        ("```json\n{}\n```", "invalid character '`' looking for beginning of value"),
    ],
)
def test_output_that_go_cannot_decode(tmp_path: Path, output: str, error: str) -> None:
    assert verdict(run_schema(tmp_path, {"schema": {}}, output)) == not_json(error)


@pytest.mark.parametrize(
    ("output", "count"),
    [
        ("see [1] and [2]", MANY),
        ('{curly} prose, then {"a": {"b": [1]}}', None),
        ('{"a": NaN} then nothing', ZERO),
        ("[[1], 2] done", None),
        ("[1e400] and {}", None),
    ],
)
def test_extraction_scan(tmp_path: Path, output: str, count: str | None) -> None:
    result = verdict(run_schema(tmp_path, {"schema": {}, "extract_json": True}, output))
    assert result == (not_one_document(count) if count else passed())


def test_yaml_values_decode_as_yaml_1_2(tmp_path: Path) -> None:
    config = "{schema: {properties: {a: {const: yes}, b: {enum: [on, 1e3]}}}}"
    assert verdict(run_schema(tmp_path, config, '{"a": "yes", "b": 1000}')) == passed()
    assert not verdict(run_schema(tmp_path, config, '{"a": true}'))["passed"]


def test_schema_file_is_read_against_the_working_directory(tmp_path: Path) -> None:
    cwd = tmp_path / "cwd"
    (cwd / "schemas").mkdir(parents=True)
    (cwd / "schemas" / "id.json").write_text(
        json.dumps({"properties": {"id": {"type": "integer"}}, "required": ["id"]})
    )
    config = {"schema_file": "schemas/id.json"}
    assert verdict(run_schema(tmp_path, config, '{"id": 42}', cwd=cwd)) == passed()
    assert verdict(run_schema(tmp_path, config, "{}", cwd=cwd)) == invalid(
        cwd, "- at '': missing property 'id'"
    )


def test_inline_schema_wins_over_schema_file(tmp_path: Path) -> None:
    config = {"schema": {"type": "string"}, "schema_file": "missing.json"}
    assert verdict(run_schema(tmp_path, config, '"x"')) == passed()


@pytest.mark.parametrize(
    ("content", "error"),
    [
        pytest.param(
            None,
            'failed to read schema file "schema.json": open schema.json: no such file or directory',
            id="missing",
        ),
        pytest.param(
            "{not json",
            "failed to parse schema file \"schema.json\": invalid character 'n' looking for "
            "beginning of object key string",
            id="not JSON",
        ),
        pytest.param(
            "true",
            'failed to parse schema file "schema.json": json: cannot unmarshal bool into Go '
            "value of type map[string]interface {}",
            id="not an object",
        ),
        pytest.param(
            '{"type": "invalid"}',
            'failed to compile JSON schema: "file://{cwd}/schema.json#" is not valid against '
            "metaschema: jsonschema validation failed with "
            "'https://json-schema.org/draft/2020-12/schema#'\n"
            "- at '': 'allOf' failed\n"
            "  - at '/type': 'anyOf' failed\n"
            "    - at '/type': value must be one of 'array', 'boolean', 'integer', 'null', "
            "'number', 'object', 'string'\n"
            "    - at '/type': got string, want array",
            id="invalid against the metaschema",
        ),
        pytest.param(
            '{"pattern": "a(?=b)"}',
            'failed to compile JSON schema: invalid regex "a(?=b)" at '
            '"file://{cwd}/schema.json#/pattern": error parsing regexp: invalid or unsupported '
            "Perl syntax: `(?=`",
            id="a pattern RE2 refuses",
        ),
        pytest.param(
            '{"properties": {"a": {"$ref": "#/$defs/nope"}}}',
            'failed to compile JSON schema: json-pointer in "file://{cwd}/schema.json#/$defs/nope"'
            " not found",
            id="a reference to nowhere",
        ),
        pytest.param(
            '{"$ref": "https://example.com/schema.json"}',
            'failed to compile JSON schema: failing loading "https://example.com/schema.json": '
            "invalid file url: https://example.com/schema.json",
            id="a remote reference is never fetched",
        ),
    ],
)
def test_schema_errors_are_go_errors(tmp_path: Path, content: str | None, error: str) -> None:
    if content is not None:
        (tmp_path / "schema.json").write_text(content)
    result = run_schema(tmp_path, {"schema_file": "schema.json"}, "{}")
    message = "failed to run grader t: json_schema grader 't': " + error.replace(
        "{cwd}", str(tmp_path)
    )
    assert result.verdict.error == message
    assert verdict(result) == {"score": 0.0, "passed": False, "feedback": message}


def test_a_broken_schema_file_is_not_read_when_the_output_is_not_json(tmp_path: Path) -> None:
    result = run_schema(tmp_path, {"schema_file": "missing.json"}, "nope")
    assert verdict(result) == not_json("invalid character 'o' in literal null (expecting 'u')")


def test_a_reference_to_a_file_beside_the_schema_is_loaded(tmp_path: Path) -> None:
    (tmp_path / "defs.json").write_text('{"$defs": {"id": {"type": "integer"}}}')
    config = {"schema": {"properties": {"id": {"$ref": "defs.json#/$defs/id"}}}}
    assert verdict(run_schema(tmp_path, config, '{"id": 1}')) == passed()
    assert verdict(run_schema(tmp_path, config, '{"id": "1"}')) == invalid(
        tmp_path, "- at '/id': got string, want integer"
    )


def test_the_schema_url_is_escaped_as_go_escapes_it(tmp_path: Path) -> None:
    cwd = tmp_path / "my proj"
    cwd.mkdir()
    result = verdict(run_schema(tmp_path, {"schema": {"type": "string"}}, "1", cwd=cwd))
    assert f"'file://{tmp_path}/my%20proj/schema.json#'" in result["feedback"]


def test_an_unknown_schema_dialect_fails_to_load(tmp_path: Path) -> None:
    result = run_schema(tmp_path, {"schema": {"$schema": "https://example.com/meta"}}, "{}")
    assert result.verdict.error == (
        "failed to run grader t: json_schema grader 't': failed to compile JSON schema: "
        'failing loading "https://example.com/meta": invalid file url: https://example.com/meta'
    )


def test_an_infinite_number_in_the_schema_cannot_be_serialized(tmp_path: Path) -> None:
    result = run_schema(tmp_path, "{schema: {maximum: .inf}}", "1")
    assert result.verdict.error == (
        "failed to run grader t: json_schema grader 't': failed to serialize schema: json: "
        "unsupported value: +Inf"
    )


def test_the_schema_is_compiled_once_per_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled: list[str] = []
    real = json_schema_compile.compile_schema

    def counting(schema: Any, working_directory: str) -> Any:
        compiled.append(working_directory)
        return real(schema, working_directory)

    monkeypatch.setattr("waza_ci.graders.output.json_schema.compile_schema", counting)
    loaded = schema_grader(tmp_path, {"schema": PERSON})
    grader = loaded.grader("t")
    kind = kind_of(grader)
    assert kind is not None
    config = kind.configure(grader)
    other = tmp_path / "other"
    for output, cwd in (('{"name": "a"}', tmp_path), ("{}", tmp_path), ("[]", other)):
        setup = GraderSetup(workspace_dir=".", working_directory=str(cwd), env={}, temp_dir="/tmp")
        job = GraderJob(
            grader,
            loaded.task,
            config,
            SavedRun.model_validate(make_run(final_output=output)),
            b"",
            30,
            "test",
            setup,
        )
        kind.grade(job)
    assert compiled == [str(tmp_path), str(other)]
    assert set(config.compiled) == {str(tmp_path), str(other)}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param(
            "{extract_json: true}",
            'json_schema grader "t": must specify either config.schema or config.schema_file',
            id="no schema",
        ),
        pytest.param(
            "{schema: ~}",
            'json_schema grader "t": must specify either config.schema or config.schema_file',
            id="null schema",
        ),
        pytest.param(
            "{schema: {}, extract_jsn: true}",
            'invalid grader config for "t" (type "json_schema"): failed to decode grader '
            "parameters of type models.JSONSchemaGraderParameters: yaml: unmarshal errors: "
            "line 1: field extract_jsn not found in type models.JSONSchemaGraderParameters",
            id="unknown key",
        ),
        pytest.param(
            "{schema: [1]}",
            'invalid grader config for "t" (type "json_schema"): failed to decode grader '
            "parameters of type models.JSONSchemaGraderParameters: yaml: unmarshal errors: "
            "line 1: cannot unmarshal !!seq into map[string]interface {}",
            id="schema not a mapping",
        ),
    ],
)
def test_load_time_errors_in_wazas_words(tmp_path: Path, config: str, message: str) -> None:
    grader = schema_grader(tmp_path, config).grader("t")
    kind = kind_of(grader)
    assert kind is not None
    with pytest.raises(InputError) as raised:
        kind.configure(grader)
    assert raised.value.message == message


def test_an_empty_schema_accepts_everything(tmp_path: Path) -> None:
    for output in ("null", "1", '"x"', "[]", "{}"):
        assert verdict(run_schema(tmp_path, {"schema": {}}, output)) == passed()


def test_only_reachable_schemas_are_compiled(tmp_path: Path) -> None:
    # The library compiles a `$defs` entry only when something refers to it.
    unused = {"schema": {"$defs": {"bad": {"pattern": "(?=x)"}}, "type": "string"}}
    assert verdict(run_schema(tmp_path, unused, '"x"')) == passed()
    used = {"schema": {"$defs": {"bad": {"pattern": "(?=x)"}}, "$ref": "#/$defs/bad"}}
    assert run_schema(tmp_path, used, '"x"').verdict.error == (
        "failed to run grader t: json_schema grader 't': failed to compile JSON schema: "
        f'invalid regex "(?=x)" at "file://{tmp_path}/schema.json#/$defs/bad/pattern": '
        "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"
    )


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("date-time", "2024-01-02T03:04:05Z", None),
        ("date-time", "2024-01-02 03:04:05Z", "11th character must be t or T"),
        ("date", "2024-02-30", 'parsing time "2024-02-30": day out of range'),
        ("time", "23:59:60Z", None),
        ("time", "12:00:60+01:00", "invalid leap second"),
        ("ipv4", "01.2.3.4", "leading zeros"),
        ("ipv4", "256.1.1.1", "decimal must be between 0 and 255"),
        ("ipv6", "fe80::1%eth0", "zone id is not a part of ipv6 address"),
        ("uuid", "123e4567-e89b-12d3-a456", "must have 5 elements"),
        ("hostname", "-a.com", "label starts with hyphen"),
        ("email", "a..b@c.com", "consecutive dots"),
        ("email", "a@-b.com", "invalid domain: label starts with hyphen"),
        ("uri", "/relative", "relative url"),
        ("uri-reference", "/relative", None),
        ("duration", "P1M1Y", "unit 'Y' out of order"),
        ("semver", "01.2.3", "major starts with zero"),
        ("json-pointer", "/a~2", "~ must be followed by 0 or 1"),
        ("regex", "(?=x)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
        ("period", "2024-01-02T03:04:05Z/P1D", None),
        ("no-such-format", "anything", None),
    ],
)
def test_format_reasons(name: str, value: str, reason: str | None) -> None:
    assert format_reason(name, value) == reason
    assert format_reason(name, 42) is None  # only strings are checked
