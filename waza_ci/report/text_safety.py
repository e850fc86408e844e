"""Text hygiene shared by the renderers: cleaning untrusted strings, byte-safe cuts. Pure.

Everything that reaches a report from a results file or a grader is untrusted: it may hold
control characters, lone surrogates (JSON allows `"\\ud800"`, UTF-8 does not), terminal colour
codes or bidi overrides. These helpers make such text printable and measurable first; the
format-specific escaping (Markdown, HTML) is layered on top by the callers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from waza_ci.sandbox.capture import find_cut_lines

ELLIPSIS = "…"

# The character ranges the patterns below are made of, each written once.
_C0_BUT_TAB_AND_NEWLINE = r"\x00-\x08\x0b-\x1f"
_DEL_AND_C1 = r"\x7f-\x9f"
_SEPARATORS = r"\u2028\u2029"  # line and paragraph separators
_BIDI = r"\u202a-\u202e\u2066-\u2069"  # bidi embeddings, overrides and isolates
_SURROGATES = r"\ud800-\udfff"

# Terminal colour/cursor sequences (CSI): graders often print them; they are noise in a report.
_ANSI_CSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
# Lone surrogates cannot be encoded as UTF-8; Python's json module lets them through.
_SURROGATE = re.compile(f"[{_SURROGATES}]")
# C0/C1 controls except tab and newline, DEL, and the bidi embedding/override/isolate controls
# (which can make displayed text read differently from what it is).
_CONTROL = re.compile(f"[{_C0_BUT_TAB_AND_NEWLINE}{_DEL_AND_C1}{_BIDI}]")
# Whatever `clean` changes (the controls above, carriage returns and colour codes among them,
# the separators, surrogates): a text with none of these, most of them, is returned as it is
# after one scan instead of seven.
_UNCLEAN = re.compile(f"[{_C0_BUT_TAB_AND_NEWLINE}{_DEL_AND_C1}{_SEPARATORS}{_BIDI}{_SURROGATES}]")
_WHITESPACE_RUN = re.compile(r"\s+")
# What for_log escapes: every C0 control but tab, DEL, C1 controls, the line and paragraph
# separators, bidi embeddings/overrides/isolates, and lone surrogates (not encodable as UTF-8).
_LOG_UNSAFE = re.compile(rf"[\x00-\x08\x0a-\x1f{_DEL_AND_C1}{_SEPARATORS}{_BIDI}{_SURROGATES}]")
_LOG_ESCAPES = {"\n": "\\n", "\r": "\\r"}
# The same characters minus those json.dumps already escapes (C0): what may still sit raw
# inside a JSON string.
_JSON_LOG_UNSAFE = re.compile(f"[{_DEL_AND_C1}{_SEPARATORS}{_BIDI}{_SURROGATES}]")


UNNAMED = "(no name)"
"""How plain-text renderings show a grader without `name` (waza keys its verdict by "")."""


def clean(text: str) -> str:
    """Printable text with `\\n` line ends: no controls (but tab), no surrogates, no colours."""
    if _UNCLEAN.search(text) is None:
        return text
    text = _SURROGATE.sub("\ufffd", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\u2028", "\n").replace("\u2029", "\n")
    text = _ANSI_CSI.sub("", text)
    return _CONTROL.sub("\ufffd", text)


def one_line(text: str) -> str:
    """`clean` text with every run of whitespace (newlines included) folded to one space."""
    return _WHITESPACE_RUN.sub(" ", clean(text)).strip()


def _escape_for_log(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _LOG_ESCAPES:
        return _LOG_ESCAPES[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def for_log(text: str) -> str:
    """`text` made safe for one line of a terminal or a GitHub Actions log.

    Line breaks (CR, LF, U+2028/U+2029), other C0/C1 controls (so ANSI/ESC sequences), bidi
    overrides and isolates, and lone surrogates are escaped visibly (`\\n`, `\\x1b`,
    `\\u202e`), so the result is a single line whatever `text` holds. Its first `:` is escaped
    as `\\x3a` when it would start the line with `::`, so it can never be read as a workflow
    command even where it is printed at the beginning of a line. Tab is kept.
    """
    escaped = _LOG_UNSAFE.sub(_escape_for_log, text)
    stripped = escaped.lstrip()
    if stripped.startswith("::"):
        lead = len(escaped) - len(stripped)
        escaped = escaped[:lead] + "\\x3a" + escaped[lead + 1 :]
    return escaped


def json_for_log(serialized: str) -> str:
    """Serialized JSON with the characters that `for_log` escapes written as `\\uXXXX`.

    Those characters can only occur inside JSON strings, where the escape means the same
    character, so the document keeps its values; json.dumps already escapes CR, LF and the
    other C0 controls, so no string can break a line or start one with `::`.
    """
    return _JSON_LOG_UNSAFE.sub(lambda match: f"\\u{ord(match.group(0)):04x}", serialized)


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


def lines_that_fit(lines: Sequence[str], budget: int) -> int:
    """How many of `lines`, from the first, fit in `budget` UTF-8 bytes, each with its newline:
    the one fitter of every renderer that keeps whole lines (table rows, a first screen)."""
    used = 0
    for count, line in enumerate(lines):
        used += utf8_len(line) + 1
        if used > budget:
            return count
    return len(lines)


def shorten(text: str, max_chars: int) -> str:
    """`text` cut to at most `max_chars` characters, the cut marked with an ellipsis."""
    if len(text) <= max_chars:
        return text
    return text[: max_chars - 1].rstrip() + ELLIPSIS


def format_score(score: float) -> str:
    """Scores as two decimals; `+ 0.0` turns a negative zero into `0.00`."""
    return f"{score + 0.0:.2f}"


def format_bytes(count: int) -> str:
    """`1 MiB`, `2 KiB` for exact binary multiples, else `65,535 bytes`."""
    for unit, size in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if count >= size and count % size == 0:
            return f"{count // size} {unit}"
    return f"{count:,} bytes"


# --- characters the Checks API refuses ---------------------------------------------------------

_NON_BMP = re.compile(r"[\U00010000-\U0010ffff]")


def readable_bmp(text: str) -> str:
    """Characters outside the Basic Multilingual Plane written as `U+1F600`.

    The Checks API rejects 4-byte UTF-8 in check-run fields; this keeps the text readable
    (and every other character as it is).
    """
    return _NON_BMP.sub(lambda match: f"U+{ord(match.group()):04X}", text)


# --- long texts: keep the head and the tail ---------------------------------------------------

HEAD_SHARE = 0.4
"""The share of a cut text's budget given to its head; the tail (where assertions and the
last error usually are) gets the rest."""


def cut_marker(lines: int, size: int) -> str:
    return f"… {lines:,} lines cut ({size:,} bytes) …"


def head_tail(text: str, max_bytes: int) -> str:
    """`text` within `max_bytes` UTF-8 bytes: its head and its tail around a cut marker line.

    Cuts fall on line breaks when one is near (within a quarter of either part), else inside
    the line, never inside a character. The marker says how many lines and bytes were left out:
    of the program's output, not only of `text`, when the cut swallows the line where the
    capture had already left out the middle of a long stream (sandbox/capture.py).
    """
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    captured = find_cut_lines(text)
    widest = cut_marker(
        data.count(b"\n") + 1 + sum(c[2] for c in captured), len(data) + sum(c[3] for c in captured)
    )
    room = max(max_bytes - utf8_len(widest) - 2, 0)
    head_room = int(room * HEAD_SHARE)
    tail_room = room - head_room
    head_end = head_room
    newline = data.rfind(b"\n", 0, head_room)
    if newline >= 0 and head_room - newline <= head_room // 4:
        head_end = newline
    tail_start = len(data) - tail_room
    newline = data.find(b"\n", tail_start, len(data))
    if newline >= 0 and newline - tail_start <= tail_room // 4:
        tail_start = newline + 1
    head = data[:head_end].decode("utf-8", "ignore")
    tail = data[tail_start:].decode("utf-8", "ignore")
    head_bytes, tail_bytes = utf8_len(head), utf8_len(tail)
    cut = data[head_bytes : len(data) - tail_bytes]
    # The line breaks at either end of the cut belong to the kept lines.
    start = 1 if cut.startswith(b"\n") else 0
    end = len(cut) - 1 if cut.endswith(b"\n") else len(cut)
    lines = cut.count(b"\n", start, end) + 1 if end > start else 0
    size = len(cut)
    for line_start, line_end, more_lines, more_bytes in captured:
        if line_start >= len(head) and line_end <= len(text) - len(tail):
            # The capture's cut line stands for what it left out: count that, not the line.
            lines += more_lines - 1
            size += more_bytes - utf8_len(text[line_start:line_end]) - 1
    return f"{head}\n{cut_marker(lines, size)}\n{tail}"
