"""`ref:` graders and the judge's built-in rubrics for the engine: where waza's module cache
is, the spec loaded with its refs resolved through waza.lock, and waza's rubrics read at their
pinned commit (GitHub's contents API asked only for what the cache lacks)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from waza_ci.judge.builtin_rubrics import BuiltinRubrics
from waza_ci.judge.config import BuiltinRubric
from waza_ci.waza.modules.ref import ModuleRef
from waza_ci.waza.modules.resolve import FetchError, ModuleResolver
from waza_ci.waza.spec import EvalSpec, LoadWarning, load_eval

if TYPE_CHECKING:
    from waza_ci.github.contents import RepositoryFiles


@dataclass(frozen=True)
class ModuleSettings:
    """Where `ref:` graders come from: waza's module cache, then GitHub at the locked commit."""

    cache_root: Path
    api_url: str = "https://api.github.com"
    token: str | None = field(default=None, repr=False)
    """None or "": public modules only."""
    deadline_s: float = 60.0
    """All fetching of modules, retries included, ends by then (`api-timeout`)."""


def default_module_cache(env: Mapping[str, str]) -> Path:
    """Where waza keeps its module cache: $WAZA_MODULE_CACHE, else ~/.waza/cache."""
    if env.get("WAZA_MODULE_CACHE"):
        return Path(env["WAZA_MODULE_CACHE"])
    # expanduser, not Path.home(): a user with no HOME and no passwd entry (a container's
    # uid 1001) gets `~` back instead of an exception; only a `ref:` grader reads the cache.
    return Path(env.get("HOME") or os.path.expanduser("~"), ".waza", "cache")


def load_spec(
    eval_path: Path, settings: ModuleSettings | None, working_directory: Path
) -> EvalSpec:
    """The spec, its `ref:` graders resolved through waza.lock (a fetch only when the module
    cache lacks a file; the GitHub session is opened then, and closed here)."""
    if settings is None:
        return load_eval(eval_path, working_directory=working_directory)
    fetcher = _ModuleFetcher(settings)
    modules = ModuleResolver(eval_path, settings.cache_root, fetcher)
    try:
        spec = load_eval(eval_path, working_directory=working_directory, modules=modules)
    finally:
        fetcher.close()
    notes = tuple(LoadWarning(note, None) for note in modules.notes)
    return replace(spec, warnings=(*spec.warnings, *notes)) if notes else spec


@contextmanager
def builtin_rubrics(settings: ModuleSettings | None, *, fetch: bool) -> Iterator[BuiltinRubric]:
    """Where the judge reads waza's built-in rubrics: the module cache, and GitHub when `fetch`
    (a grading that re-judges); the GitHub session, if one was opened, is closed on exit."""
    root = settings.cache_root if settings is not None else None
    fetcher = _ModuleFetcher(settings) if fetch and settings is not None else None
    try:
        yield BuiltinRubrics(root, fetcher).load
    finally:
        if fetcher is not None:
            fetcher.close()


class _ModuleFetcher:
    """A module's file from GitHub's contents API; the client is made at the first fetch."""

    def __init__(self, settings: ModuleSettings) -> None:
        self._settings = settings
        self._files: RepositoryFiles | None = None

    def __call__(self, ref: ModuleRef, commit: str, path: str) -> bytes:
        # GitHub's client (requests) is loaded only when the module cache lacks a file.
        from waza_ci.github.contents import FileUnavailable, RepositoryFiles  # noqa: PLC0415
        from waza_ci.github.http import GitHubSetupError  # noqa: PLC0415

        settings = self._settings
        try:
            if self._files is None:
                self._files = RepositoryFiles(
                    settings.api_url, settings.token, deadline_s=settings.deadline_s
                )
            return self._files.file_at(ref.owner, ref.repo, commit, path)
        except FileUnavailable as err:
            raise FetchError(err.message, err.url) from None
        except GitHubSetupError as err:
            raise FetchError(str(err), settings.api_url) from None

    def close(self) -> None:
        if self._files is not None:
            self._files.close()
