"""Where a grader or task is defined, as the report shows it: the YAML file's path relative to
the repository (never a container path) and its line, linked at the commit when known."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from waza_ci.errors import Location
from waza_ci.report.model import Source, SourceLinks


def repo_relative_path(file: str, repo_root: str) -> str:
    """`file` relative to the repository root `repo_root` (GITHUB_WORKSPACE), or "" when it is
    not inside the repository: an annotation must never name a container path such as
    `/github/workspace/...` nor a file GitHub cannot show (callers then attach no file).

    Paths are POSIX (the action runs in a Linux container). A relative `file` is taken as
    relative to the repository root (waza-ci runs in GITHUB_WORKSPACE). Nothing is resolved on
    disk, so symlinks are not followed.
    """
    path = posixpath.normpath(file) if file else "."
    if posixpath.isabs(path):
        root = posixpath.normpath(repo_root) if repo_root else ""
        if not posixpath.isabs(root):
            return ""  # no absolute root to measure against: cannot place it in the repository
        if root == "/":
            return path.lstrip("/") or "."
        prefix = root.rstrip("/") + "/"
        if not path.startswith(prefix):
            return ""
        path = path[len(prefix) :]
    elif repo_root and not posixpath.isabs(repo_root):
        root = posixpath.normpath(repo_root)
        if path.startswith(root.rstrip("/") + "/"):
            path = path[len(root.rstrip("/")) + 1 :]
    if path == ".." or path.startswith("../"):
        return ""
    return path or "."


@dataclass(frozen=True)
class Where:
    """Places YAML locations in the repository, linked at the commit when known."""

    repo_root: str
    links: SourceLinks | None

    def source(self, location: Location, ref: str = "") -> Source:
        """`ref`: a `ref:` grader's module reference, shown beside its line."""
        # GitHub rejects line 0; a location without a line means the top of the file.
        line = location.line if location.line is not None and location.line >= 1 else 1
        path = repo_relative_path(location.file, self.repo_root)
        if not path:  # outside the repository: shown as it is, never linked or annotated
            return Source("", line, None, shown=posixpath.normpath(location.file), ref=ref)
        url = self.links.url(path, line) if self.links is not None else None
        return Source(path, line, url, ref=ref)
