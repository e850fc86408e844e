"""Go's strings, as waza uses them: `TrimSpace` (Go's white space), `ToLower` and `ToUpper`
(each rune's simple case mapping, no context rules)."""

from __future__ import annotations

# The characters Go's strings.TrimSpace removes (unicode.IsSpace). Python's str.strip() would
# also remove U+001C..U+001F, which Go keeps.
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)


def go_trim_space(text: str) -> str:
    """`strings.TrimSpace`: waza trims program output with Go's notion of white space."""
    return text.strip(_GO_SPACE)


def go_lower(text: str) -> str:
    """Go's `strings.ToLower`: each rune's simple lower-case mapping, no context rules
    (Python's `str.lower` maps U+0130 to two characters and applies final sigma)."""
    if text.isascii():
        return text.lower()
    return "".join(_lower_rune(char) for char in text)


def _lower_rune(char: str) -> str:
    lowered = char.lower()
    return lowered if len(lowered) == 1 else lowered[0]


def go_upper(text: str) -> str:
    """Go's `strings.ToUpper`: each rune's simple upper-case mapping ("ß" stays "ß", where
    Python's `str.upper` makes it "SS")."""
    if text.isascii():
        return text.upper()
    return "".join(_upper_rune(char) for char in text)


def _upper_rune(char: str) -> str:
    upper = char.upper()
    return upper if len(upper) == 1 else char
