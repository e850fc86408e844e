"""YAML nodes read as waza's yaml.v3 reads them, for every module that decodes waza's YAML:
which node is null, which value a key has, and what a plain scalar resolves to (yaml.v3's
resolve.go: YAML 1.2's core schema plus Go's integer spellings, timestamps left as text).

PyYAML composes the nodes (keeping their lines) but resolves scalars by YAML 1.1, where `0o17`
is a string and `1:30` is 90; yaml.v3 reads them as 15 and "1:30". Values and type errors
follow `resolve` here, never PyYAML's tags.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

TAG = "tag:yaml.org,2002:"


def is_null(node: yaml.Node) -> bool:
    """A null scalar (`~`, `null`, nothing; or tagged `!!null`): yaml.v3 leaves the zero value."""
    return isinstance(node, yaml.ScalarNode) and node.tag == TAG + "null"


def child(node: yaml.Node | None, key: str) -> yaml.Node | None:
    """The value of `key` in a mapping node, None when absent or not a mapping.

    The first one: yaml.v3 decodes a key given twice into a struct field once, from its first
    place, and reports the second (`field x already set in type …`); into a map it refuses
    both. waza's documents never get here with one (yaml_doc.refuse_duplicate_keys)."""
    if not isinstance(node, yaml.MappingNode):
        return None
    for key_node, value_node in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return value_node  # type: ignore[no-any-return]
    return None


def node_value(node: yaml.Node) -> Any:
    """A YAML value as yaml.v3 decodes it into Go's `any`: core-schema scalars (`yes` and
    `1:30` stay strings, `0o17` is 15), timestamps as strings, mapping keys as strings."""
    if isinstance(node, yaml.SequenceNode):
        return [node_value(item) for item in node.value]
    if isinstance(node, yaml.MappingNode):
        return {str(key.value): node_value(value) for key, value in node.value}
    return resolve(node)[1]


def resolve(node: yaml.Node) -> tuple[str, Any]:
    """(yaml.v3's short tag, Go value) of a scalar: `int`, `float`, `bool`, `null`,
    `timestamp` (its text) or `str`."""
    text = str(node.value)
    if getattr(node, "style", None) is not None:
        return "str", text  # quoted or block text is always a string
    if text in _WORDS:
        return _WORDS[text]
    if text[:1] in "-+.0123456789":
        number = _number(text.replace("_", ""))
        if number is not None:
            return number
        if _TIMESTAMP.fullmatch(text):
            return "timestamp", text
    return "str", text


_WORDS: dict[str, tuple[str, Any]] = {
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), ("null", None)),
    **dict.fromkeys(("true", "True", "TRUE"), ("bool", True)),
    **dict.fromkeys(("false", "False", "FALSE"), ("bool", False)),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), ("float", math.inf)),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), ("float", -math.inf)),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), ("float", math.nan)),
}
"""The plain scalars yaml.v3 resolves by their spelling."""
_GO_INT = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_TIMESTAMP = re.compile(r"\d{4}-\d\d?-\d\d?([Tt ].*)?")
_INT64 = 2**63
_UINT64 = 2**64
_BASES = {"x": 16, "o": 8, "b": 2}


def _number(plain: str) -> tuple[str, Any] | None:
    match = _GO_INT.fullmatch(plain)
    if match:
        sign, digits = match.groups()
        base, body = _base_and_digits(digits)
        value = int(body, base) * (-1 if sign == "-" else 1)
        if -_INT64 <= value < _UINT64:
            return "int", value
    if _YAML_FLOAT.fullmatch(plain):
        return "float", float(plain)
    return None


def _base_and_digits(digits: str) -> tuple[int, str]:
    """Go's `ParseInt(s, 0, 64)` prefixes: 0x, 0o, 0b, and a bare leading 0 for octal."""
    if len(digits) > 1 and digits[0] == "0":
        prefix = digits[1].lower()
        if prefix in _BASES:
            return _BASES[prefix], digits[2:]
        return 8, digits[1:]
    return 10, digits
