"""GitHub's per-field limits on a check run, applied at the last moment so callers can hand
over texts of any size: 4-byte characters escaped, titles, messages and summaries cut with a
note (numbers: github-actions-platform.md §6.1, §6.3)."""

from __future__ import annotations

from typing import Any

from waza_ci.report.annotations import Annotation

MAX_ANNOTATIONS_PER_REQUEST = 50
MAX_ANNOTATION_TITLE_CHARS = 255
# GitHub documents "64 KB"; 64,000 bytes stays under it however KB is read.
MAX_ANNOTATION_MESSAGE_BYTES = 64_000
MAX_SUMMARY_BYTES = 65_535


def escape_non_bmp(text: str) -> str:
    """Replace characters above U+FFFF (emoji and the like) by `U+1F600`.

    The Checks API rejects 4-byte UTF-8 in check-run fields; the report already writes such
    characters this way, so this is the guard that no request ever carries one.
    """
    if all(ord(char) <= 0xFFFF for char in text):
        return text
    return "".join(char if ord(char) <= 0xFFFF else f"U+{ord(char):04X}" for char in text)


def cut_chars(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, ending in "…" when cut."""
    if len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def cut_middle_bytes(text: str, limit: int) -> str:
    """`text` within `limit` UTF-8 bytes: its head and tail around a marker saying it was cut.

    Both ends are kept because grader output tends to put the context first and the error last.
    Cuts fall on character boundaries: a split character is dropped, never half-encoded.
    """
    encoded = text.encode("utf-8")
    if len(encoded) <= limit:
        return text
    marker = (
        f"\n\n[… cut to fit GitHub's limit of {limit:,} bytes; "
        f"the full text is {len(encoded):,} bytes …]\n\n"
    )
    budget = limit - len(marker.encode("utf-8"))
    head_size = budget // 2
    tail_size = budget - head_size
    head = encoded[:head_size].decode("utf-8", "ignore")
    tail = encoded[len(encoded) - tail_size :].decode("utf-8", "ignore")
    return head + marker + tail


def cut_summary(summary: str, limit: int = MAX_SUMMARY_BYTES) -> str:
    """The check-run summary within `limit` UTF-8 bytes, with a closing note when it was cut.

    The caller is expected to budget the summary already; this is the guard that keeps a 422
    from losing the whole check run when it did not.
    """
    encoded = summary.encode("utf-8")
    if len(encoded) <= limit:
        return summary
    note = f"\n\n**The summary was cut here: it exceeded GitHub's limit of {limit:,} bytes.**\n"
    head = encoded[: limit - len(note.encode("utf-8"))].decode("utf-8", "ignore")
    return head + note


def _annotation_path(path: str) -> str:
    """A repository-relative path GitHub can place: no leading "/" or "./", never empty."""
    cleaned = path.lstrip("/")
    while cleaned.startswith("./"):
        cleaned = cleaned[2:].lstrip("/")
    # An annotation must name some path; ".github" exists in every repository using Actions.
    return cleaned or ".github"


def annotation_body(annotation: Annotation) -> dict[str, Any]:
    """The request-body form of one annotation, with every per-annotation limit applied."""
    # A file outside the repository comes as "" (see repo_relative_path): its line means nothing.
    line = max(1, annotation.line) if annotation.path else 1
    title = cut_chars(escape_non_bmp(annotation.title), MAX_ANNOTATION_TITLE_CHARS)
    message = escape_non_bmp(annotation.message) or title or "(no message)"
    body: dict[str, Any] = {
        "path": _annotation_path(annotation.path),
        "start_line": line,
        "end_line": line,
        "annotation_level": annotation.level,
        "message": cut_middle_bytes(message, MAX_ANNOTATION_MESSAGE_BYTES),
    }
    if title:
        body["title"] = title
    return body
