"""Workflow commands (`::error::`, `::group::`, `::add-mask::`, …) written to the log stream,
escaped as actions/toolkit escapes them, so untrusted text can never start a command of its own.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TextIO


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
