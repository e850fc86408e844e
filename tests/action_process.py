"""entrypoint.py started as the runner starts it, without a GitHub API: no check run, no job
summary; for tests that only look at the log, the exit code and the files it writes."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tests.conftest import FAST_PATH, ROOT


def run_action(
    tmp_path: Path,
    workspace: Path,
    inputs: Mapping[str, str],
    *,
    event: str | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`env`: more of the runner's variables (GITHUB_API_URL, …)."""
    event_path = tmp_path / "event.json"
    event_path.write_text(event if event is not None else json.dumps({"after": "a" * 40}))
    output_path = tmp_path / "github_output"
    output_path.write_text("")
    runner = dict(env or {})
    env = {
        "PATH": FAST_PATH,
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "TMPDIR": str(tmp_path),
        "GITHUB_ACTIONS": "true",
        "GITHUB_REPOSITORY": "octo/repo",
        "GITHUB_SHA": "a" * 40,
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(output_path),
        **runner,
    }
    settings = {"check-run": "false", "job-summary": "false", "jobs": "2", **inputs}
    env.update({f"INPUT_{name.upper()}": value for name, value in settings.items()})
    return subprocess.run(
        [sys.executable, str(ROOT / "entrypoint.py")],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
