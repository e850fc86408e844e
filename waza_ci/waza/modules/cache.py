"""waza's module cache: a module's files at one commit, under

    {root}/{host}/{owner}/{repo}/{commit}/

`root` is `~/.waza/cache` for waza (`$WAZA_MODULE_CACHE` in later versions); the shells pass
it (`--module-cache`, input `module-cache`). Files sit at their path in the module, the
manifest at the top. The first waza that wrote this cache (the resolver of `waza get`) put them
one folder lower, in `{commit}/source/`; both are read, the top first. What waza-ci fetches
itself is written at the top, each file whole (a temporary sibling renamed into place), so a
later `waza run` or waza-ci reads it offline.

The digest that `waza.lock` records is the sha256 of the preset file's bytes, `sha256:<hex>`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

from waza_ci.files import MAX_SPEC_BYTES, read_regular_file
from waza_ci.waza.modules.ref import ModuleRef

SOURCE_FOLDER = "source"
"""The subfolder the first `waza get` kept a module's files in."""


def digest(data: bytes) -> str:
    """The lock's digest of a preset: `sha256:` and the hex sha256 of its bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def module_folder(root: Path, ref: ModuleRef, commit: str) -> Path:
    """`{root}/{host}/{owner}/{repo}/{commit}` (the segments are checked by parse_ref, the
    commit by the resolver: nothing here leaves `root`)."""
    return root / ref.host / ref.owner / ref.repo / commit


def cached_file(root: Path, ref: ModuleRef, commit: str, relative: str) -> Path | None:
    """Where the module's file `relative` is cached at `commit`; None when it is not."""
    folder = module_folder(root, ref, commit)
    for candidate in (folder / relative, folder / SOURCE_FOLDER / relative):
        if candidate.is_file():
            return candidate
    return None


def read_cached(path: Path, what: str) -> bytes:
    """A cached file's bytes (a regular file, within the size a YAML file of waza's may have)."""
    return read_regular_file(path, what=what, max_bytes=MAX_SPEC_BYTES)


def write_cached(root: Path, ref: ModuleRef, commit: str, relative: str, data: bytes) -> Path:
    """Store a fetched file in the cache, whole; returns its path. OSError when it cannot be
    written (the caller warns: the content itself is already in hand)."""
    target = module_folder(root, ref, commit) / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(partial, 0o644)
        os.replace(partial, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
    return target
