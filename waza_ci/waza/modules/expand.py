"""A `ref:` grader entry merged with its remote preset into an ordinary grader entry, by the
rules of waza's ExpandGraderConfig (registry/expand.go):

1. the preset is the base, and must have a `type` key;
2. the entry's own `name`, `model`, `rubric`, `script` and `type` replace the preset's when
   not empty, its `weight` when above 0;
3. the entry's `config` is merged into the preset's, key by key and into nested mappings, the
   entry winning; a list (or any other value) replaces the preset's whole;
4. a grader still without a name is named after the export (or the subpath's last segment).

The merge is made of YAML nodes so the rest of the loader reads the result like any entry.
The preset's nodes are re-marked at the entry's own line: every message about them points at
the `- ref:` line of the user's file (the preset is not in the repository), and the entry's
overrides keep their own lines.
"""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

from waza_ci.errors import InputError
from waza_ci.golang.yaml import TAG, child, is_null
from waza_ci.waza.modules.ref import ModuleRef, quoted
from waza_ci.waza.yaml_doc import at, construct, scalar_text

OVERRIDDEN_TEXTS = ("name", "model", "rubric", "script", "type")


def expand_entry(
    path: Path, entry: yaml.MappingNode, preset: yaml.MappingNode | None, ref: ModuleRef
) -> yaml.MappingNode:
    """The grader entry `entry` (of the file `path`) says once its `ref` is replaced by
    `preset` (None: an empty preset file). InputError at the entry's line on waza's errors."""
    where = at(path, entry)
    base = _remarked(preset, entry.start_mark) if preset is not None else None
    fields: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    if base is not None:
        for key, value in base.value:
            fields.setdefault(str(key.value), (key, value))
    if "type" not in fields:
        raise InputError(
            f"remote preset {ref.raw} is missing required 'type' field: the module's preset "
            "must say which kind of grader it is",
            where,
        )
    for name in OVERRIDDEN_TEXTS:
        node = child(entry, name)
        if scalar_text(path, node, name) and node is not None:
            fields[name] = (_key(name, entry), node)
    weight = child(entry, "weight")
    if weight is not None and not is_null(weight) and _positive(path, weight):
        fields["weight"] = (_key("weight", entry), weight)
    overrides = child(entry, "config")
    if overrides is not None and not is_null(overrides):
        if not isinstance(overrides, yaml.MappingNode):
            raise InputError(
                f"invalid override config for ref {quoted(ref.raw)}: `config` must be a mapping",
                at(path, overrides),
            )
        if overrides.value:
            remote = fields.get("config", (None, None))[1]
            merged = _merge(remote if isinstance(remote, yaml.MappingNode) else None, overrides)
            fields["config"] = (_key("config", entry), merged)
    if not scalar_text(path, fields.get("name", (None, None))[1], "name"):
        fields["name"] = (_key("name", entry), _text(ref.default_name, entry))
    return yaml.MappingNode(
        TAG + "map", list(fields.values()), entry.start_mark, entry.end_mark, flow_style=False
    )


def _merge(base: yaml.MappingNode | None, overrides: yaml.MappingNode) -> yaml.MappingNode:
    """waza's mergeMaps: `overrides` into `base` (a copy), nested mappings merged in turn."""
    fields: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key, value in base.value if base is not None else ():
        fields.setdefault(str(key.value), (key, value))
    for key, value in overrides.value:
        name = str(key.value)
        existing = fields.get(name, (None, None))[1]
        if isinstance(existing, yaml.MappingNode) and isinstance(value, yaml.MappingNode):
            fields[name] = (key, _merge(existing, value))
        else:
            fields[name] = (key, value)
    mark = overrides if base is None else base
    return yaml.MappingNode(TAG + "map", list(fields.values()), mark.start_mark, mark.end_mark)


def _positive(path: Path, node: yaml.Node) -> bool:
    value = construct(path, node)
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _key(name: str, entry: yaml.Node) -> yaml.ScalarNode:
    return _text(name, entry)


def _text(value: str, entry: yaml.Node) -> yaml.ScalarNode:
    return yaml.ScalarNode(TAG + "str", value, entry.start_mark, entry.end_mark)


def _remarked(preset: yaml.MappingNode, mark: yaml.Mark) -> yaml.MappingNode:
    """A copy of the preset whose every node says it is at `mark` (the entry's line)."""
    copied: yaml.MappingNode = copy.deepcopy(preset)
    pending: list[yaml.Node] = [copied]
    seen: set[int] = set()
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        node.start_mark = node.end_mark = mark
        if isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            pending.extend(part for pair in node.value for part in pair)
    return copied
