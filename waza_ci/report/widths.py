"""How many characters a name or a reason may take in each medium, in one table: a reviewer
meets the same cut wherever two media give the same room, and a change is made once. Names are
task ids, grader names and file:line sources; reasons are one-line reasons and errors."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Widths:
    name: int
    reason: int


MARKDOWN = Widths(name=120, reason=240)
"""The first screen in Markdown (job summary, check run) and in the HTML report."""
TERMINAL = Widths(name=60, reason=400)
"""One line per row in the log: short names; a reason can name a full temporary path (a
clean-up error), long enough to keep it whole."""
COMMENT = Widths(name=MARKDOWN.name, reason=200)
"""The pull-request comment: a table several graders share a row of."""
ANNOTATION = Widths(name=80, reason=MARKDOWN.reason)
"""A check-run annotation: names inside its title, so one long name cannot crowd out the
rest (the message is cut to GitHub's limit where the request is built)."""
MODEL_REASON = MARKDOWN.reason
"""The one-line reason the Report keeps per row (reasons.py), before any medium cuts it."""
