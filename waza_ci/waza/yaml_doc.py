"""Reading one YAML file of waza's the way waza's yaml.v3 reads it: the root mapping as nodes
that keep their lines, duplicate keys and aliases refused, the shape checked (for an eval spec,
the shape its header picks), and every problem named with the file and line."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeAlias

import yaml

from waza_ci.errors import InputError, Location
from waza_ci.files import MAX_SPEC_BYTES, read_regular_text
from waza_ci.golang.yaml import is_null
from waza_ci.waza.spec_schema import Shape, ShapeError, check_aliases, check_shape

ShapeFor: TypeAlias = Callable[[Path, yaml.MappingNode], Shape]
"""Picks a document's shape from its header (and refuses a header waza refuses)."""
_SURROGATE = re.compile("[\ud800-\udfff]")
_SCALAR_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "timestamp")
)


def scalar_text(path: Path, node: yaml.Node | None, key: str) -> str:
    """A string field as yaml.v3 decodes it: a scalar's text; absent or null is ""."""
    if node is None or is_null(node):
        return ""
    if not isinstance(node, yaml.ScalarNode):
        raise InputError(f"`{key}` must be a single value, not a list or mapping", at(path, node))
    if node.tag not in _SCALAR_TAGS:
        raise InputError(f"invalid YAML: `{key}` has an unsupported tag {node.tag}", at(path, node))
    return valid_text(str(node.value))


def valid_text(text: str) -> str:
    # A "\ud800" escape in YAML gives a lone surrogate, which no output could encode as UTF-8;
    # Go's decoders make it U+FFFD, and so do we.
    return _SURROGATE.sub("\ufffd", text)


def load_yaml(path: Path, *, what: str, shape: Shape | ShapeFor) -> yaml.MappingNode:
    root = load_optional_yaml(path, what=what, shape=shape)
    if root is None:
        raise InputError(f"{what} is empty", Location(str(path)))
    return root


def load_optional_yaml(
    path: Path, *, what: str, shape: Shape | ShapeFor
) -> yaml.MappingNode | None:
    """The document's root mapping checked against `shape`; None for an empty document. A
    callable `shape` reads the header first (`schemaVersion`, before any field, as waza
    reads it) and says which shape the fields are checked against."""
    text = read_regular_text(path, what=what, max_bytes=MAX_SPEC_BYTES)  # its errors name path
    return compose_text(path, text, what=what, shape=shape)


def compose_text(
    path: Path, text: str, *, what: str, shape: Shape | ShapeFor
) -> yaml.MappingNode | None:
    """`load_optional_yaml` of a text already read (or fetched); errors name `path`."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as err:
        raise InputError(f"invalid YAML: {problem(err)}", mark(path, err)) from None
    except yaml.YAMLError as err:
        raise InputError(f"invalid YAML: {one_line(str(err))}", Location(str(path))) from None
    except RecursionError:
        raise InputError("invalid YAML: nested too deeply", Location(str(path))) from None
    if root is None:
        return None
    if not isinstance(root, yaml.MappingNode):
        raise InputError(f"a {what} must be a YAML mapping", at(path, root))
    try:
        check_aliases(root)
        refuse_duplicate_keys(path, root)
        check_shape(root, shape(path, root) if callable(shape) else shape)
    except ShapeError as err:
        raise InputError(f"invalid {what}: {err.message}", at(path, err.node)) from None
    return root


def refuse_duplicate_keys(path: Path, root: yaml.Node) -> None:
    """yaml.v3 (waza) refuses a mapping key defined twice; PyYAML would keep the last."""
    pending = [root]
    seen_nodes: set[int] = set()
    while pending:
        node = pending.pop()
        if id(node) in seen_nodes:  # aliases share nodes
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, yaml.Node] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    if key.value in first:
                        earlier = first[key.value].start_mark.line + 1
                        raise InputError(
                            f"mapping key {key.value!r} already defined at line {earlier}",
                            at(path, key),
                        )
                    first[key.value] = key
                pending.extend((key, value))
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)


def construct(path: Path, node: yaml.Node) -> Any:
    """The Python value of one node; a value YAML cannot build is the user's error."""
    try:
        return yaml.SafeLoader("").construct_document(node)
    except yaml.MarkedYAMLError as err:
        raise InputError(f"invalid YAML: {problem(err)}", mark(path, err, node)) from None
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as err:
        raise InputError(f"invalid YAML value: {one_line(str(err))}", at(path, node)) from None


def problem(err: yaml.MarkedYAMLError) -> str:
    return one_line(err.problem or err.context or "invalid YAML")


def mark(path: Path, err: yaml.MarkedYAMLError, node: yaml.Node | None = None) -> Location:
    mark = err.problem_mark or err.context_mark
    if mark is not None:
        return Location(str(path), line=mark.line + 1)
    return at(path, node) if node is not None else Location(str(path))


def at(path: Path, node: yaml.Node) -> Location:
    return Location(str(path), line=node.start_mark.line + 1)


def one_line(text: str) -> str:
    return " ".join(text.split())
