"""One `ref:` resolved as `waza run` resolves it (registry/resolver.go, resolveLocked): through
`waza.lock` only, never a floating version.

The lock beside the eval names the ref's commit and its preset's digest. The manifest (for a
`#export` ref) and the preset are read from the module cache at that commit; a file the cache
lacks is fetched at that commit (`fetch`, the shells' GitHub client) and written into the cache.
The preset's sha256 must be the lock's digest, on every load, wherever it came from: content
that changed under a pinned commit is refused, and never cached.

What waza would refuse is an InputError (exit 2) at the grader's line, with the fix; a fetch
that fails is a SetupError (exit 3) naming the URL.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from waza_ci.errors import InputError, Location, SetupError
from waza_ci.waza.modules.cache import cached_file, digest, read_cached, write_cached
from waza_ci.waza.modules.expand import expand_entry
from waza_ci.waza.modules.lock import LockEntry, Lockfile, load_lockfile, lockfile_path
from waza_ci.waza.modules.manifest import MANIFEST_NAME, Manifest, parse_manifest, preset_path
from waza_ci.waza.modules.ref import (
    COMMIT_SHA,
    ModulePin,
    ModuleRef,
    RefError,
    parse_ref,
    quoted,
)
from waza_ci.waza.spec_schema import ANY, Shape, ShapeError, check_shape
from waza_ci.waza.yaml_doc import at, compose_text


class FetchError(Exception):
    """A module file could not be fetched: what was asked (`url`) and why, already worded."""

    def __init__(self, message: str, url: str) -> None:
        super().__init__(message)
        self.message = message
        self.url = url


Fetch = Callable[[ModuleRef, str, str], bytes]
"""(ref, commit, path in the module) -> the file's bytes at that commit; raises FetchError."""


@dataclass(frozen=True)
class ResolvedPreset:
    ref: ModuleRef
    pin: ModulePin
    preset: yaml.MappingNode | None
    """The preset's document (None for an empty file)."""


@dataclass
class ModuleResolver:
    """Resolves the refs of one eval; each ref once, the lock read at the first one."""

    eval_path: Path
    cache_root: Path
    fetch: Fetch | None = None
    """None: the cache only (a fetch would be needed: SetupError saying so)."""
    notes: list[str] = field(default_factory=list)
    """What the caller may want to say (a fetched file the cache could not keep)."""
    _lock: Lockfile | None = field(default=None, init=False)
    _resolved: dict[str, ResolvedPreset] = field(default_factory=dict, init=False)

    def expand(
        self, path: Path, entry: yaml.MappingNode, ref_text: str, shape: Shape
    ) -> tuple[yaml.MappingNode, ModulePin]:
        """The grader entry `entry` of `path` with its `ref` resolved and merged in: an
        ordinary entry of `shape`, and what the ref resolved to."""
        where = at(path, entry)
        resolved = self.resolve(ref_text, where)
        merged = expand_entry(path, entry, resolved.preset, resolved.ref)
        try:
            check_shape(merged, shape)
        except ShapeError as err:
            raise InputError(
                f"invalid grader from `ref: {resolved.ref.raw}`: {err.message}", at(path, err.node)
            ) from None
        return merged, resolved.pin

    def resolve(self, text: str, where: Location) -> ResolvedPreset:
        try:
            ref = parse_ref(text)
        except RefError as err:
            raise InputError(f"{err}", where) from None
        if ref.raw not in self._resolved:
            self._resolved[ref.raw] = self._resolve(ref, where)
        return self._resolved[ref.raw]

    def _resolve(self, ref: ModuleRef, where: Location) -> ResolvedPreset:
        entry = self._entry(ref, where)
        if not COMMIT_SHA.fullmatch(entry.commit):
            raise InputError(
                f"lock entry for {ref.raw}: invalid commit SHA {quoted(entry.commit)}; run "
                "`waza get` and commit waza.lock",
                entry.location,
            )
        manifest = self._manifest(ref, entry) if ref.export else None
        relative = preset_path(manifest, ref)
        data, path = self._file(ref, entry, relative, verify=entry.digest)
        text = _utf8(data, path)
        preset = compose_text(path, text, what="grader preset", shape=ANY)
        return ResolvedPreset(ref, ModulePin(ref.raw, entry.commit, entry.digest), preset)

    def _entry(self, ref: ModuleRef, where: Location) -> LockEntry:
        lock_path = lockfile_path(self.eval_path)
        if self._lock is None:
            self._lock = load_lockfile(lock_path)
        fix = f"run `waza get {self.eval_path}` and commit waza.lock"
        if self._lock is None:
            raise InputError(
                f"grader `ref: {ref.raw}` needs waza.lock beside the eval ({lock_path}), which "
                f"pins its commit and digest; there is none: {fix}",
                where,
            )
        entry = self._lock.lookup(ref.raw)
        if entry is None:
            raise InputError(
                f"grader `ref: {ref.raw}` is not in {lock_path} (a ref is looked up exactly as "
                f"written): {fix}",
                where,
            )
        return entry

    def _manifest(self, ref: ModuleRef, entry: LockEntry) -> Manifest:
        data, path = self._file(ref, entry, MANIFEST_NAME, verify=None)
        return parse_manifest(path, _utf8(data, path))

    def _file(
        self, ref: ModuleRef, entry: LockEntry, relative: str, *, verify: str | None
    ) -> tuple[bytes, Path]:
        """The module's file at the locked commit, from the cache or fetched (then cached);
        with `verify`, its digest must be that one. Returns the bytes and the cache path."""
        cached = cached_file(self.cache_root, ref, entry.commit, relative)
        if cached is not None:
            data = read_cached(cached, f"cached {relative} of {ref.module}")
            _check_digest(ref, entry, data, verify, f"the module cache ({cached})")
            return data, cached
        target = self.cache_root / ref.host / ref.owner / ref.repo / entry.commit / relative
        if self.fetch is None:
            raise SetupError(
                f"`ref: {ref.raw}`: {relative} of {ref.module} at {entry.commit} is not in the "
                f"module cache ({self.cache_root}) and nothing may be fetched: run `waza get` "
                "where the cache is kept, or give the module cache's folder (--module-cache, "
                "input `module-cache`)",
                entry.location,
            )
        try:
            data = self.fetch(ref, entry.commit, relative)
        except FetchError as err:
            raise SetupError(
                f"`ref: {ref.raw}`: cannot fetch {relative} of {ref.module} at {entry.commit} "
                f"({err.url}): {err.message}",
                entry.location,
            ) from None
        _check_digest(ref, entry, data, verify, f"GitHub at commit {entry.commit}")
        try:
            write_cached(self.cache_root, ref, entry.commit, relative, data)
        except OSError as err:
            self.notes.append(
                f"fetched {relative} of {ref.module} but could not keep it in the module cache "
                f"({target}): {err.strerror or err}"
            )
        return data, target


def _check_digest(
    ref: ModuleRef, entry: LockEntry, data: bytes, expected: str | None, source: str
) -> None:
    if expected is None:
        return
    found = digest(data)
    if found != expected:
        raise InputError(
            f"digest mismatch for `ref: {ref.raw}`: waza.lock pins {expected}, but the preset "
            f"in {source} is {found}: its content changed under the pinned commit "
            f"{entry.commit}. Refused; if the change is wanted, run `waza get` and commit the "
            "new waza.lock, else restore the module cache",
            entry.location,
        )


def _utf8(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"not valid UTF-8 (byte {err.start})", Location(str(path))) from None
