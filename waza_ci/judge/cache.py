"""Judgements already paid for, in one JSON file a workflow keeps with `actions/cache`: keyed
on what decides a judgement (the runtime, the model, the reasoning effort, the message and
the tools' schemas), so an unchanged grader on an unchanged run costs nothing the next time.

Only clean judgements are kept (no send error): a failure is asked again. The file is written
whole (a temporary file renamed over it) after the judge has run."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from waza_ci.errors import InputError
from waza_ci.judge.tools import Calls, ToolSpec

FORMAT = "waza-ci judge cache 1"


def cache_key(
    provider: str,
    model: str,
    effort: str,
    message: str,
    tools: Sequence[ToolSpec],
    *,
    workspace: bool,
) -> str:
    document = json.dumps(
        {
            "provider": provider,
            "model": model,
            "reasoning_effort": effort,
            "message": message,
            "tools": [t.schema() for t in tools],
            "workspace_tools": workspace,
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(document.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Cached:
    calls: Calls
    response: str


@dataclass
class JudgeCache:
    path: Path | None
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    added: int = 0

    def get(self, key: str) -> Cached | None:
        entry = self.entries.get(key)
        if entry is None:
            return None
        calls = Calls(
            passes=[str(p) for p in entry.get("passes") or []],
            failures=[str(f) for f in entry.get("failures") or []],
            winner=entry.get("winner") if isinstance(entry.get("winner"), dict) else None,
        )
        return Cached(calls, str(entry.get("response") or ""))

    def put(self, key: str, calls: Calls, response: str) -> None:
        self.entries[key] = {
            "passes": calls.passes,
            "failures": calls.failures,
            "winner": calls.winner,
            "response": response,
        }
        self.added += 1

    def save(self) -> None:
        if self.path is None or not self.added:
            return
        text = json.dumps({"format": FORMAT, "entries": self.entries}, sort_keys=True)
        folder = self.path.parent if str(self.path.parent) else Path()
        fd, tmp = tempfile.mkstemp(prefix=".judge-cache-", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def load_cache(path: Path | None) -> JudgeCache:
    """The cache file; a missing file is an empty cache (the first run), a malformed one is
    refused with the fix (delete it) rather than silently paid for again."""
    if path is None:
        return JudgeCache(None)
    if not path.exists():
        if not path.parent.is_dir():
            raise InputError(f"--judge-cache {str(path)!r}: its folder does not exist")
        return JudgeCache(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(
            f"--judge-cache {str(path)!r} is not a judge cache ({err}): delete it to start a "
            "new one"
        ) from None
    entries = doc.get("entries") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(entries, dict):
        raise InputError(
            f"--judge-cache {str(path)!r} is not a judge cache of this waza-ci "
            f"(expected format {FORMAT!r}): delete it to start a new one"
        )
    return JudgeCache(path, {str(k): v for k, v in entries.items() if isinstance(v, dict)})
