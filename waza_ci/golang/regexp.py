"""Regular expressions with Go's semantics (RE2), as waza compiles them with `regexp.Compile`.

Matching goes through RE2 itself (PyPI `google-re2`), so `$`, `\\d`, `\\w`, `\\b`, case
folding, inline flags and what is refused are Go's, not Python's `re`. RE2's C++ error texts
differ from Go's; a compile error is reworded into Go's `error parsing regexp: <code>:
`<fragment>``, which waza puts inside feedback and error texts.

Go's Unicode class names (since Go 1.25; waza is built with 1.26) go further than RE2's: names
are looked up ignoring case, spaces, underscores and hyphens, Unicode's long category names are
aliases (`\\p{Letter}` is `\\p{L}`), and `ASCII`, `Assigned`, `LC` and `Cn` are classes. Those
names are rewritten into classes RE2 knows before compiling (regexp/syntax's `unicodeTable`).
Left as written, so RE2 refuses them where Go would not: a negated multi-category class
inside brackets (`[\\P{LC}]`, `[\\p{Cn}]`), and a script written other than exactly (`greek`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Protocol

import re2

from waza_ci.golang.errors import GoError

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would print every refused pattern to stderr

# RE2's C++ error codes, as Go's regexp/syntax names the same errors.
_GO_CODES = {
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "trailing \\": "trailing backslash at end of expression",
    "no argument for repetition operator": "missing argument to repetition operator",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid repetition size": "invalid repeat count",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class",
    "invalid character class range": "invalid character class range",
    "invalid named capture group": "invalid named capture",
    "invalid UTF-8": "invalid UTF-8",
    "pattern too large - compile failed": "expression too large",
    "pattern too large - reverse compile failed": "expression too large",
    "bad named capture group": "invalid named capture",
    "duplicate capture group name": "duplicate capture group name",
}


class GoRegexError(GoError, ValueError):
    """A pattern Go's regexp refuses; `str()` is Go's error text."""


class GoPattern(Protocol):
    """A compiled pattern: waza only ever asks whether it matches anywhere in a text."""

    def search(self, text: str) -> object | None: ...


# unicode.CategoryAliases (Unicode's PropertyValueAliases for General_Category), by the key
# regexp/syntax's canonicalName makes of each alias.
_CATEGORY_ALIASES = {
    **dict.fromkeys(("Other",), "C"),
    **dict.fromkeys(("Control", "Cntrl"), "Cc"),
    "Format": "Cf",
    "Unassigned": "Cn",
    "Privateuse": "Co",
    "Surrogate": "Cs",
    "Letter": "L",
    "Casedletter": "LC",
    "Lowercaseletter": "Ll",
    "Modifierletter": "Lm",
    "Otherletter": "Lo",
    "Titlecaseletter": "Lt",
    "Uppercaseletter": "Lu",
    **dict.fromkeys(("Mark", "Combiningmark"), "M"),
    "Spacingmark": "Mc",
    "Enclosingmark": "Me",
    "Nonspacingmark": "Mn",
    "Number": "N",
    **dict.fromkeys(("Decimalnumber", "Digit"), "Nd"),
    "Letternumber": "Nl",
    "Othernumber": "No",
    **dict.fromkeys(("Punctuation", "Punct"), "P"),
    "Connectorpunctuation": "Pc",
    "Dashpunctuation": "Pd",
    "Closepunctuation": "Pe",
    "Finalpunctuation": "Pf",
    "Initialpunctuation": "Pi",
    "Otherpunctuation": "Po",
    "Openpunctuation": "Ps",
    "Symbol": "S",
    "Currencysymbol": "Sc",
    "Modifiersymbol": "Sk",
    "Mathsymbol": "Sm",
    "Othersymbol": "So",
    "Separator": "Z",
    "Lineseparator": "Zl",
    "Paragraphseparator": "Zp",
    "Spaceseparator": "Zs",
}
# The categories RE2 knows by the same name (every category has an alias; RE2 lacks LC and Cn).
_RE2_CATEGORIES = frozenset(_CATEGORY_ALIASES.values()) - {"LC", "Cn"}
_ASSIGNED = tuple(f"\\p{{{name}}}" for name in "LMNPSZC")
# A Go class name's members as items of an RE2 bracket class, and whether the class is their
# complement.
_SPECIAL_CLASSES: dict[str, tuple[tuple[str, ...], bool]] = {
    "Any": (("\\p{Any}",), False),
    "Ascii": (("[:ascii:]",), False),
    "Assigned": (_ASSIGNED, False),
    "Cn": (_ASSIGNED, True),
    "LC": (("\\p{Lu}", "\\p{Ll}", "\\p{Lt}"), False),
}


def _canonical_name(name: str) -> str:
    """regexp/syntax's canonicalName: the first letter upper case, the rest lower case, no
    spaces, underscores or hyphens."""
    letters = [c for c in name if c not in " _-"]
    if not letters:
        return ""
    return letters[0].upper() + "".join(letters[1:]).lower()


def _class_items(name: str) -> tuple[tuple[str, ...], bool] | None:
    """The members of Go's Unicode class `name` (see _SPECIAL_CLASSES), or None for a name
    left to RE2 (a script, an unknown name)."""
    key = _canonical_name(name)
    category = _CATEGORY_ALIASES.get(key, "LC" if key == "Lc" else key)
    if category in _SPECIAL_CLASSES:
        return _SPECIAL_CLASSES[category]
    if category in _RE2_CATEGORIES:
        return (f"\\p{{{category}}}",), False
    return None


def _negated_item(item: str) -> str:
    return item.replace("[:", "[:^") if item.startswith("[:") else item.replace("\\p", "\\P")


def _unicode_class(name: str, negated: bool, in_brackets: bool) -> str | None:
    """`\\p{name}` (or `\\P`) as RE2 writes it, or None to leave it as written."""
    found = _class_items(name)
    if found is None:
        return None
    items, complement = found
    if len(items) == 1 and not items[0].startswith("[:"):
        return _negated_item(items[0]) if complement != negated else items[0]
    if complement != negated:
        if len(items) == 1:
            return _negated_item(items[0]) if in_brackets else f"[{_negated_item(items[0])}]"
        return None if in_brackets else f"[^{''.join(items)}]"
    return "".join(items) if in_brackets else f"[{''.join(items)}]"


def _rewrite_unicode_classes(pattern: str) -> str:
    """The pattern with Go's Unicode class names in RE2's words (the module's docstring)."""
    if "\\p" not in pattern and "\\P" not in pattern:
        return pattern
    out: list[str] = []
    i, in_brackets = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and pattern.startswith("\\Q", i):
            end = pattern.find("\\E", i + 2)
            stop = len(pattern) if end < 0 else end + 2
        elif c == "\\" and pattern[i + 1 : i + 2] in ("p", "P"):
            stop = _class_end(pattern, i)
            name = pattern[i + 2 : stop].removeprefix("{").removesuffix("}")
            rewritten = _unicode_class(name, pattern[i + 1] == "P", in_brackets)
            if rewritten is not None:
                out.append(rewritten)
                i = stop
                continue
        elif c == "\\":
            stop = i + 2
        elif in_brackets and pattern.startswith("[:", i) and ":]" in pattern[i + 2 :]:
            stop = pattern.index(":]", i + 2) + 2
        elif c == "[" and not in_brackets:
            in_brackets = True
            stop = i + 1 + (pattern[i + 1 : i + 2] == "^")
            stop += pattern[stop : stop + 1] == "]"  # a `]` first is a member
        else:
            in_brackets = in_brackets and c != "]"
            stop = i + 1
        out.append(pattern[i:stop])
        i = stop
    return "".join(out)


def _class_end(pattern: str, start: int) -> int:
    """Where `\\pX` or `\\p{Name}` starting at `start` ends (a `{` without `}`: the end)."""
    if pattern[start + 2 : start + 3] != "{":
        return start + 3
    close = pattern.find("}", start + 3)
    return len(pattern) if close < 0 else close + 1


@functools.lru_cache(maxsize=4096)
def compile_go(pattern: str) -> GoPattern:
    """`regexp.Compile(pattern)`; raises GoRegexError with Go's message.

    Cached: waza compiles once per grader run, and a spec's patterns repeat for every run."""
    if "\\C" in pattern.replace("\\\\", ""):
        # RE2's C++ parser takes \\C (any byte); Go's refuses it.
        raise GoRegexError("error parsing regexp: invalid escape sequence: `\\C`")
    try:
        compiled: GoPattern = re2.compile(_rewrite_unicode_classes(pattern), _OPTIONS)
    except re2.error as err:
        raise GoRegexError(_go_message(err)) from None
    return compiled


def _go_message(err: re2.error) -> str:
    text = err.args[0] if err.args else ""
    message = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    code, _, fragment = message.partition(": ")
    if code == "trailing \\":
        fragment = ""
    return f"error parsing regexp: {_GO_CODES.get(code, code)}: `{fragment}`"


def matches(pattern: GoPattern, text: str) -> bool:
    """Go's `MatchString`: a match anywhere in the text."""
    return pattern.search(text) is not None


@dataclass(frozen=True)
class ConfiguredPattern:
    """A pattern from a grader's config, compiled once; `error` is Go's compile error when it
    does not compile (waza reports it when the pattern is used, not at load)."""

    pattern: str
    compiled: GoPattern | None
    error: str | None


def compile_each(patterns: list[str] | None) -> tuple[ConfiguredPattern, ...]:
    """Each configured pattern compiled, in order; one that does not compile keeps its error."""
    compiled: list[ConfiguredPattern] = []
    for pattern in patterns or ():
        try:
            compiled.append(ConfiguredPattern(pattern, compile_go(pattern), None))
        except GoRegexError as err:
            compiled.append(ConfiguredPattern(pattern, None, str(err)))
    return tuple(compiled)
