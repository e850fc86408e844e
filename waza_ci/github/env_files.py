"""The runner's environment files: step outputs (GITHUB_OUTPUT) and the job summary
(GITHUB_STEP_SUMMARY), appended whole or not at all, in the formats the runner parses.
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from collections.abc import Mapping

# Output names the runner's GITHUB_OUTPUT parser cannot misread: it splits a line at the first
# "=" or "<<", so a name holding either would shift the key/value boundary. action.yml output ids
# follow this rule anyway (a letter or "_", then alphanumerics, "-" or "_").
_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


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
