"""A verdict from what the judge's calls recorded, as waza computes it (`gradeIndependent`,
`gradePairwise`), and what a kept verdict says of itself (stale, or the judge never called a
grade tool)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from waza_ci.judge.config import JudgeConfig
from waza_ci.judge.tools import Calls

ALL_PROMPTS_PASSED = "All prompts passed"
NO_RESPONSE = "<no response content>"

NEVER_CALLED = (
    "the judge never called a grade tool (set_waza_grade_pass / set_waza_grade_fail): waza "
    'scores that 0 and says "All prompts passed"; check the prompt / continue_session'
)


@dataclass(frozen=True)
class Judged:
    """A judgement in waza's terms: what goes into the verdict."""

    passed: bool
    score: float
    feedback: str
    details: dict[str, Any]


def independent(config: JudgeConfig, message: str, response: str, calls: Calls) -> Judged:
    passes, failures = calls.passes, calls.failures
    total = len(passes) + len(failures)
    details: dict[str, Any] = {
        "response": response if response.strip() else NO_RESPONSE,
        "prompt": message,
        "passes": ";".join(passes),
        "failures": ";".join(failures),
    }
    _add_rubric(details, config)
    return Judged(
        passed=not failures and bool(passes),
        score=len(passes) / total if total else 0.0,
        feedback=";".join(failures) if failures else ALL_PROMPTS_PASSED,
        details=details,
    )


def pairwise(config: JudgeConfig, first: Calls, second: Calls) -> Judged:
    """Pass 1 showed A=baseline, B=candidate; pass 2 the other way round."""
    one, two = _pick(first), _pick(second)
    winner_1 = {"A": "baseline", "B": "skill"}.get(one["winner"], "tie")
    winner_2 = {"A": "skill", "B": "baseline"}.get(two["winner"], "tie")
    consistent = winner_1 == winner_2
    winner, magnitude, reasoning = winner_1, one["magnitude"], one["reasoning"]
    if not consistent:
        winner, magnitude = "tie", "equal"
        reasoning = f"Position-inconsistent: pass1={winner_1}, pass2={winner_2}. Defaulting to tie."
    details: dict[str, Any] = {
        "pairwise": {
            "winner": winner,
            "magnitude": magnitude,
            "reasoning": reasoning,
            "position_consistent": consistent,
        },
        "pass1": {},
        "pass2": {},
        "prompt": config.prompt,
        "mode": "pairwise",
    }
    _add_rubric(details, config)
    return Judged(
        passed=winner in ("skill", "tie"),
        score={"skill": 1.0, "tie": 0.5}.get(winner, 0.0),
        feedback=f"pairwise: winner={winner}, magnitude={magnitude}, "
        f"consistent={'true' if consistent else 'false'}",
        details=details,
    )


def _pick(calls: Calls) -> dict[str, str]:
    return calls.winner or {"winner": "tie", "magnitude": "equal", "reasoning": ""}


def _add_rubric(details: dict[str, Any], config: JudgeConfig) -> None:
    if config.rubric is not None:
        r = config.rubric
        details["rubric"] = {
            "name": r.name,
            "version": r.version,
            "scale": r.scale,
            "source": r.source,
        }


def kept_notes(saved: Mapping[str, Any], expected: Sequence[str], location: str) -> tuple[str, ...]:
    """What a kept verdict says of itself: stale when the message saved with it is none the
    current spec would send (`expected`: waza's exact and older messages), and when the judge
    never called a grade tool. `saved` is the verdict as the results file holds it."""
    notes: list[str] = []
    details = saved.get("details")
    details = details if isinstance(details, Mapping) else {}
    prompt = details.get("prompt")
    if isinstance(prompt, str) and expected and prompt not in expected:
        notes.append(
            f"stale: the judge's prompt changed since the run (grader at {location}); "
            "this verdict judged the old one: re-judge with --judge"
        )
    if (
        saved.get("passed") is False
        and details
        and details.get("mode") != "pairwise"
        and not details.get("passes")
        and not details.get("failures")
    ):
        notes.append(NEVER_CALLED)
    return tuple(notes)
