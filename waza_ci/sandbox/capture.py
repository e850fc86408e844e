"""One output stream of a program, kept within a fixed size: its head and its tail.

A grader's verdict is usually printed last (`AssertionError: expected 42 got 41` after a
megabyte of log), so an output over the cap keeps its first half-cap bytes and its last
half-cap bytes (a ring buffer), counts what fell between them, and reads back as the head,
one cut line saying what was left out, and the tail:

    line 00001: …
    ... 1,421 lines cut (416,353 bytes): waza-ci keeps the first and last 512 KiB of ...
    AssertionError: expected 42 got 41

(the cut line ends "... of each output stream ..."). The line is ASCII, so the kept text of
an ASCII output stays one byte a character in memory (one "…" would make it two).

Cuts fall on line breaks when one is within `ALIGN_WINDOW` bytes, else on a character
boundary, so the kept text decodes cleanly. Memory is the cap (plus one read) whatever the
program prints; bytes past the head are only counted (newlines too) as they leave the ring.
The cut line's wording is fixed: `parse_cut_line` reads it back (the report folds it into its
own cut when it shortens the text again).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from waza_ci.english import agreed

ALIGN_WINDOW = 16 * 1024
"""How far a cut moves to fall on a line break; past that a (very long) line is cut inside."""

_CUT_LINE = re.compile(
    r"\.\.\. (?P<lines>[\d,]+) lines? cut \((?P<bytes>[\d,]+) bytes?\): "
    r"waza-ci keeps the first and last [^\n.]+ of each output stream \.\.\."
)


@dataclass(frozen=True)
class KeptOutput:
    """What was kept of one stream: the text (a cut line in place of what was left out)."""

    text: str
    dropped_bytes: int = 0
    dropped_lines: int = 0


def cut_line(lines: int, size: int, half_cap: int) -> str:
    """The line that stands for `size` bytes (`lines` lines) left out of a stream."""
    return (
        f"... {lines:,} {agreed(lines, 'line')} cut ({size:,} {agreed(size, 'byte')}):"
        f" waza-ci keeps the first and last {size_text(half_cap)} of each output stream ..."
    )


def parse_cut_line(line: str) -> tuple[int, int] | None:
    """(lines, bytes) of a whole line written by `cut_line`, else None."""
    match = _CUT_LINE.fullmatch(line)
    if match is None:
        return None
    return int(match["lines"].replace(",", "")), int(match["bytes"].replace(",", ""))


def find_cut_lines(text: str) -> list[tuple[int, int, int, int]]:
    """Every cut line in `text`, on a line of its own: (start, end, lines, bytes)."""
    if "waza-ci keeps the first and last" not in text:  # the common case, at C speed
        return []
    found = []
    for match in re.finditer(r"(?m)^\.\.\. [\d,]+ lines? cut [^\n]*$", text):
        parsed = parse_cut_line(match.group())
        if parsed is not None:
            found.append((match.start(), match.end(), *parsed))
    return found


def size_text(count: int) -> str:
    """`512 KiB`, `1 MiB` for exact binary multiples, else `1,000 bytes`."""
    for unit, size in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if count >= size and count % size == 0:
            return f"{count // size} {unit}"
    return f"{count:,} {agreed(count, 'byte')}"


class OutputCapture:
    """The first `cap // 2` bytes of a stream and its last `cap - cap // 2`.

    The tail is a ring of the chunks as they were read (no copies): the oldest chunk leaves,
    its bytes and newlines counted, as soon as the newer ones hold the tail's share without it.
    """

    def __init__(self, cap: int) -> None:
        cap = max(cap, 0)
        self._head_cap = cap // 2
        self._tail_cap = cap - self._head_cap
        self._head = bytearray()
        self._chunks: deque[bytes] = deque()
        self._tail_size = 0
        self._evicted = 0
        self._evicted_newlines = 0

    def add(self, chunk: bytes) -> None:
        room = self._head_cap - len(self._head)
        if len(chunk) <= room:  # the common case: a short output, all of it in the head
            self._head += chunk
            return
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        chunks = self._chunks
        chunks.append(chunk)
        self._tail_size += len(chunk)
        while self._tail_size - len(chunks[0]) >= self._tail_cap:
            oldest = chunks.popleft()
            self._tail_size -= len(oldest)
            self._evicted += len(oldest)
            self._evicted_newlines += oldest.count(b"\n")
            if not chunks:
                break

    def kept(self) -> KeptOutput:
        """The kept text: everything when it fit, else head, cut line, tail. Decoded once, from
        one buffer, so a long output costs its kept bytes and their text, little more."""
        if not self._chunks and not self._evicted:
            return KeptOutput(_decode(self._head))
        joined = b"".join(self._chunks)
        excess = max(len(joined) - self._tail_cap, 0)
        kept = bytearray(self._head)
        if not self._evicted and not excess:
            kept += joined
            return KeptOutput(_decode(kept))
        tail = memoryview(joined)[excess:]
        head_end = _head_cut(kept)
        tail_start = _tail_cut(tail)
        dropped_bytes = len(kept) - head_end + self._evicted + excess + tail_start
        newlines = (
            kept.count(b"\n", head_end)
            + self._evicted_newlines
            + joined.count(b"\n", 0, excess + tail_start)
        )
        # The cut ends on a line break when it could be moved to one; else it ends inside a line.
        ends_a_line = tail_start > 0 and tail[tail_start - 1] == ord("\n")
        dropped_lines = newlines + (0 if ends_a_line else 1)
        line = cut_line(dropped_lines, dropped_bytes, self._head_cap)
        del kept[head_end:]
        if kept and not kept.endswith(b"\n"):
            kept += b"\n"  # the cut line stands on a line of its own
        kept += line.encode("utf-8") + b"\n"
        kept += tail[tail_start:]
        return KeptOutput(_decode(kept), dropped_bytes, dropped_lines)


def _head_cut(head: bytes | bytearray) -> int:
    """Where the kept head ends: after its last line break near the end, else on a character
    boundary."""
    newline = head.rfind(b"\n", max(len(head) - ALIGN_WINDOW, 0))
    if newline >= 0:
        return newline + 1
    end = len(head)
    # Back off over a character the cut would split (a lead byte and up to 2 continuations).
    for back in range(1, min(4, end + 1)):
        byte = head[end - back]
        if byte < 0x80:
            return end
        if byte >= 0xC0:  # the lead byte of the last character: is it complete?
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return end if back >= needed else end - back
    return end


def _tail_cut(tail: memoryview) -> int:
    """Where the kept tail starts: after its first line break near the start, else on a
    character boundary."""
    newline = bytes(tail[:ALIGN_WINDOW]).find(b"\n")
    if newline >= 0:
        return newline + 1
    start = 0
    while start < min(3, len(tail)) and 0x80 <= tail[start] < 0xC0:  # continuation bytes
        start += 1
    return start


def _decode(data: bytearray) -> str:
    return data.decode("utf-8", errors="replace")
