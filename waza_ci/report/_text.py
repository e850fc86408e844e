"""Text hygiene shared by the renderers: cleaning untrusted strings, byte-safe cuts. Pure.

Everything that reaches a report from a results file or a grader is untrusted: it may hold
control characters, lone surrogates (JSON allows `"\\ud800"`, UTF-8 does not), terminal colour
codes or bidi overrides. These helpers make such text printable and measurable first; the
format-specific escaping (Markdown, HTML) is layered on top by the callers.
"""

from __future__ import annotations

import re

ZWJ = "\u200d"
"""Zero-width joiner: put after `@` it keeps `@name` from matching GitHub's mention syntax."""

ELLIPSIS = "…"

# Terminal colour/cursor sequences (CSI): graders often print them; they are noise in a report.
_ANSI_CSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
# Lone surrogates cannot be encoded as UTF-8; Python's json module lets them through.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# C0/C1 controls except tab and newline, DEL, and the bidi embedding/override/isolate controls
# (which can make displayed text read differently from what it is).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_WHITESPACE_RUN = re.compile(r"\s+")


def clean(text: str) -> str:
    """Printable text with `\\n` line ends: no controls (but tab), no surrogates, no colours."""
    text = _SURROGATE.sub("\ufffd", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\u2028", "\n").replace("\u2029", "\n")
    text = _ANSI_CSI.sub("", text)
    return _CONTROL.sub("\ufffd", text)


def one_line(text: str) -> str:
    """`clean` text with every run of whitespace (newlines included) folded to one space."""
    return _WHITESPACE_RUN.sub(" ", clean(text)).strip()


def neutralise_mentions(text: str) -> str:
    """Insert a zero-width joiner after every `@`, so no `@user`/`@org/team` can ping anyone.

    An HTML entity such as `&#64;` would not do: GitHub finds mentions in the rendered text,
    where entities are already decoded.
    """
    return text.replace("@", "@" + ZWJ)


def utf8_len(text: str) -> int:
    """The length of `text` in UTF-8 bytes: the unit GitHub's size limits are counted in."""
    return len(text.encode("utf-8"))


def cut_utf8(text: str, max_bytes: int) -> str:
    """The longest prefix of `text` within `max_bytes` UTF-8 bytes, never splitting a character."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    # Dropping the incomplete tail sequence is exactly "cut at the last whole character".
    return data[: max(max_bytes, 0)].decode("utf-8", "ignore")


def shorten(text: str, max_chars: int) -> str:
    """`text` cut to at most `max_chars` characters, the cut marked with an ellipsis."""
    if len(text) <= max_chars:
        return text
    return text[: max_chars - 1].rstrip() + ELLIPSIS


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """`1 run`, `2 runs`: the count with its noun agreed."""
    word = noun if count == 1 else (plural_noun or noun + "s")
    return f"{count} {word}"


def format_score(score: float) -> str:
    """Scores as two decimals; `+ 0.0` turns a negative zero into `0.00`."""
    return f"{score + 0.0:.2f}"


def format_bytes(count: int) -> str:
    """`1 MiB`, `2 KiB` for exact binary multiples, else `65,535 bytes`."""
    for unit, size in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if count >= size and count % size == 0:
            return f"{count // size} {unit}"
    return f"{count:,} bytes"
