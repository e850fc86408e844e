"""Which eval spec a file is, read from its header before any other field, as waza reads it:
a 1.x eval (`schemaVersion` missing, blank or major 1) or a scenario eval (a `scenario:` key,
waza v0.40.1+, whose `schemaVersion` must be exactly "2.0"). Both name their tasks and graders
the same way and their runs are saved in 1.x results files, so both are regraded alike; waza
decodes a scenario eval strictly (an unknown key is an error), and so does waza-ci.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from waza_ci.errors import InputError, Location
from waza_ci.golang.yaml import child, is_null
from waza_ci.waza.schema_version import SCENARIO_SCHEMA_VERSION, schema_version_problem
from waza_ci.waza.spec_schema import EVAL_SPEC, SCENARIO_EVAL_SPEC, Struct
from waza_ci.waza.yaml_doc import at, scalar_text


def eval_shape(path: Path, root: yaml.MappingNode) -> Struct:
    """The shape of this eval spec's fields; its header refused as waza refuses it."""
    version_node = child(root, "schemaVersion")
    version = scalar_text(path, version_node, "schemaVersion")
    scenario_node = child(root, "scenario")
    if scenario_node is None or is_null(scenario_node):
        problem = schema_version_problem(version, eval_spec=True)
        if problem is not None:
            raise InputError(problem, _where(path, version_node))
        return EVAL_SPEC
    if not scalar_text(path, scenario_node, "scenario").strip():
        raise InputError(
            "`scenario` must name the workflow (a non-empty text), as waza requires",
            at(path, scenario_node),
        )
    if version != SCENARIO_SCHEMA_VERSION:
        found = f"not {version!r}" if version else "and it has none"
        raise InputError(
            f"a scenario eval (`scenario:`) needs `schemaVersion: "
            f'"{SCENARIO_SCHEMA_VERSION}"` exactly, as waza requires, {found}',
            at(path, version_node) if version_node is not None else at(path, scenario_node),
        )
    return SCENARIO_EVAL_SPEC


def _where(path: Path, node: yaml.Node | None) -> Location:
    return at(path, node) if node is not None else Location(str(path))
