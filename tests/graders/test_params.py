"""A grader's `config` is decoded as waza's factory decodes it: strictly (yaml.v3 KnownFields),
with yaml.v3's error texts, and untyped values with YAML 1.2's rules."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest
import yaml

from waza_ci.errors import InputError, Location
from waza_ci.golang.yaml import child, node_value
from waza_ci.graders.params import decode_params
from waza_ci.waza.spec import GraderSpec
from waza_ci.waza.spec_schema import ANY, BOOL, FLOAT, INT, STR, ListOf, Struct

SHAPE = Struct(
    {"contains": ListOf(STR), "strict": BOOL, "limit": INT, "ratio": FLOAT, "schema": ANY}
)


def _grader(config_yaml: str) -> GraderSpec:
    doc = yaml.compose("- name: says\n  type: text\n" + textwrap.indent(config_yaml, "  "))
    assert isinstance(doc, yaml.SequenceNode)
    entry = doc.value[0]
    return GraderSpec("says", "text", 1.0, Location("eval.yaml", 1), config=child(entry, "config"))


def _decode(config_yaml: str) -> dict[str, Any]:
    return decode_params(_grader(config_yaml), "TextGraderParameters", SHAPE)


def _error(config_yaml: str) -> InputError:
    with pytest.raises(InputError) as caught:
        _decode(config_yaml)
    return caught.value


PREFIX = (
    'invalid grader config for "says" (type "text"): failed to decode grader parameters of '
    "type models.TextGraderParameters: yaml: unmarshal errors: "
)


def test_present_keys_only_so_nil_and_empty_lists_differ() -> None:
    assert _decode("config:\n  contains: []\n") == {"contains": []}
    assert _decode("config:\n  strict: yes\n") == {"strict": True}  # a bool field takes `yes`
    assert decode_params(GraderSpec("g", "text", 1.0, Location("e", 1)), "X", SHAPE) == {}


def test_a_scalar_in_a_string_list_is_its_text() -> None:
    assert _decode("config:\n  contains: [3, true, 1.50]\n") == {"contains": ["3", "true", "1.50"]}


@pytest.mark.parametrize(
    ("config", "problem", "line"),
    [
        (
            "config:\n  contains: [a]\n  extract_json: true\n",
            "line 2: field extract_json not found in type models.TextGraderParameters",
            5,
        ),
        ("config:\n  contains: foo\n", "line 1: cannot unmarshal !!str `foo` into []string", 4),
        (
            "config:\n  contains: len(output) > 0\n",
            "line 1: cannot unmarshal !!str `len(out...` into []string",
            4,
        ),
        ("config:\n  strict: [a]\n", "line 1: cannot unmarshal !!seq into bool", 4),
        ("config:\n  limit: many\n", "line 1: cannot unmarshal !!str `many` into int", 4),
    ],
    ids=["unknown-key", "str-into-list", "long-value-cut", "seq-into-bool", "str-into-int"],
)
def test_errors_read_as_yaml_v3_writes_them_at_the_file_line(
    config: str, problem: str, line: int
) -> None:
    error = _error(config)
    assert error.message == PREFIX + problem
    assert error.location == Location("eval.yaml", line)


def test_untyped_values_follow_yaml_1_2() -> None:
    decoded = _decode(
        "config:\n  schema: {a: yes, b: 1e3, c: true, d: '1e3', e: [on, 2], f: 2026-12-03}\n"
    )
    assert decoded["schema"] == {
        "a": "yes",
        "b": 1000.0,
        "c": True,
        "d": "1e3",
        "e": ["on", 2],
        "f": "2026-12-03",
    }


def test_go_value_keeps_mapping_keys_as_text() -> None:
    node = yaml.compose("{1: x, true: y}")
    assert node is not None
    assert node_value(node) == {"1": "x", "true": "y"}


def test_numbers_follow_yaml_v3_in_untyped_and_typed_fields() -> None:
    # The config decoder had PyYAML's YAML 1.1 number rules where the argument matchers had
    # yaml.v3's: `0o17` was a string and `1:30` was 90. One resolver (golang/yaml.py) now.
    decoded = _decode("config:\n  schema: {a: 0o17, b: 1:30, c: 0b101}\n  limit: 0o17\n")
    assert decoded == {"schema": {"a": 15, "b": "1:30", "c": 5}, "limit": 15}
    assert _error("config:\n  limit: 1:30\n").message == (
        PREFIX + "line 1: cannot unmarshal !!str `1:30` into int"
    )
    # yaml.v3 names the tag it resolved: `yes` is a string to it (PyYAML said !!bool).
    assert _error("config:\n  limit: yes\n").message == (
        PREFIX + "line 1: cannot unmarshal !!str `yes` into int"
    )


def test_child_is_the_first_of_a_key_given_twice_as_yaml_v3_decodes_a_struct() -> None:
    # The argument matchers' lookup took the last; yaml.v3 sets a struct field from the first
    # place and reports the second, and waza's loader refuses the document anyway.
    node = yaml.compose("{expect: first, expect: second}")
    assert node is not None
    found = child(node, "expect")
    assert found is not None and found.value == "first"
