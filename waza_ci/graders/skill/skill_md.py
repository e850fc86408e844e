"""A skill's SKILL.md as waza's `trigger` grader reads it: the keyword set and the "USE FOR:"
trigger phrases its score is made of, and the tokenizer both sides share.

What waza does, and is done here the same way:

* SKILL.md is the configured path (a folder means its `SKILL.md`); a file that is only white
  space is refused; a leading `---` opens a YAML frontmatter that the first `\\n---` closes;
  `name` and `description` are read from it, the rest of the file is the body.
* Keywords: the tokens of the name, of the description up to "DO NOT USE FOR:" and of the
  body, and of every trigger phrase. Trigger phrases: the description's "USE FOR:" list, cut
  at the next "DO NOT USE FOR:", "INVOKES:" or "FOR SINGLE OPERATIONS:"; quoted phrases when
  there are any, else the comma-separated items without a trailing parenthetical.
* Tokens: the lower-cased text split into runs of Unicode letters and numbers; runs shorter
  than 3 bytes of UTF-8, and a fixed list of stop words, are dropped.

waza finds its labels in the upper-cased text and cuts the original text at the same byte
offset; so does this module, on UTF-8 bytes, so that even a non-ASCII description whose upper
case is longer or shorter is cut where waza cuts it. waza's own SKILL.md parser was not
available to read; the frontmatter rules above are the reference's, and the wording of a
frontmatter YAML error is our best reading of it (see the project notes).
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import yaml

from waza_ci.golang.errors import GoError
from waza_ci.golang.os import GoFileError, go_errno_text, go_read_file
from waza_ci.golang.strings import go_lower, go_trim_space, go_upper
from waza_ci.golang.yaml import is_null

STOP_WORDS = frozenset(
    (
        *("the", "and", "for", "with", "this", "that", "from", "into", "your", "you", "are"),
        *("was", "were", "what", "where", "how", "why", "not", "can", "should", "using"),
        *("about", "have", "has", "had", "but", "all", "any", "too", "out", "get", "let"),
    )
)
MIN_TOKEN_BYTES = 3

_ASCII_RUN = re.compile(r"[a-z0-9]+")
_QUOTED_PHRASE = re.compile('["\u201c\u201d]([^"\u201c\u201d]+)["\u201c\u201d]')
# Go's `\s` is ASCII white space without \v, and `$` (no multi-line flag) is the text's end.
_TRAILING_PARENTHETICAL = re.compile(r"[\t\n\f\r ]*\([^)]*\)[\t\n\f\r ]*\Z")
_USE_FOR = "USE FOR:"
_DO_NOT_USE_FOR = "DO NOT USE FOR:"
_PHRASE_ENDS = (_DO_NOT_USE_FOR, "INVOKES:", "FOR SINGLE OPERATIONS:")


class SkillError(GoError):
    """SKILL.md could not be used; the message is waza's error text."""


@dataclass(frozen=True)
class SkillTriggers:
    """What a trigger grader scores a prompt against."""

    keywords: frozenset[str]
    phrases: tuple[str, ...]


def load_skill(skill_path: str) -> SkillTriggers:
    """Read and parse the SKILL.md at `skill_path` (already resolved); raises SkillError."""
    try:
        is_dir = stat.S_ISDIR(os.stat(skill_path).st_mode)
    except OSError as err:
        raise SkillError(
            f"reading SKILL.md {skill_path}: stat {skill_path}: {go_errno_text(err)}"
        ) from None
    if is_dir:
        skill_path = os.path.join(skill_path, "SKILL.md")
    try:
        data = go_read_file(skill_path)
    except GoFileError as err:
        raise SkillError(f"reading SKILL.md {skill_path}: {err}") from None
    try:
        name, description, body = parse_skill_md(data.decode("utf-8", errors="replace"))
    except SkillError as err:
        raise SkillError(f"parsing SKILL.md {skill_path}: {err}") from None
    triggers = skill_triggers(name, description, body)
    if not triggers.keywords:
        raise SkillError(f"SKILL.md {skill_path} does not contain usable keywords")
    return triggers


def parse_skill_md(text: str) -> tuple[str, str, str]:
    """(name, description, body) of a SKILL.md text; raises SkillError (without the path)."""
    if not go_trim_space(text):
        raise SkillError("SKILL.md is empty")
    if not text.startswith("---"):
        return "", "", text
    rest = text[3:]
    if rest.startswith("\r\n"):
        rest = rest[2:]
    elif rest.startswith("\n"):
        rest = rest[1:]
    end = rest.find("\n---")
    if end < 0:
        raise SkillError("parsing frontmatter: closing frontmatter delimiter not found")
    name, description = _frontmatter(rest[:end])
    return name, description, rest[end + 4 :]


def _frontmatter(text: str) -> tuple[str, str]:
    """`name` and `description` as yaml.v3 decodes them into string fields."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as err:
        line = err.problem_mark.line + 1 if err.problem_mark is not None else 1
        raise _unmarshal_error(f"yaml: line {line}: {err.problem}") from None
    except yaml.YAMLError as err:
        raise _unmarshal_error(f"yaml: {err}") from None
    if root is None or is_null(root):
        return "", ""
    if not isinstance(root, yaml.MappingNode):
        raise _unmarshal_error(_cannot_unmarshal(root, "skill.Frontmatter"))
    fields: dict[str, str] = {}
    seen: dict[str, int] = {}
    for key, value in root.value:
        key_text = str(key.value)
        line = key.start_mark.line + 1
        if key_text in seen:
            raise _unmarshal_error(
                f'yaml: unmarshal errors:\n  line {line}: mapping key "{key_text}" already '
                f"defined at line {seen[key_text]}"
            )
        seen[key_text] = line
        if key_text not in ("name", "description"):
            continue
        if not isinstance(value, yaml.ScalarNode):
            raise _unmarshal_error(_cannot_unmarshal(value, "string"))
        fields[key_text] = "" if is_null(value) else str(value.value)
    return fields.get("name", ""), fields.get("description", "")


def _cannot_unmarshal(node: yaml.Node, go_type: str) -> str:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.ScalarNode):
        tag = str(node.tag).removeprefix("tag:yaml.org,2002:")
        problem = f"cannot unmarshal !!{tag} `{node.value}` into {go_type}"
    else:
        kind = "map" if isinstance(node, yaml.MappingNode) else "seq"
        problem = f"cannot unmarshal !!{kind} into {go_type}"
    return f"yaml: unmarshal errors:\n  line {line}: {problem}"


def _unmarshal_error(message: str) -> SkillError:
    return SkillError(f"unmarshalling frontmatter: {message}")


def skill_triggers(name: str, description: str, body: str) -> SkillTriggers:
    """The keyword set and trigger phrases of a parsed SKILL.md."""
    described = description
    cut = _upper_index(description, _DO_NOT_USE_FOR)
    if cut >= 0:
        described = go_trim_space(_byte_slice(description, 0, cut))
    keywords = set(tokenize(f"{name} {described} {body}"))
    phrases = tuple(p for p in trigger_phrases(description) if go_trim_space(p))
    for phrase in phrases:
        keywords.update(tokenize(phrase))
    return SkillTriggers(frozenset(keywords), phrases)


def trigger_phrases(description: str) -> list[str]:
    """The description's "USE FOR:" phrases, as waza's scaffold parser lists them."""
    text = description.replace("\r\n", " ").replace("\n", " ")
    start = _use_for_label(text)
    if start < 0:
        return []
    after = _byte_slice(text, start + len(_USE_FOR), None)
    for label in _PHRASE_ENDS:
        end = _upper_index(after, label)
        if end >= 0:
            after = _byte_slice(after, 0, end)
    return _split_phrases(go_trim_space(after).rstrip("."))


def _use_for_label(text: str) -> int:
    """The byte offset of the first "USE FOR:" that is not part of "DO NOT USE FOR:"."""
    upper = go_upper(text).encode("utf-8")
    label = _USE_FOR.encode("ascii")
    search_from = 0
    while True:
        found = upper.find(label, search_from)
        if found < 0:
            return -1
        if found >= 4 and b"NOT " in upper[max(0, found - 11) : found]:
            search_from = found + len(label)
            continue
        return found


def _split_phrases(text: str) -> list[str]:
    quoted = [go_trim_space(match) for match in _QUOTED_PHRASE.findall(text)]
    if quoted:
        return [phrase for phrase in quoted if phrase]
    phrases = (
        go_trim_space(_TRAILING_PARENTHETICAL.sub("", go_trim_space(part)))
        for part in text.split(",")
    )
    return [phrase for phrase in phrases if phrase]


def tokenize(text: str) -> list[str]:
    """waza's tokens of a text, in order, duplicates kept."""
    lowered = go_lower(text)
    runs: Iterable[str] = (
        _ASCII_RUN.findall(lowered) if lowered.isascii() else _letter_number_runs(lowered)
    )
    return [
        run for run in runs if len(run.encode("utf-8")) >= MIN_TOKEN_BYTES and run not in STOP_WORDS
    ]


def _letter_number_runs(text: str) -> list[str]:
    """Maximal runs of Unicode letters (L*) and numbers (N*), as Go's unicode.IsLetter and
    unicode.IsNumber see them; everything else separates (marks, `_`, `-`, `'` too)."""
    runs: list[str] = []
    current: list[str] = []
    for char in text:
        if unicodedata.category(char)[0] in "LN":
            current.append(char)
        elif current:
            runs.append("".join(current))
            current = []
    if current:
        runs.append("".join(current))
    return runs


def _upper_index(text: str, label: str) -> int:
    """`strings.Index(strings.ToUpper(text), label)`: a byte offset into the upper-cased text."""
    if text.isascii():
        return text.upper().find(label)
    return go_upper(text).encode("utf-8").find(label.encode("ascii"))


def _byte_slice(text: str, start: int, end: int | None) -> str:
    """`text[start:end]` in Go's terms: byte offsets into the UTF-8 text."""
    if text.isascii():
        return text[start:end]
    return text.encode("utf-8")[start:end].decode("utf-8", errors="replace")
