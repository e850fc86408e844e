"""A grader's `config`, decoded as waza's factory decodes it: strictly into the kind's
parameter struct (yaml.v3 `KnownFields`), so an unknown key or a value of the wrong type is a
load error in waza's words, at the key's line.

A kind describes its struct with `spec_schema` shapes; `decode_params` checks the YAML against
it and returns plain Python values for the keys present (scalars resolved as yaml.v3 resolves
them, golang/yaml.py) (an absent key stays absent, so a
kind can tell Go's nil slice from an empty one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from waza_ci.errors import InputError
from waza_ci.golang.strconv import go_quote
from waza_ci.golang.yaml import is_null, node_value, resolve
from waza_ci.waza.spec import GraderSpec
from waza_ci.waza.spec_schema import (
    ANY,
    BOOL,
    INT,
    STR,
    ListOf,
    MapOf,
    Shape,
    ShapeError,
    Struct,
    check_shape,
)
from waza_ci.waza.unmarshal_text import unmarshal_problem
from waza_ci.waza.yaml_doc import at

_TRUE_WORDS = frozenset(("true", "True", "TRUE", "y", "Y", "yes", "Yes", "YES", "on", "On", "ON"))


def decode_params(grader: GraderSpec, go_type: str, shape: Struct) -> dict[str, Any]:
    """The grader's `config` as the kind's parameters (`go_type`: waza's struct name, such
    as `TextGraderParameters`); {} when absent. Raises InputError at the offending line."""
    node = grader.config
    if node is None:
        return {}
    strict = Struct(shape.fields, strict=True)
    try:
        check_shape(node, strict)
    except ShapeError as err:
        raise config_error(grader, _unmarshal_text(err, node, go_type, strict), err.node) from None
    value = _value(node, strict)
    return value if isinstance(value, dict) else {}


def config_error(grader: GraderSpec, message: str, node: yaml.Node | None = None) -> InputError:
    """A load error of this grader's config, worded as waza wraps it."""
    where = at(Path(grader.location.file), node) if node is not None else grader.location
    return InputError(
        f"invalid grader config for {go_quote(grader.name)} (type {go_quote(grader.kind)}): "
        f"{message}",
        where,
    )


def _unmarshal_text(err: ShapeError, config: yaml.Node, go_type: str, shape: Struct) -> str:
    # yaml.v3 counts lines within the config block as it re-serialises it.
    line = err.node.start_mark.line - config.start_mark.line + 1
    named = Struct(shape.fields, strict=shape.strict, go_name=f"models.{go_type}")
    return (
        f"failed to decode grader parameters of type models.{go_type}: "
        f"yaml: unmarshal errors: line {line}: {unmarshal_problem(err, named)}"
    )


def _value(node: yaml.Node, shape: Shape) -> Any:
    """The node's value under a shape it is known to fit."""
    if is_null(node):
        return None
    if shape == ANY:
        return node_value(node)
    if isinstance(shape, str):
        return _scalar(node, shape)
    if isinstance(shape, ListOf):
        assert isinstance(node, yaml.SequenceNode)
        return [_value(item, shape.item) for item in node.value]
    assert isinstance(node, yaml.MappingNode)
    decoded: dict[str, Any] = {}
    for key, value in node.value:
        name = str(key.value)
        inner = shape.value if isinstance(shape, MapOf) else shape.fields.get(name)
        if inner is not None:
            decoded[name] = _value(value, inner)
    return decoded


def _scalar(node: yaml.Node, shape: str) -> Any:
    assert isinstance(node, yaml.ScalarNode)
    if shape == STR:
        return str(node.value)  # yaml.v3 decodes any scalar into a string field as its text
    if shape == BOOL:
        return node.value in _TRUE_WORDS
    number = resolve(node)[1]  # check_shape let only an int or a float through
    return int(number) if shape == INT else float(number)
