"""GitHub's size limits on what waza-ci writes there, each number once (reference:
github-actions-platform.md, "Check run" and "Workflow commands").

They live in report/, the lowest stage that needs them: the renderers budget their texts with
them, and github/ (which may import report/, not the other way round) guards its requests
with the same numbers. Sizes in bytes are UTF-8 bytes.
"""

from __future__ import annotations

JOB_SUMMARY_BYTES = 1_048_576
"""One step's job summary (`GITHUB_STEP_SUMMARY`)."""
CHECK_OUTPUT_BYTES = 65_535
"""A check run's `output.summary` and `output.text` (GitHub counts this one in bytes)."""
CHECK_TITLE_CHARS = 255
"""A check run's `output.title`: GitHub documents no limit, so the annotation title's is kept."""
ANNOTATIONS_PER_REQUEST = 50
"""Annotations in one create or update of a check run; further PATCHes append."""
ANNOTATION_TITLE_CHARS = 255
ANNOTATION_MESSAGE_BYTES = 64_000
"""GitHub documents "64 KB"; 64,000 bytes stays under it however KB is read."""
COMMENT_CHARS = 65_536
"""An issue (pull-request) comment's body, in characters."""
LOG_ERRORS_PER_STEP = 10
"""`::error` workflow commands GitHub shows as annotations per step; the rest vanish."""
