"""One output stream of a program, kept within a fixed size: its head and its tail.

A grader's verdict is usually printed last (`AssertionError: expected 42 got 41` after a
megabyte of log), so an output over the cap keeps its first half-cap bytes and its last
half-cap bytes (a ring buffer), counts what fell between them, and reads back as the head,
one cut line saying what was left out, and the tail:

    line 00001: …
    … 1,421 lines cut (416,353 bytes): waza-ci keeps the first and last 512 KiB of each …
    AssertionError: expected 42 got 41

(the cut line ends "… of each output stream …").

Cuts fall on line breaks when one is within `ALIGN_WINDOW` bytes, else on a character
boundary, so the kept text decodes cleanly. Memory is the cap (plus one read) whatever the
program prints; bytes past the head are only counted (newlines too) as they leave the ring.
The cut line's wording is fixed: `parse_cut_line` reads it back (the report folds it into its
own cut when it shortens the text again).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ALIGN_WINDOW = 16 * 1024
"""How far a cut moves to fall on a line break; past that a (very long) line is cut inside."""

_CUT_LINE = re.compile(
    r"… (?P<lines>[\d,]+) lines? cut \((?P<bytes>[\d,]+) bytes?\): "
    r"waza-ci keeps the first and last [^\n…]+ of each output stream …"
)


@dataclass(frozen=True)
class KeptOutput:
    """What was kept of one stream: the text (a cut line in place of what was left out)."""

    text: str
    dropped_bytes: int = 0
    dropped_lines: int = 0


def cut_line(lines: int, size: int, half_cap: int) -> str:
    """The line that stands for `size` bytes (`lines` lines) left out of a stream."""
    line_word = "line" if lines == 1 else "lines"
    byte_word = "byte" if size == 1 else "bytes"
    return (
        f"… {lines:,} {line_word} cut ({size:,} {byte_word}): waza-ci keeps the first and last"
        f" {size_text(half_cap)} of each output stream …"
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
    for match in re.finditer(r"(?m)^… [\d,]+ lines? cut [^\n]*$", text):
        parsed = parse_cut_line(match.group())
        if parsed is not None:
            found.append((match.start(), match.end(), *parsed))
    return found


def size_text(count: int) -> str:
    """`512 KiB`, `1 MiB` for exact binary multiples, else `1,000 bytes`."""
    for unit, size in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if count >= size and count % size == 0:
            return f"{count // size} {unit}"
    return f"{count:,} bytes" if count != 1 else "1 byte"


class OutputCapture:
    """The first `cap // 2` bytes of a stream and, in a ring, its last `cap - cap // 2`."""

    def __init__(self, cap: int) -> None:
        cap = max(cap, 0)
        self._head_cap = cap // 2
        self._tail_cap = cap - self._head_cap
        self._head = bytearray()
        self._tail = bytearray()
        """Grows to the tail cap, then is a ring whose oldest byte is at `_oldest`."""
        self._oldest = 0
        self._evicted = 0
        self._evicted_newlines = 0
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        data = memoryview(chunk)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._add_to_tail(data)

    def _add_to_tail(self, data: memoryview) -> None:
        tail, cap = self._tail, self._tail_cap
        free = cap - len(tail)
        if free > 0:
            tail += data[:free]
            data = data[free:]
            if not data:
                return
        size = len(data)
        self._evicted += size
        if size >= cap:  # the whole ring and the front of `data` leave
            self._evicted_newlines += tail.count(b"\n") + data[: size - cap].tobytes().count(b"\n")
            tail[:] = data[size - cap :]
            self._oldest = 0
            return
        first = min(size, cap - self._oldest)
        self._evicted_newlines += tail.count(b"\n", self._oldest, self._oldest + first)
        tail[self._oldest : self._oldest + first] = data[:first]
        rest = size - first
        if rest:
            self._evicted_newlines += tail.count(b"\n", 0, rest)
            tail[:rest] = data[first:]
        self._oldest = (self._oldest + size) % cap

    def kept(self) -> KeptOutput:
        """The kept text: everything when it fit, else head, cut line, tail."""
        tail = bytes(self._tail[self._oldest :] + self._tail[: self._oldest])
        if not self._evicted:
            return KeptOutput(_decode(bytes(self._head) + tail))
        head = bytes(self._head)
        head_end = _head_cut(head)
        tail_start = _tail_cut(tail)
        dropped_bytes = len(head) - head_end + self._evicted + tail_start
        newlines = (
            head.count(b"\n", head_end) + self._evicted_newlines + tail.count(b"\n", 0, tail_start)
        )
        # The cut ends on a line break when it could be moved to one; else it ends inside a line.
        ends_a_line = tail_start > 0 and tail[tail_start - 1 : tail_start] == b"\n"
        dropped_lines = newlines + (0 if ends_a_line else 1)
        kept_head = _decode(head[:head_end])
        separator = "" if not kept_head or kept_head.endswith("\n") else "\n"
        text = (
            kept_head
            + separator
            + cut_line(dropped_lines, dropped_bytes, self._head_cap)
            + "\n"
            + _decode(tail[tail_start:])
        )
        return KeptOutput(text, dropped_bytes, dropped_lines)


def _head_cut(head: bytes) -> int:
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


def _tail_cut(tail: bytes) -> int:
    """Where the kept tail starts: after its first line break near the start, else on a
    character boundary."""
    newline = tail.find(b"\n", 0, ALIGN_WINDOW)
    if newline >= 0:
        return newline + 1
    start = 0
    while start < min(3, len(tail)) and 0x80 <= tail[start] < 0xC0:  # continuation bytes
        start += 1
    return start


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
