"""yaml.v3's words for a value that does not fit a Go struct (decode.go's `unmarshal errors`):
`field X not found in type T` for an unknown key under KnownFields, `cannot unmarshal !!tag
`value` into T` for a value of the wrong type. The caller adds the line, counted as its
decoder counted it (the file, or a re-serialised block of it)."""

from __future__ import annotations

import yaml

from waza_ci.golang.yaml import resolve
from waza_ci.waza.spec_schema import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    STR,
    ListOf,
    MapOf,
    Shape,
    ShapeError,
    Struct,
)

_SHOWN_MAX = 10
_GO_TYPES = {STR: "string", INT: "int", FLOAT: "float64", BOOL: "bool", ANY: "interface {}"}


def unmarshal_problem(err: ShapeError, shape: Struct) -> str:
    """yaml.v3's text for `err`, found checking a document against `shape` (its path names
    the key); Go type names come from each Struct's `go_name`."""
    parent, _, field = err.path.rpartition(".")
    if err.message.startswith("unknown key"):
        return f"field {field} not found in type {go_type(shape_at(shape, parent))}"
    return cannot_unmarshal(err.node, go_type(shape_at(shape, err.path)))


def cannot_unmarshal(node: yaml.Node, go_type_name: str) -> str:
    """The value is shown for a scalar only: in backquotes, cut to its first 7 characters and
    `...` when longer than 10."""
    if isinstance(node, yaml.SequenceNode):
        return f"cannot unmarshal !!seq into {go_type_name}"
    if isinstance(node, yaml.MappingNode):
        return f"cannot unmarshal !!map into {go_type_name}"
    value = str(node.value)
    shown = f"{value[:7]}..." if len(value) > _SHOWN_MAX else value
    return f"cannot unmarshal !!{resolve(node)[0]} `{shown}` into {go_type_name}"


def shape_at(shape: Shape, path: str) -> Shape | None:
    """The shape at a ShapeError's path (`a.b[2].c`); None where the shapes say nothing."""
    current: Shape | None = shape
    for part in path.replace("[", ".[").split("."):
        if not part or current is None:
            continue
        if part.startswith("["):
            current = current.item if isinstance(current, ListOf) else None
        elif isinstance(current, Struct):
            current = current.fields.get(part)
        elif isinstance(current, MapOf):
            current = current.value
        else:
            current = None
    return current


def go_type(shape: Shape | None) -> str:
    if isinstance(shape, str):
        return _GO_TYPES.get(shape, "interface {}")
    if isinstance(shape, ListOf):
        return f"[]{go_type(shape.item)}"
    if isinstance(shape, MapOf):
        return f"map[string]{go_type(shape.value)}"
    if isinstance(shape, Struct) and shape.go_name:
        return shape.go_name
    return "struct"
