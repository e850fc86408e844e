"""GitHub's per-field limits on a check run, applied at the last moment so callers can hand
over texts of any size: 4-byte characters escaped, titles, messages and summaries cut with a
note. The numbers are report/github_limits.py's, the cuts report/text_safety.py's."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from waza_ci.report.annotations import Annotation
from waza_ci.report.github_limits import (
    ANNOTATION_MESSAGE_BYTES,
    ANNOTATION_TITLE_CHARS,
    CHECK_OUTPUT_BYTES,
)
from waza_ci.report.text_safety import cut_utf8, head_tail, readable_bmp, shorten, utf8_len


def cut_summary(summary: str, limit: int = CHECK_OUTPUT_BYTES) -> str:
    """The check-run summary within `limit` UTF-8 bytes, with a closing note when it was cut.

    The caller is expected to budget the summary already; this is the guard that keeps a 422
    from losing the whole check run when it did not.
    """
    if utf8_len(summary) <= limit:
        return summary
    note = f"\n\n**The summary was cut here: it exceeded GitHub's limit of {limit:,} bytes.**\n"
    return cut_utf8(summary, limit - utf8_len(note)) + note


def _annotation_path(path: str) -> str:
    """A repository-relative path GitHub can place: no leading "/" or "./", never empty."""
    cleaned = path.lstrip("/")
    while cleaned.startswith("./"):
        cleaned = cleaned[2:].lstrip("/")
    # An annotation must name some path; ".github" exists in every repository using Actions.
    return cleaned or ".github"


def fitted(annotation: Annotation) -> Annotation:
    """The annotation within GitHub's per-annotation limits, the one place they are applied:
    its title cut to 255 characters, its message to 64,000 bytes keeping head and tail, 4-byte
    characters written as U+XXXX. Both the check run's request and the log's `::error`
    fallback are built from it."""
    title = shorten(readable_bmp(annotation.title), ANNOTATION_TITLE_CHARS)
    message = readable_bmp(annotation.message) or title or "(no message)"
    return replace(annotation, title=title, message=head_tail(message, ANNOTATION_MESSAGE_BYTES))


def annotation_body(annotation: Annotation) -> dict[str, Any]:
    """The request-body form of one annotation, with every per-annotation limit applied."""
    # A file outside the repository comes as "" (see repo_relative_path): its line means nothing.
    line = max(1, annotation.line) if annotation.path else 1
    annotation = fitted(annotation)
    body: dict[str, Any] = {
        "path": _annotation_path(annotation.path),
        "start_line": line,
        "end_line": line,
        "annotation_level": annotation.level,
        "message": annotation.message,
    }
    if annotation.title:
        body["title"] = annotation.title
    return body
