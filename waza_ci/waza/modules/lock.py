"""`waza.lock`, as `waza get` writes it beside the eval (registry/lockfile.go):

    schema_version: 1
    modules:
      - ref: github.com/acme/graders#factuality@v1.0.0   # exactly as the eval writes it
        module: github.com/acme/graders
        version: v1.0.0
        commit: <40-hex SHA>                             # what the tag pointed to
        digest: sha256:<hex>                             # sha256 of the preset file's bytes
        url: https://…                                   # for the reader; never verified
        resolved_at: 2026-12-01T10:00:00Z

A missing `schema_version` (or 0) is read as 1, anything else is refused, as waza does. Unknown
keys are ignored (yaml.v3 into a struct); a field of the wrong type is an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from waza_ci.errors import InputError, Location
from waza_ci.golang.yaml import child, is_null
from waza_ci.waza.spec_schema import ANY, INT, STR, ListOf, Struct
from waza_ci.waza.yaml_doc import at, construct, load_optional_yaml, scalar_text

LOCKFILE_NAME = "waza.lock"
SCHEMA_VERSION = 1
LOCK_SHAPE = Struct(
    {
        "schema_version": INT,
        "modules": ListOf(
            Struct(
                {
                    "ref": STR,
                    "module": STR,
                    "version": STR,
                    "commit": STR,
                    "digest": STR,
                    "url": STR,
                    "resolved_at": ANY,
                }
            )
        ),
    }
)


@dataclass(frozen=True)
class LockEntry:
    """One pinned ref: the commit its version resolved to and the digest of its preset."""

    ref: str
    module: str
    version: str
    commit: str
    digest: str
    url: str
    location: Location


@dataclass(frozen=True)
class Lockfile:
    path: Path
    entries: tuple[LockEntry, ...]

    def lookup(self, ref: str) -> LockEntry | None:
        """The entry whose `ref` is exactly `ref` (the first, as waza looks it up)."""
        return next((entry for entry in self.entries if entry.ref == ref), None)


def lockfile_path(eval_path: Path) -> Path:
    """Where waza keeps the lock of an eval: `waza.lock` in the eval file's folder."""
    return eval_path.parent / LOCKFILE_NAME


def load_lockfile(path: Path) -> Lockfile | None:
    """The lock at `path`; None when there is none. InputError naming the place if malformed."""
    if not path.exists() and not path.is_symlink():
        return None
    root = load_optional_yaml(path, what="waza.lock", shape=LOCK_SHAPE)
    if root is None:  # an empty file: no entry, as yaml.v3 leaves the zero value
        return Lockfile(path, ())
    version_node = child(root, "schema_version")
    version = 0 if version_node is None or is_null(version_node) else construct(path, version_node)
    if version not in (0, SCHEMA_VERSION):
        raise InputError(
            f"unsupported schema_version {version} (expected {SCHEMA_VERSION}): this lock was "
            "written by another version of waza; run `waza get` with the waza you run and "
            "commit waza.lock",
            at(path, version_node) if version_node is not None else Location(str(path)),
        )
    modules = child(root, "modules")
    other_form = child(root, "graders")
    if modules is None and other_form is not None:
        raise InputError(
            "this waza.lock lists `graders:` (the lock form that digests a whole module folder), "
            "which waza-ci does not read; it reads the `modules:` form, where each ref's digest "
            "is its preset file's sha256",
            at(path, other_form),
        )
    entries = modules.value if isinstance(modules, yaml.SequenceNode) else []
    return Lockfile(path, tuple(_entry(path, node) for node in entries))


def _entry(path: Path, node: yaml.Node) -> LockEntry:
    def text(key: str) -> str:
        return scalar_text(path, child(node, key), key)

    return LockEntry(
        ref=text("ref"),
        module=text("module"),
        version=text("version"),
        commit=text("commit"),
        digest=text("digest"),
        url=text("url"),
        location=at(path, node),
    )
