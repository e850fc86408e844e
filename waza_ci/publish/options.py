"""What the action asked of its reporting: the publish stage's options. Light on purpose: the
action parses its inputs into these before anything heavy is loaded."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from waza_ci.policy import ListMode


class CommentMode(StrEnum):
    """When to post (or update) the sticky pull-request comment."""

    OFF = "off"
    ON_CHANGE = "on-change"
    ALWAYS = "always"


@dataclass(frozen=True)
class PublishOptions:
    check_name: str
    job_summary: bool
    head_sha: str | None
    """The commit the check run belongs to; None posts no check run."""
    output_file: Path | None
    """The regraded results file written, for the `output-file` output."""
    token: str | None = field(default=None, repr=False)
    api_timeout_s: float = 60.0
    report: ListMode = ListMode.FAILURES
    comment: CommentMode = CommentMode.ON_CHANGE
    html_report: Path | None = None
    """The HTML report written, for the `html-report` output and the job summary's pointer."""
    partial: bool = False
    """A shard's step: its verdict is partial, so it posts no comment (and no check run)."""
