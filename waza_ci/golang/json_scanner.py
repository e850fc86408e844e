"""Go's encoding/json reading JSON, with its error texts (they appear in waza's feedback and
in the schema library's): `json.Unmarshal` into an untyped value (exactly one value, numbers
as float64, NaN and Infinity refused) or into a struct, and `json.Decoder` as the schema
library reads a file. Python's decoder does the decoding; only when it refuses the text does
Go's scanner run here, to find the error Go reports first (`invalid character 'x' looking for
beginning of value`, `unexpected end of JSON input`, …). Deliberate difference: text nested
deeper than Python's recursion limit (about a thousand levels; Go's limit is ten thousand) is
refused as `exceeded max depth`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from waza_ci.golang.errors import GoError
from waza_ci.golang.strconv import go_quote

_MAX_DEPTH = 10000  # Go's scanner
_SPACE = frozenset(b" \t\r\n")
_DIGITS = frozenset(b"0123456789")
_HEX = frozenset(b"0123456789abcdefABCDEF")
_ESCAPES = frozenset(b'bfnrt\\/"')


class GoJSONError(GoError, ValueError):
    """Go's error for a text `encoding/json` refuses; `str()` is Go's message."""


class _Overflow(ValueError):
    """A number literal beyond float64's range."""


def _number(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        raise _Overflow(literal)
    return value


def _refuse_constant(name: str) -> float:
    raise ValueError(name)  # NaN, Infinity: not JSON


_DECODER = json.JSONDecoder(parse_float=_number, parse_int=_number, parse_constant=_refuse_constant)


def go_unmarshal(text: str) -> Any:
    """`json.Unmarshal([]byte(text), &value)`; raises GoJSONError with Go's message."""
    try:
        return _DECODER.decode(text)
    except _Overflow as err:
        overflow = str(err)
    except (ValueError, RecursionError):
        overflow = None
    if overflow is None:
        syntax = go_syntax_error(text.encode("utf-8", "surrogatepass"))
        if syntax is not None:
            raise GoJSONError(syntax)
        raise GoJSONError("exceeded max depth")  # Python's recursion limit, not Go's
    raise GoJSONError(f"json: cannot unmarshal number {overflow} into Go value of type float64")


_AS_WRITTEN_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def go_unmarshal_struct(text: str) -> Any:
    """The JSON of `json.Unmarshal` into a struct, before its fields are matched: Go's syntax
    errors (the scanner's, for the whole text), numbers left as Python reads them (a struct's
    own fields say what they must be, and unknown fields are skipped). Raises GoJSONError."""
    try:
        return _AS_WRITTEN_DECODER.decode(text)
    except (ValueError, RecursionError):
        pass
    syntax = go_syntax_error(text.encode("utf-8", "surrogatepass"))
    raise GoJSONError(syntax or "exceeded max depth")  # none: Python's recursion limit


def go_decode_document(data: bytes) -> Any:
    """A JSON document as the schema library's `UnmarshalJSON` reads a file: one value through
    Go's `json.Decoder`, then nothing but white space; raises GoJSONError with the decoder's
    text (`unexpected EOF` where Unmarshal says `unexpected end of JSON input`; one text for
    whatever follows the value). Deliberate difference: numbers are float64, as in the schema
    waza hands the library, and one beyond float64's range is Unmarshal's error (the library
    keeps numbers as written)."""
    try:
        return _DECODER.decode(data.decode("utf-8", "replace"))
    except _Overflow as err:
        raise GoJSONError(
            f"json: cannot unmarshal number {err} into Go value of type float64"
        ) from None
    except (ValueError, RecursionError):
        pass
    if not data.strip(b" \t\r\n"):
        raise GoJSONError("EOF")
    syntax = go_syntax_error(data)
    if syntax is None:
        raise GoJSONError("exceeded max depth")  # Python's recursion limit, not Go's
    if syntax == "unexpected end of JSON input":
        raise GoJSONError("unexpected EOF")
    if syntax.endswith(" after top-level value"):
        raise GoJSONError("invalid character after top-level value")
    raise GoJSONError(syntax)


def go_decode_at(text: str, offset: int) -> tuple[Any, int]:
    """One JSON value starting at `offset`, as `go_unmarshal` reads values, and where it ends
    (text may follow); raises ValueError or RecursionError where there is none."""
    value, end = _DECODER.raw_decode(text, offset)
    return value, end


# -- Go's scanner, for its error texts ---------------------------------------------------------

_Step = Callable[["_Scanner", int], str | None]


class _Scanner:
    """Go's `encoding/json` scanner state machine; `step` returns an error text or None."""

    def __init__(self) -> None:
        self.step: _Step = _begin_value
        self.stack: list[str] = []  # "object key", "object value", "array"
        self.done = False

    def finished(self) -> bool:
        """Whether one complete top-level value has been read."""
        return self.done

    def push(self, kind: str) -> str | None:
        self.stack.append(kind)
        return "exceeded max depth" if len(self.stack) > _MAX_DEPTH else None


def go_syntax_error(data: bytes) -> str | None:
    """The first syntax error Go's scanner reports for `data`, or None if it is valid JSON."""
    scanner = _Scanner()
    for byte in data:
        error = scanner.step(scanner, byte)
        if error is not None:
            return error
    if scanner.finished():
        return None
    # Go's eof() steps one space: it completes a number, or fails where the value cannot end
    # (`1.` reads "invalid character ' ' after decimal point …"); what is still open is
    # truncated.
    error = scanner.step(scanner, 0x20)
    if error is not None:
        return error
    return None if scanner.finished() else "unexpected end of JSON input"


def _invalid(byte: int, context: str) -> str:
    if byte == ord("'"):
        shown = "'\\''"
    elif byte == ord('"'):
        shown = "'\"'"
    else:
        shown = "'" + go_quote(chr(byte))[1:-1] + "'"  # a byte above 0x7f shows as Latin-1
    return f"invalid character {shown} {context}"


def _begin_value_or_empty(s: _Scanner, c: int) -> str | None:
    if c in _SPACE:
        return None
    if c == ord("]"):
        return _end_value(s, c)
    return _begin_value(s, c)


def _begin_value(s: _Scanner, c: int) -> str | None:
    if c in _SPACE:
        return None
    if c == ord("{"):
        s.step = _begin_string_or_empty
        return s.push("object key")
    if c == ord("["):
        s.step = _begin_value_or_empty
        return s.push("array")
    step = _VALUE_STARTS.get(c)
    if step is None:
        return _invalid(c, "looking for beginning of value")
    s.step = step
    return None


def _begin_string_or_empty(s: _Scanner, c: int) -> str | None:
    if c in _SPACE:
        return None
    if c == ord("}"):
        s.stack[-1] = "object value"
        return _end_value(s, c)
    return _begin_string(s, c)


def _begin_string(s: _Scanner, c: int) -> str | None:
    if c in _SPACE:
        return None
    if c == ord('"'):
        s.step = _in_string
        return None
    return _invalid(c, "looking for beginning of object key string")


def _end_value(s: _Scanner, c: int) -> str | None:
    if not s.stack:
        s.step = _end_top
        s.done = True
        return _end_top(s, c)
    if c in _SPACE:
        s.step = _end_value
        return None
    top = s.stack[-1]
    if top == "object key":
        return _after_key(s, c)
    if top == "object value":
        return _after_member(s, c)
    return _after_element(s, c)


def _after_key(s: _Scanner, c: int) -> str | None:
    if c != ord(":"):
        return _invalid(c, "after object key")
    s.stack[-1] = "object value"
    s.step = _begin_value
    return None


def _after_member(s: _Scanner, c: int) -> str | None:
    if c == ord(","):
        s.stack[-1] = "object key"
        s.step = _begin_string
        return None
    if c == ord("}"):
        return _pop(s)
    return _invalid(c, "after object key:value pair")


def _after_element(s: _Scanner, c: int) -> str | None:
    if c == ord(","):
        s.step = _begin_value
        return None
    if c == ord("]"):
        return _pop(s)
    return _invalid(c, "after array element")


def _pop(s: _Scanner) -> str | None:
    s.stack.pop()
    s.step = _end_value
    if not s.stack:
        s.step = _end_top
        s.done = True
    return None


def _end_top(s: _Scanner, c: int) -> str | None:
    if c not in _SPACE:
        return _invalid(c, "after top-level value")
    return None


def _in_string(s: _Scanner, c: int) -> str | None:
    if c == ord('"'):
        s.step = _end_value
        return None
    if c == ord("\\"):
        s.step = _in_string_escape
        return None
    if c < 0x20:
        return _invalid(c, "in string literal")
    return None


def _in_string_escape(s: _Scanner, c: int) -> str | None:
    if c in _ESCAPES:
        s.step = _in_string
        return None
    if c == ord("u"):
        s.step = _hex_digit(4)
        return None
    return _invalid(c, "in string escape code")


def _hex_digit(remaining: int) -> _Step:
    def step(s: _Scanner, c: int) -> str | None:
        if c not in _HEX:
            return _invalid(c, "in \\u hexadecimal character escape")
        s.step = _in_string if remaining == 1 else _hex_digit(remaining - 1)
        return None

    return step


def _negative(s: _Scanner, c: int) -> str | None:
    if c == ord("0"):
        s.step = _zero
        return None
    if ord("1") <= c <= ord("9"):
        s.step = _integer
        return None
    return _invalid(c, "in numeric literal")


def _integer(s: _Scanner, c: int) -> str | None:
    if c in _DIGITS:
        return None
    return _zero(s, c)


def _zero(s: _Scanner, c: int) -> str | None:
    if c == ord("."):
        s.step = _dot
        return None
    if c in (ord("e"), ord("E")):
        s.step = _exponent
        return None
    return _end_value(s, c)


def _dot(s: _Scanner, c: int) -> str | None:
    if c in _DIGITS:
        s.step = _fraction
        return None
    return _invalid(c, "after decimal point in numeric literal")


def _fraction(s: _Scanner, c: int) -> str | None:
    if c in _DIGITS:
        return None
    if c in (ord("e"), ord("E")):
        s.step = _exponent
        return None
    return _end_value(s, c)


def _exponent(s: _Scanner, c: int) -> str | None:
    if c in (ord("+"), ord("-")):
        s.step = _exponent_sign
        return None
    return _exponent_sign(s, c)


def _exponent_sign(s: _Scanner, c: int) -> str | None:
    if c in _DIGITS:
        s.step = _exponent_digits
        return None
    return _invalid(c, "in exponent of numeric literal")


def _exponent_digits(s: _Scanner, c: int) -> str | None:
    if c in _DIGITS:
        return None
    return _end_value(s, c)


def _literal(rest: str, word: str) -> _Step:
    """The remaining letters of `true`, `false` or `null`, one step each."""

    def step(s: _Scanner, c: int) -> str | None:
        expected = rest[0]
        if c != ord(expected):
            return _invalid(c, f"in literal {word} (expecting '{expected}')")
        s.step = _literal(rest[1:], word) if len(rest) > 1 else _end_value
        return None

    return step


_VALUE_STARTS: dict[int, _Step] = {
    ord('"'): _in_string,
    ord("-"): _negative,
    ord("0"): _zero,
    ord("t"): _literal("rue", "true"),
    ord("f"): _literal("alse", "false"),
    ord("n"): _literal("ull", "null"),
    **{digit: _integer for digit in b"123456789"},
}
"""The steps after the first byte of a scalar value."""
