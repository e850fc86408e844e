"""`waza.registry.yaml`, the manifest at a module's root (registry/manifest.go): which file
each exported grader preset is.

    schema_version: 1
    module: github.com/acme/graders
    exports:
      graders:
        factuality:
          path: graders/factuality.yaml

Only what locating a preset needs is read; unknown keys are ignored so that later manifest
additions keep working, as in waza. A `#export` ref looks its export up here; a path ref names
its file directly (`.yaml` added when it ends in neither `.yaml` nor `.yml`) and needs no
manifest.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path

import yaml

from waza_ci.errors import InputError, Location
from waza_ci.golang.yaml import child, is_null
from waza_ci.waza.modules.ref import ModuleRef, quoted
from waza_ci.waza.spec_schema import INT, STR, ListOf, MapOf, Struct
from waza_ci.waza.yaml_doc import at, compose_text, construct, scalar_text

MANIFEST_NAME = "waza.registry.yaml"
MANIFEST_SHAPE = Struct(
    {
        "schema_version": INT,
        "module": STR,
        "description": STR,
        "license": STR,
        "exports": Struct(
            {"graders": MapOf(Struct({"path": STR, "description": STR, "tags": ListOf(STR)}))}
        ),
    }
)


@dataclass(frozen=True)
class Manifest:
    path: Path
    """Where it was read (in the module cache), for messages."""
    graders: dict[str, tuple[str, Location]]
    """Export name -> (its `path`, the line that defines it)."""


def parse_manifest(path: Path, text: str) -> Manifest:
    root = compose_text(path, text, what=MANIFEST_NAME, shape=MANIFEST_SHAPE)
    if root is None:
        return Manifest(path, {})
    version_node = child(root, "schema_version")
    version = 0 if version_node is None or is_null(version_node) else construct(path, version_node)
    if version not in (0, 1):
        raise InputError(
            f"{MANIFEST_NAME}: unsupported schema_version {version} (expected 1)",
            at(path, version_node) if version_node is not None else Location(str(path)),
        )
    graders = child(child(root, "exports"), "graders")
    found: dict[str, tuple[str, Location]] = {}
    if isinstance(graders, yaml.MappingNode):
        for key, value in graders.value:
            name = str(key.value)
            found[name] = (scalar_text(path, child(value, "path"), "path"), at(path, value))
    return Manifest(path, found)


def preset_path(manifest: Manifest | None, ref: ModuleRef) -> str:
    """The preset's path inside the module, as waza's ResolveGraderPath picks it; InputError
    (waza's words) when the export is not there. Never a path that leaves the module."""
    if ref.export:
        if manifest is None:  # pragma: no cover - an export ref always reads the manifest
            raise InputError(
                f"ref {quoted(ref.raw)} uses #export syntax but no {MANIFEST_NAME} was found"
            )
        if ref.export not in manifest.graders:
            available = " ".join(sorted(manifest.graders))
            raise InputError(
                f"ref {quoted(ref.raw)}: export {quoted(ref.export)} not found in module "
                f"manifest (available: [{available}]); check the export's name, or the ref's "
                "version",
                Location(str(manifest.path)),
            )
        relative, where = manifest.graders[ref.export]
        if not relative:
            raise InputError(
                f"ref {quoted(ref.raw)}: export {quoted(ref.export)} has empty path in manifest",
                where,
            )
        return _inside_module(relative, ref, where)
    relative = ref.path
    if not relative.endswith((".yaml", ".yml")):
        relative += ".yaml"
    return _inside_module(relative, ref, None)


def _inside_module(relative: str, ref: ModuleRef, where: Location | None) -> str:
    """`relative` cleaned; refused when it is absolute or climbs out of the module (it names a
    file of the cache and a path of a GitHub request)."""
    clean = posixpath.normpath(relative)
    if (
        "\\" in relative
        or relative.startswith("/")
        or ".." in relative.split("/")
        or clean in (".", "..")
        or clean.startswith("../")
    ):
        raise InputError(
            f"ref {quoted(ref.raw)}: the preset path {quoted(relative)} leaves the module "
            "(absolute, or with `..`)",
            where,
        )
    return clean
