"""Go's strconv, as far as waza uses it: `Quote` (which `%q` of a string prints),
`ParseBool` and `ParseFloat` (a flag of `waza gate`)."""

from __future__ import annotations

import math
import re

_GO_QUOTE_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    '"': '\\"',
    "\\": "\\\\",
}


def go_quote(text: str) -> str:
    """`strconv.Quote` (and `%q` of a string): Go's escapes, printable characters as they are."""
    parts = ['"']
    for char in text:
        code = ord(char)
        if char in _GO_QUOTE_ESCAPES:
            parts.append(_GO_QUOTE_ESCAPES[char])
        elif 0xDC80 <= code <= 0xDCFF:
            # A byte that was not UTF-8 (decoded with surrogateescape); Go shows the raw byte.
            parts.append(f"\\x{code - 0xDC00:02x}")
        elif char.isprintable():
            parts.append(char)
        elif code < 0x20 or code == 0x7F:
            parts.append(f"\\x{code:02x}")
        elif code < 0x10000:
            parts.append(f"\\u{code:04x}")
        else:
            parts.append(f"\\U{code:08x}")
    parts.append('"')
    return "".join(parts)


_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


def go_parse_bool(text: str) -> bool:
    """`strconv.ParseBool`: only these spellings; ValueError for any other."""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"strconv.ParseBool: parsing {go_quote(text)}: invalid syntax")


# Go's floating-point literals once the underscores are gone (strconv/atof.go, readFloat): a
# decimal mantissa with an optional exponent, or a hexadecimal one with a required `p`
# exponent; no surrounding space. Go reads `inf`, `infinity` (either with a sign) and `nan` in
# any case (atof.go, special).
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+")
_SPECIAL = re.compile(r"[+-]?(?:inf|infinity)|nan", re.IGNORECASE)


def go_parse_float(text: str) -> float:
    """`strconv.ParseFloat(s, 64)`; ValueError in Go's words (`invalid syntax`, or `value out
    of range` where Go returns an infinity). Python's float() differs: it takes spaces, a
    sign on `nan`, no hexadecimal, and overflows to infinity silently."""
    if _SPECIAL.fullmatch(text):
        return float(text)
    plain = text.replace("_", "")
    syntax_ok = "_" not in text or _underscore_ok(text)
    try:
        if syntax_ok and _DECIMAL.fullmatch(plain):
            value = float(plain)
        elif syntax_ok and _HEX.fullmatch(plain):
            value = float.fromhex(plain)
        else:
            raise ValueError(f"strconv.ParseFloat: parsing {go_quote(text)}: invalid syntax")
    except OverflowError:
        value = math.inf
    if math.isinf(value):
        raise ValueError(f"strconv.ParseFloat: parsing {go_quote(text)}: value out of range")
    return value


def _underscore_ok(text: str) -> bool:
    """Go's `underscoreOK` (strconv/atoi.go): an `_` only between digits, or between a base
    prefix and a digit."""
    body = text[1:] if text[:1] in ("+", "-") else text
    saw, start, hexadecimal = "^", 0, False
    if len(body) >= 2 and body[0] == "0" and body[1].lower() in "box":
        saw, start, hexadecimal = "0", 2, body[1].lower() == "x"
    for char in body[start:]:
        if "0" <= char <= "9" or (hexadecimal and "a" <= char.lower() <= "f"):
            saw = "0"
        elif char == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"
