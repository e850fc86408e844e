"""The rubrics waza builds in (`rubric: helpfulness`), read from waza's published source at one
pinned commit, never rewritten here.

waza embeds `internal/graders/data/rubrics/<name>.md` in its binary (`rubric.go`,
`LoadBuiltinRubric`) and no package carries them apart, so waza-ci reads the file of the
microsoft/waza repository at `WAZA_COMMIT`: from waza's module cache when it is there (the
layout `ref:` graders use, `{cache}/github.com/microsoft/waza/{commit}/{path}`), else through
GitHub's contents API at that commit, then kept in that cache for the next grading. A commit
names its files' bytes for good, so the text is waza's at that commit whichever way it came.

Only a grading that re-judges fetches (`fetch` given); one that keeps verdicts reads the cache
alone. What cannot be had is a `RubricError` saying why; the caller keeps the verdict.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from waza_ci.errors import InputError
from waza_ci.golang.strconv import go_quote
from waza_ci.judge.config import Rubric, RubricError, parse_rubric
from waza_ci.waza.modules.cache import cached_file, read_cached, write_cached
from waza_ci.waza.modules.ref import ModuleRef
from waza_ci.waza.modules.resolve import Fetch, FetchError

WAZA_COMMIT = "2d9882753a8d776ca13f81e1b529aa5bcbb7d7df"
"""The commit of microsoft/waza whose `rubric.go` and rubrics this project read."""

WAZA_SOURCE = ModuleRef(
    raw=f"github.com/microsoft/waza@{WAZA_COMMIT}",
    host="github.com",
    owner="microsoft",
    repo="waza",
    path="",
    export="",
    version=WAZA_COMMIT,
)

RUBRICS_FOLDER = "internal/graders/data/rubrics"


def rubric_path(name: str) -> str:
    """The rubric's file in waza's repository."""
    return f"{RUBRICS_FOLDER}/{name}.md"


@dataclass(frozen=True)
class BuiltinRubrics:
    """Where built-in rubrics come from: waza's module cache, then (with `fetch`) GitHub."""

    cache_root: Path | None
    fetch: Fetch | None = None
    _known: dict[str, Rubric | RubricError] = field(default_factory=dict, compare=False, repr=False)
    """Each name's outcome, read once: every task's copy of a grader asks again."""

    def load(self, name: str) -> Rubric:
        """waza's built-in rubric `name` (one of BUILTIN_RUBRICS), parsed as waza parses it;
        RubricError when it cannot be had or waza would refuse it."""
        if name not in self._known:
            try:
                self._known[name] = self._read(name)
            except RubricError as err:
                self._known[name] = err
        known = self._known[name]
        if isinstance(known, RubricError):
            raise known
        return known

    def _read(self, name: str) -> Rubric:
        data = self._cached(name)
        if data is None:
            data = self._fetched(name)
        try:
            rubric = parse_rubric(data.decode("utf-8"))
        except (RubricError, UnicodeDecodeError) as err:
            raise RubricError(f"parse built-in rubric {go_quote(name)}: {err}") from None
        return Rubric(rubric.name, rubric.version, rubric.scale, rubric.body, f"builtin:{name}")

    def _cached(self, name: str) -> bytes | None:
        if self.cache_root is None:
            return None
        found = cached_file(self.cache_root, WAZA_SOURCE, WAZA_COMMIT, rubric_path(name))
        if found is None:
            return None
        try:
            return read_cached(found, f"built-in rubric {name!r}")
        except InputError:
            return None  # unreadable: fetched again below, as if it were not there

    def _fetched(self, name: str) -> bytes:
        where = f"github.com/microsoft/waza@{WAZA_COMMIT[:12]}:{rubric_path(name)}"
        if self.fetch is None:
            raise RubricError(
                f"built-in rubric {name!r} is waza's ({where}), not in waza's module cache, "
                "and only a grading that re-judges (--judge) fetches it"
            )
        try:
            data = self.fetch(WAZA_SOURCE, WAZA_COMMIT, rubric_path(name))
        except FetchError as err:
            raise RubricError(
                f"built-in rubric {name!r} could not be read from waza's source ({err.url}): "
                f"{err.message}"
            ) from None
        if self.cache_root is not None:
            # Unwritable: the text is in hand, and the next grading fetches it again.
            with contextlib.suppress(OSError):
                write_cached(self.cache_root, WAZA_SOURCE, WAZA_COMMIT, rubric_path(name), data)
        return data
