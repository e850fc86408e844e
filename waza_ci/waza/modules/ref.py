"""A grader module reference, parsed as waza parses it (registry/ref.go):

    <host>/<owner>/<repo>[/path][#export]@<version>

`@version` is split at the last `@`, `#export` at the first `#`; a subpath and an export are
not combined; only `github.com` is a host; the version is an exact tag (`v1.2.3`, with an
optional pre-release and build) or a full 40-hex commit SHA, never a branch or a range.

Stricter than waza, because the segments become folders of the module cache and paths of a
GitHub request: no segment may be empty, `.` or `..`, or hold a backslash or a colon.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

SUPPORTED_HOST = "github.com"
COMMIT_SHA = re.compile(r"[0-9a-f]{40}")
# Go's \d is ASCII only, and its `$` ends the text: [0-9] and fullmatch say the same here.
SEMVER_TAG = re.compile(r"v[0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?")


class RefError(ValueError):
    """A ref waza would refuse; the message is waza's."""


@dataclass(frozen=True)
class ModuleRef:
    raw: str
    """The ref as written, surrounding whitespace removed: the key of its `waza.lock` entry."""
    host: str
    owner: str
    repo: str
    path: str
    """The subpath of a path ref (`graders/factuality`); "" with `#export`."""
    export: str
    version: str

    @property
    def module(self) -> str:
        """`host/owner/repo`: the module's identity."""
        return f"{self.host}/{self.owner}/{self.repo}"

    @property
    def default_name(self) -> str:
        """The grader's name when neither the entry nor its preset gives one: the export, or
        the subpath's last segment without its extension, or the module."""
        if self.export:
            return self.export
        if self.path:
            last = self.path.rsplit("/", 1)[-1]
            return last.rsplit(".", 1)[0] if "." in last else last
        return self.module


@dataclass(frozen=True)
class ModulePin:
    """What a ref resolved to, as waza.lock pins it: kept on its grader, shown beside the
    grader's YAML line in every report, and compared between shards."""

    ref: str
    commit: str
    digest: str


def quoted(text: str) -> str:
    """Go's %q of printable text."""
    return json.dumps(text, ensure_ascii=False)


def parse_ref(text: str) -> ModuleRef:
    """The ref in `text`; RefError with waza's message when waza would refuse it."""
    raw = text.strip()
    if not raw:
        raise RefError("ref is empty")
    head, at, version = raw.rpartition("@")
    if not at:
        raise RefError(f"ref {quoted(raw)} missing @version selector")
    if not version:
        raise RefError(f"ref {quoted(raw)} has empty version")
    export = ""
    if "#" in head:
        head, _, export = head.partition("#")
        if not export:
            raise RefError(f"ref {quoted(raw)} has empty export after '#'")
    parts = head.split("/")
    if len(parts) < 3:
        raise RefError(f"ref {quoted(raw)} must be host/owner/repo[/path][#export]@version")
    host, owner, repo = parts[:3]
    if not host or not owner or not repo:
        raise RefError(f"ref {quoted(raw)} has empty host/owner/repo segment")
    if host != SUPPORTED_HOST:
        raise RefError(
            f"ref {quoted(raw)}: only github.com is supported in Phase 1 (got {quoted(host)})"
        )
    path = "/".join(parts[3:])
    if path and export:
        raise RefError(f"ref {quoted(raw)} cannot combine subpath and #export syntax")
    if not SEMVER_TAG.fullmatch(version) and not COMMIT_SHA.fullmatch(version):
        raise RefError(
            f"ref {quoted(raw)}: version {quoted(version)} must be a semver tag (vX.Y.Z) or "
            "40-char commit SHA (floating selectors are not allowed in eval.yaml)"
        )
    for segment in (owner, repo, *(parts[3:] if path else ())):
        if _unsafe(segment):
            raise RefError(
                f"ref {quoted(raw)} has an invalid path segment {quoted(segment)} (empty, `.`, "
                "`..`, surrounding spaces, a backslash or a colon)"
            )
    return ModuleRef(raw, host, owner, repo, path, export, version)


def _unsafe(segment: str) -> bool:
    return (
        segment in ("", ".", "..") or segment.strip() != segment or any(c in segment for c in "\\:")
    )
