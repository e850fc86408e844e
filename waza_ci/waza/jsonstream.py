"""Parse a results file a piece at a time, so its text and its parsed form never both exist whole.

`json.loads(path.read_text())` holds the whole text while it builds the whole document: about
twice the file in memory before anything else happens. Here the file is read in chunks and the
top-level object's members, and each element of its `tasks` array, are parsed one by one with
the standard library's own scanner (the same decoder, so the same values), from a buffer that
only ever holds the piece being parsed.

This is a fast path only. Whenever it cannot vouch for its result (the text is not an object
with a well-formed layout, a piece does not parse even at the end of the file, the decoder
refuses a value) it returns None, and the caller parses the whole text the ordinary way, which
produces the exact error message the user should see.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Callable
from typing import Any, BinaryIO, TextIO

_CHUNK_CHARS = 1 << 20
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_STREAMED_ARRAY = "tasks"
_DELIMITERS = frozenset(" \t\n\r,:]}")


class _CannotVouch(Exception):
    """The fast path stops; the whole-text parse will decide (and word any error)."""


def parse_streamed(
    source: BinaryIO, *, flag: re.Pattern[str]
) -> tuple[dict[str, Any], bool] | None:
    """The parsed top-level object of the JSON file open as `source` (read from where it is;
    not closed) and whether `flag` matched any of its text; None when the ordinary whole-text
    parse must decide instead (which it does for every number that is not a finite float64:
    NaN, Infinity, 1e999)."""
    decoder = json.JSONDecoder(parse_float=_finite_float, parse_constant=_refuse)
    stream = io.TextIOWrapper(source, encoding="utf-8")
    try:
        return _Reader(stream, decoder, flag).document()
    except (_CannotVouch, OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    finally:
        stream.detach()  # the caller owns `source`


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _CannotVouch
    return value


def _refuse(_literal: str) -> Any:
    raise _CannotVouch


class _Reader:
    def __init__(self, stream: TextIO, decoder: json.JSONDecoder, flag: re.Pattern[str]) -> None:
        self._stream = stream
        # The C scanner json.loads itself uses (typeshed does not declare the attribute).
        self._scan: Callable[[str, int], tuple[Any, int]] = decoder.scan_once  # type: ignore[attr-defined]
        self._flag = flag
        self._flagged = False
        self._buffer = ""
        self._pos = 0
        self._eof = False
        self._largest = 0  # the longest piece parsed so far, in characters

    def document(self) -> tuple[dict[str, Any], bool]:
        self._expect("{")
        result: dict[str, Any] = {}
        if self._peek() == "}":
            self._pos += 1
        else:
            while True:
                key = self._value()
                if not isinstance(key, str):
                    raise _CannotVouch
                self._expect(":")
                if key == _STREAMED_ARRAY and self._peek() == "[":
                    result[key] = self._array()
                else:
                    result[key] = self._value()
                if self._next_of(",}") == "}":
                    break
        if self._peek() != "":
            raise _CannotVouch  # extra data after the document
        return result, self._flagged

    def _array(self) -> list[Any]:
        self._expect("[")
        items: list[Any] = []
        if self._peek() == "]":
            self._pos += 1
            return items
        while True:
            items.append(self._value())
            if self._next_of(",]") == "]":
                return items

    def _value(self) -> Any:
        """The next JSON value, parsed whole by the standard decoder."""
        self._peek()
        # A piece cut by the end of the buffer costs a wasted scan, and the decoder's refusal
        # counts the lines of the whole buffer for its message: on a 33 MB file with 1 MiB
        # reads, a tenth of the parse. The tasks of one file are alike in size, so reading
        # ahead until the largest piece so far would fit leaves only a larger one to be cut.
        short = self._largest - (len(self._buffer) - self._pos)
        if short > 0 and not self._eof:
            self._read(max(_CHUNK_CHARS, short))
        while True:
            try:
                value, end = self._scan(self._buffer, self._pos)
            except (json.JSONDecodeError, StopIteration):
                end = None
            # A value cut by the end of the buffer may have parsed short ("-0.5" of "-0.5e+3"):
            # only one followed by a delimiter, or by the end of the file, is whole.
            if end is not None and (
                self._buffer[end : end + 1] in _DELIMITERS if end < len(self._buffer) else self._eof
            ):
                if self._flag.search(self._buffer, self._pos, end):
                    self._flagged = True
                self._largest = max(self._largest, end - self._pos)
                self._pos = end
                return value
            if self._eof:
                raise _CannotVouch
            # Doubling what is still unparsed keeps the re-scans linear in the piece size.
            self._read(max(_CHUNK_CHARS, len(self._buffer) - self._pos))

    def _peek(self) -> str:
        """The next character that is not white space ('' at the end of the file)."""
        while True:
            match = _WHITESPACE.match(self._buffer, self._pos)
            assert match is not None  # the pattern matches the empty string
            self._pos = match.end()
            if self._pos < len(self._buffer):
                return self._buffer[self._pos]
            if self._eof:
                return ""
            self._read(_CHUNK_CHARS)

    def _expect(self, char: str) -> None:
        if self._peek() != char:
            raise _CannotVouch
        self._pos += 1

    def _next_of(self, chars: str) -> str:
        found = self._peek()
        if found == "" or found not in chars:
            raise _CannotVouch
        self._pos += 1
        return found

    def _read(self, size: int) -> None:
        chunk = self._stream.read(size)
        if not chunk:
            self._eof = True
        # What was parsed is dropped: the buffer holds only the piece being parsed.
        self._buffer = self._buffer[self._pos :] + chunk
        self._pos = 0
