"""Go's strconv, as far as waza uses it: `Quote` (which `%q` of a string prints) and
`ParseBool`."""

from __future__ import annotations

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
