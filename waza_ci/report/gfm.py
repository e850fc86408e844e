"""GitHub-flavoured Markdown primitives for untrusted text. Pure.

Untrusted text (grader output, task and grader names) only ever lands in three places, each of
which renders it literally and copies back exactly as it was written:

* a code span (`code`): no Markdown, no HTML, no autolinks inside; GitHub does not look for
  @mentions or #123 references in code, so nothing has to be inserted into the text;
* a fenced code block (`fenced`), for multi-line output, with a fence longer than any run of
  backticks in the text, so no line of the text can close it;
* `<code>` inside our own HTML (`html_code`), with `& < > "` as entities, which the browser
  turns back into the same characters.

In check-run fields, characters outside the BMP are written `U+1F600` (the Checks API rejects
4-byte UTF-8); in the job summary they stay as they are. `Medium` carries that choice.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from waza_ci.report.text_safety import clean, one_line, readable_bmp, shorten

_BACKTICKS = re.compile(r"`+")
_TRUSTED_SPECIALS = re.compile(r"([\\`*_{}\[\]<>#+!|~])")


@dataclass(frozen=True)
class Medium:
    """Where the Markdown goes: the job summary keeps every character, check runs cannot."""

    check_run: bool = False

    def prep(self, text: str) -> str:
        return readable_bmp(text) if self.check_run else text


JOB_SUMMARY = Medium(check_run=False)
CHECK_RUN = Medium(check_run=True)


def _fence_for(text: str, char: str = "`", minimum: int = 1) -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return char * max(minimum, longest + 1)


def code(text: str, medium: Medium, *, in_table: bool = True, max_chars: int = 0) -> str:
    """`text` as one inline code span (folded to one line); `—` for an empty text."""
    flat = one_line(text)
    if max_chars:
        flat = shorten(flat, max_chars)
    flat = medium.prep(flat)
    if not flat:
        return "—"
    fence = _fence_for(flat)
    if flat.startswith("`") or flat.endswith("`"):
        flat = f" {flat} "  # CommonMark strips one space on each side
    if in_table:
        flat = flat.replace("|", "\\|")  # GFM unescapes `\|` inside a cell, code spans included
    return f"{fence}{flat}{fence}"


def fenced(text: str, medium: Medium) -> str:
    """`text` as a fenced code block (its own lines; GitHub scrolls long lines)."""
    body = medium.prep(clean(text)).strip("\n")
    fence = _fence_for(body, minimum=3)
    return f"{fence}text\n{body}\n{fence}"


def fence_overhead(text: str) -> int:
    """The bytes `fenced` adds around `text`: two fence lines and `text` info string."""
    return 2 * len(_fence_for(text, minimum=3)) + len("text") + 3


def link(label_md: str, url: str | None) -> str:
    """A link around already-safe Markdown. The URL's path parts are percent-encoded where it
    is built (SourceLinks); this only makes sure nothing in it can end the link early."""
    if not url:
        return label_md
    safe = "".join(f"%{ord(c):02X}" if c in " ()<>|\\`\"'" else c for c in url)
    return f"[{label_md}]({safe})"


def trusted(text: str) -> str:
    """Our own sentences (hints): Markdown specials escaped so they render as written."""
    return _TRUSTED_SPECIALS.sub(r"\\\1", text)


def html_code(text: str, medium: Medium, *, max_chars: int = 200) -> str:
    """Untrusted text inside our own HTML (`<summary>`): a `<code>` element, entities escaped."""
    flat = medium.prep(shorten(one_line(text), max_chars))
    return f"<code>{html.escape(flat, quote=True)}</code>" if flat else "—"


def table(head: list[str], align: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
