"""The Actions runner as seen from inside the container: its environment, commands and env files.

Nothing here reads `os.environ`: the shell passes a mapping in, so tests feed plain dicts. Formats
follow actions/toolkit and the runner's own parsers (see github-actions-platform.md §6.5-6.7).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from waza_ci.errors import InputError, Location
from waza_ci.files import MAX_EVENT_BYTES, read_regular_text

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"

# Output names the runner's GITHUB_OUTPUT parser cannot misread: it splits a line at the first
# "=" or "<<", so a name holding either would shift the key/value boundary. action.yml output ids
# follow this rule anyway (a letter or "_", then alphanumerics, "-" or "_").
_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


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
            workspace=env.get("GITHUB_WORKSPACE", ""),
            output_path=_non_empty(env.get("GITHUB_OUTPUT")),
            summary_path=_non_empty(env.get("GITHUB_STEP_SUMMARY")),
            run_id=env.get("GITHUB_RUN_ID", ""),
            run_attempt=env.get("GITHUB_RUN_ATTEMPT", ""),
            job=env.get("GITHUB_JOB", ""),
            actor=env.get("GITHUB_ACTOR", ""),
        )


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


# --- workflow commands -------------------------------------------------------------------------


def escape_data(value: str) -> str:
    """Escape a command's message the way actions/toolkit does."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a command property value: as data, plus the ":" and "," that delimit properties."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


class WorkflowCommands:
    """Writes `::command::` lines to the log stream (normally stdout), escaped like the toolkit."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def __repr__(self) -> str:
        return f"WorkflowCommands(stream={self._stream!r})"

    def issue(
        self,
        command: str,
        message: str = "",
        properties: Mapping[str, str | int | None] | None = None,
    ) -> None:
        """Write one command line; properties whose value is None are left out."""
        props = ",".join(
            f"{key}={escape_property(str(value))}"
            for key, value in (properties or {}).items()
            if value is not None
        )
        head = f"::{command} {props}" if props else f"::{command}"
        # Flush per line: the runner interleaves our stdout with stderr and child output.
        self._stream.write(f"{head}::{escape_data(message)}\n")
        self._stream.flush()

    def _annotation(
        self, level: str, message: str, file: str | None, line: int | None, title: str | None
    ) -> None:
        self.issue(level, message, {"title": title, "file": file, "line": line})

    def error(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        title: str | None = None,
    ) -> None:
        self._annotation("error", message, file, line, title)

    def warning(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        title: str | None = None,
    ) -> None:
        self._annotation("warning", message, file, line, title)

    def notice(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        title: str | None = None,
    ) -> None:
        self._annotation("notice", message, file, line, title)

    def add_mask(self, value: str) -> None:
        """Mask `value` in the log from now on.

        The runner masks line by line, so a multi-line secret only disappears if every line is
        registered. Blank lines are skipped: masking whitespace would garble the whole log.
        """
        for line in value.splitlines():
            if line.strip():
                self.issue("add-mask", line)

    @contextmanager
    def group(self, title: str) -> Iterator[None]:
        """A collapsible log group around the block; closed even when the block raises."""
        self.issue("group", title)
        try:
            yield
        finally:
            self.issue("endgroup")

    @contextmanager
    def stop_commands(self) -> Iterator[str]:
        """Turn command processing off around untrusted text (grader output, file contents).

        The resume token is random per fence, so text inside cannot end the fence and then smuggle
        in `::add-mask::`, `::error::` or similar.
        """
        token = secrets.token_hex(16)
        self.issue("stop-commands", token)
        try:
            yield token
        finally:
            self._stream.write(f"::{token}::\n")
            self._stream.flush()

    def echo_untrusted(self, text: str) -> None:
        """Write `text` to the log verbatim, with any `::` lines in it left inert."""
        with self.stop_commands():
            self._stream.write(text if text.endswith("\n") else text + "\n")


# --- environment files -------------------------------------------------------------------------


def _new_delimiter() -> str:
    return f"ghadelimiter_{uuid.uuid4()}"


def format_outputs(outputs: Mapping[str, str]) -> str:
    """The text to append to GITHUB_OUTPUT for `outputs`; raises ValueError on a bad name/value."""
    parts: list[str] = []
    for name, value in outputs.items():
        if not _OUTPUT_NAME.fullmatch(name):
            raise ValueError(f"invalid output name {name!r}")
        if "\n" not in value and "\r" not in value:
            parts.append(f"{name}={value}\n")
            continue
        delimiter = _new_delimiter()
        # A delimiter inside the value would end the heredoc early and let the rest of the value
        # be parsed as further outputs; the toolkit refuses the same way.
        if delimiter in name or delimiter in value:
            raise ValueError(f"output {name!r} contains the heredoc delimiter; refusing to write")
        parts.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(parts)


def write_outputs(path: str, outputs: Mapping[str, str]) -> None:
    """Append step outputs to the GITHUB_OUTPUT file at `path`.

    Every output is checked before anything is written, so a refused value leaves the file as it
    was. OSError propagates: the caller decides whether a missing output file is fatal.
    """
    append_whole(path, format_outputs(outputs))


def append_summary(path: str, markdown: str) -> None:
    """Append Markdown to the job summary file; earlier steps' content in it is kept.

    A final newline is added when missing so that whatever is appended next starts a new block.
    """
    append_whole(path, markdown if markdown.endswith("\n") else markdown + "\n")


def append_whole(path: str, text: str) -> None:
    """Append `text` to the file at `path` all or nothing.

    The runner parses these files after the step; half a line or half a heredoc block would
    corrupt every output or summary after it. So on any failure (disk full, file too large,
    an I/O error) the file is cut back to its length before the append, and the OSError is
    raised with the path in it. Bytes are written as is: the runner parses LF-separated lines.
    """
    data = text.encode("utf-8")  # before opening: an encoding error changes nothing
    # Unbuffered: a buffer could try again on close, after the cut, and leave a partial tail.
    with open(path, "ab", buffering=0) as handle:
        descriptor = handle.fileno()
        start = os.fstat(descriptor).st_size
        pending = memoryview(data)
        try:
            while pending:
                pending = pending[os.write(descriptor, pending) :]
        except BaseException as err:
            with contextlib.suppress(OSError):
                os.ftruncate(descriptor, start)
            if isinstance(err, OSError):
                raise OSError(err.errno, err.strerror, path) from None
            raise
