"""The Actions runner's environment as seen from inside the container: the variables it sets,
the event that started the workflow, the step's inputs and the commit to report on.

Nothing here reads `os.environ`: the shell passes a mapping in, so tests feed plain dicts. Formats
follow actions/toolkit and the runner (see github-actions-platform.md §6.5-6.7).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from waza_ci.errors import InputError, Location
from waza_ci.files import MAX_EVENT_BYTES, read_regular_text

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"


@dataclass(frozen=True)
class RunnerEnv:
    """What the runner tells a container action about this job. Unset strings are ""."""

    in_actions: bool
    api_url: str
    server_url: str
    repository: str
    event_name: str
    # The parsed event payload; kept out of repr because it is large and user-controlled.
    event: Mapping[str, Any] = field(repr=False, compare=False)
    event_path: str | None
    sha: str
    workspace: str
    output_path: str | None
    summary_path: str | None
    run_id: str
    run_attempt: str
    job: str
    actor: str
    ref: str = ""
    """GITHUB_REF: the branch or tag the run is for (`refs/heads/main`)."""

    @classmethod
    def from_mapping(cls, env: Mapping[str, str]) -> RunnerEnv:
        """Build from an environment mapping; an unreadable or invalid event file is an error."""
        event_path = _non_empty(env.get("GITHUB_EVENT_PATH"))
        return cls(
            in_actions=env.get("GITHUB_ACTIONS") == "true",
            api_url=(_non_empty(env.get("GITHUB_API_URL")) or DEFAULT_API_URL).rstrip("/"),
            server_url=(_non_empty(env.get("GITHUB_SERVER_URL")) or DEFAULT_SERVER_URL).rstrip("/"),
            repository=env.get("GITHUB_REPOSITORY", ""),
            event_name=env.get("GITHUB_EVENT_NAME", ""),
            event=load_event(event_path),
            event_path=event_path,
            sha=env.get("GITHUB_SHA", ""),
            ref=env.get("GITHUB_REF", ""),
            workspace=env.get("GITHUB_WORKSPACE", ""),
            output_path=_non_empty(env.get("GITHUB_OUTPUT")),
            summary_path=_non_empty(env.get("GITHUB_STEP_SUMMARY")),
            run_id=env.get("GITHUB_RUN_ID", ""),
            run_attempt=env.get("GITHUB_RUN_ATTEMPT", ""),
            job=env.get("GITHUB_JOB", ""),
            actor=env.get("GITHUB_ACTOR", ""),
        )

    @property
    def default_branch(self) -> str:
        """The repository's default branch as the event payload names it ("" when it does not)."""
        branch = _lookup(self.event, "repository", "default_branch")
        return branch if isinstance(branch, str) else ""


def _non_empty(value: str | None) -> str | None:
    return value if value else None


def load_event(path: str | None) -> Mapping[str, Any]:
    """The event payload at `path`; {} when no path is given or the file does not exist.

    A missing file is normal outside Actions (a developer's shell); a file that exists but cannot
    be read or is not a JSON object means something is wrong and must not pass silently.
    """
    if path is None or not os.path.lexists(path):
        return {}
    text = read_regular_text(Path(path), what="the event file", max_bytes=MAX_EVENT_BYTES)
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"the event file is not valid JSON: {exc.msg}", Location(path, exc.lineno)
        ) from exc
    except RecursionError:
        raise InputError(
            "the event file is not valid JSON: nested too deeply", Location(path)
        ) from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise InputError(f"the event file is not valid JSON: {exc}", Location(path)) from None
    if not isinstance(payload, dict):
        raise InputError("the event file does not hold a JSON object", Location(path))
    return payload


def input_value(env: Mapping[str, str], name: str) -> str | None:
    """The action input `name` as the runner exports it, or None when unset or blank.

    The runner upper-cases the name and turns spaces into "_" but keeps hyphens
    (`INPUT_GITHUB-TOKEN`); the underscore spelling is accepted too for the composite/`docker run`
    style where hyphens are awkward. Surrounding whitespace is trimmed, as the toolkit's getInput
    does, so a pasted token with a trailing newline still forms a valid header.
    """
    runner_name = "INPUT_" + name.replace(" ", "_").upper()
    for key in dict.fromkeys((runner_name, runner_name.replace("-", "_"))):
        value = env.get(key, "").strip()
        if value:
            return value
    return None


def _lookup(payload: Mapping[str, Any], *keys: str) -> Any:
    """payload[k1][k2]..., or None as soon as a level is missing or not an object."""
    node: Any = payload
    for key in keys:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node


def _event_location(env: RunnerEnv) -> Location:
    return Location(env.event_path or "GITHUB_EVENT_PATH (unset)")


def resolve_head_sha(env: RunnerEnv, commit: str | None) -> str:
    """The commit the check run belongs to.

    For pull requests GITHUB_SHA is the temporary merge commit (or, for pull_request_target, the
    base branch), where a check run would be invisible on the PR, so the PR head is used instead.
    """
    if commit and commit.strip():
        return commit.strip()
    if env.event_name.startswith("pull_request"):
        return _sha_from_event(env, ("pull_request", "head", "sha"))
    if env.event_name == "workflow_run":
        return _sha_from_event(env, ("workflow_run", "head_sha"))
    if env.sha:
        return env.sha
    raise InputError(
        "cannot tell which commit to report on: GITHUB_SHA is unset; pass the `commit` input"
    )


def _sha_from_event(env: RunnerEnv, keys: tuple[str, ...]) -> str:
    sha = _lookup(env.event, *keys)
    if isinstance(sha, str) and sha:
        return sha
    raise InputError(
        f"the {env.event_name} event has no {'.'.join(keys)}; pass the `commit` input",
        _event_location(env),
    )
