"""A `program` grader's `config` (`command`, `args`, `timeout`), read as waza reads it: strict
about its keys, yaml.v3's decoding of each value, every problem at its YAML line."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import yaml

from waza_ci.errors import InputError
from waza_ci.golang.yaml import child, is_null
from waza_ci.waza.yaml_doc import at, construct, scalar_text, valid_text

PROGRAM_CONFIG_KEYS = ("command", "args", "timeout")


@dataclass(frozen=True)
class ProgramConfig:
    """A program grader's `config`: what to execute and for how long at most."""

    command: str
    args: tuple[str, ...] | None
    timeout_s: int | None
    """`config.timeout` when set and positive; otherwise the project default applies."""


def load_program_config(path: Path, grader: yaml.MappingNode, name: str) -> ProgramConfig:
    config_node = child(grader, "config")
    if config_node is None or is_null(config_node):
        raise InputError(f"program grader {describe(name)} must have a 'command'", at(path, grader))
    if not isinstance(config_node, yaml.MappingNode):
        raise InputError(
            f"program grader {describe(name)}: `config` must be a mapping", at(path, config_node)
        )
    for key_node, _value in config_node.value:
        if key_node.value not in PROGRAM_CONFIG_KEYS:
            raise InputError(
                f"program grader {describe(name)}: unknown config key {key_node.value!r} "
                f"(allowed: {', '.join(PROGRAM_CONFIG_KEYS)})",
                at(path, key_node),
            )
    command_node = child(config_node, "command")
    command = scalar_text(path, command_node, "command")
    if not command.strip():
        where = command_node or grader
        raise InputError(f"program grader {describe(name)} must have a 'command'", at(path, where))
    return ProgramConfig(
        command=command,
        args=_program_args(path, child(config_node, "args"), name),
        timeout_s=_program_timeout(path, child(config_node, "timeout"), name),
    )


def _program_args(path: Path, node: yaml.Node | None, name: str) -> tuple[str, ...] | None:
    if node is None or is_null(node):
        return None
    problem = InputError(
        f"program grader {describe(name)}: `args` must be a list of strings", at(path, node)
    )
    if not isinstance(node, yaml.SequenceNode):
        raise problem
    args: list[str] = []
    for item in node.value:
        if not isinstance(item, yaml.ScalarNode):
            raise problem
        # As yaml.v3 decodes into []string: a scalar's own text (`3` -> "3"), null -> "".
        args.append("" if is_null(item) else valid_text(item.value))
    return tuple(args)


def _program_timeout(path: Path, node: yaml.Node | None, name: str) -> int | None:
    if node is None or is_null(node):
        return None
    timeout = construct(path, node)
    # yaml.v3 decodes a finite float into an int field by truncating it (1.9 -> 1).
    usable = isinstance(timeout, int | float) and not isinstance(timeout, bool)
    if not usable or not math.isfinite(timeout) or abs(timeout) >= 2**63:
        raise InputError(
            f"program grader {describe(name)}: `timeout` must be a whole number of seconds",
            at(path, node),
        )
    seconds = int(timeout)
    return seconds if seconds > 0 else None


def describe(name: str) -> str:
    """A grader's name for a message: quoted, or "(no name)" for waza's unnamed grader."""
    return repr(name) if name else "(no name)"
