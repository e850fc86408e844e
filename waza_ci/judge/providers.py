"""The judge's providers and its default concurrency: what the command's and the action's
parsers need of the judge, in a module cheap to import (an enum and a number), so `waza-ci
--help` and every grading without `--judge` load none of the judge's dataclasses."""

from __future__ import annotations

from enum import StrEnum

DEFAULT_JOBS = 4
"""Judgements asking the model at once: each is one model call or two, waiting on the network."""


class Provider(StrEnum):
    KEEP = "keep"
    """Today's behaviour: the saved verdicts are kept, no judge runs."""
    COPILOT = "copilot"
    OPENAI = "openai"
    AZURE = "azure"
    ANTHROPIC = "anthropic"

    @property
    def byok(self) -> bool:
        """Your own endpoint and key, through the same runtime (the SDK's `provider`)."""
        return self not in (Provider.KEEP, Provider.COPILOT)
