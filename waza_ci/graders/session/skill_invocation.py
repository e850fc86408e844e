"""`skill_invocation`: the skills the agent invoked (`skill_invocations[].name`, in order)
against `required_skills` and `forbidden_skills`.

`mode` (`exact_match`, `in_order` or `any_order`; any-order by default when only forbidden
skills are set) decides whether the required skills were matched, as `action_sequence`
compares actions. Score: the F1 of precision and recall (1 without required skills); with
`allow_extra: false`, invocations beyond the required count cut it by up to 60 % (and never
fail the grader); any forbidden skill invoked makes it 0 and fails the grader.

waza's newest grader adds a routing-surface note (which required skills the runtime offered)
when it knows the runtime's skill catalog; `waza grade` does not hand it the catalog, so the
note and its `details` keys never appear when regrading. Any-order misses are listed in the
order the skills are first required (waza: Go's random map order).
"""

from __future__ import annotations

from dataclasses import dataclass

from waza_ci.errors import InputError
from waza_ci.golang.strconv import go_quote
from waza_ci.graders.base import GraderJob
from waza_ci.graders.inprocess import GraderError, InProcessGrader, Outcome
from waza_ci.graders.params import decode_params
from waza_ci.graders.session.action_sequence import (
    ANY_ORDER,
    EXACT,
    IN_ORDER,
    SequenceScore,
    mismatch_text,
    sequence_matches,
    sequence_score,
)
from waza_ci.graders.session.digest import skill_names
from waza_ci.waza.spec import GraderSpec
from waza_ci.waza.spec_schema import BOOL, STR, ListOf, Struct

SKILL_INVOCATION = "skill_invocation"
_MODES = {"exact_match": EXACT, "in_order": IN_ORDER, "any_order": ANY_ORDER}
_PARAMETERS = Struct(
    {
        "required_skills": ListOf(STR),
        "forbidden_skills": ListOf(STR),
        "mode": STR,
        "allow_extra": BOOL,
    }
)
_EXTRA_PENALTY = 0.6


@dataclass(frozen=True)
class SkillInvocationConfig:
    mode: str
    required: list[str]
    forbidden: list[str]
    allow_extra: bool
    construction_error: str | None = None

    def penalises(self, actual: list[str]) -> bool:
        """Whether invocations beyond the required ones count against the run."""
        return not self.allow_extra and bool(self.required) and len(actual) > len(self.required)


class SkillInvocationGrader(InProcessGrader[SkillInvocationConfig]):
    kind = SKILL_INVOCATION

    def configure(self, grader: GraderSpec) -> SkillInvocationConfig:
        params = decode_params(grader, "SkillInvocationGraderParameters", _PARAMETERS)
        required = [name or "" for name in params.get("required_skills") or ()]
        forbidden = [name or "" for name in params.get("forbidden_skills") or ()]
        if not required and not forbidden:
            raise InputError(
                f"skill_invocation grader {go_quote(grader.name)}: must have at least one "
                "skill in config.required_skills or config.forbidden_skills",
                grader.location,
            )
        written_mode = params.get("mode") or ""
        mode = written_mode or ("any_order" if not required else "")
        allow_extra = params.get("allow_extra")
        config = SkillInvocationConfig(
            mode, required, forbidden, True if allow_extra is None else allow_extra
        )
        if mode in _MODES:
            return config
        error = (
            f"skill_invocation grader '{grader.name}' has invalid mode {go_quote(written_mode)} "
            "(must be exact_match, in_order, or any_order)"
        )
        return SkillInvocationConfig(mode, required, forbidden, config.allow_extra, error)

    def evaluate(self, config: SkillInvocationConfig, job: GraderJob) -> Outcome:
        if config.construction_error is not None:
            raise GraderError(config.construction_error, at_creation=True)
        actual = skill_names(job.run)
        score = _required_score(config.required, actual)
        required_passed = not config.required or sequence_matches(
            _MODES[config.mode], config.required, actual
        )
        violations = _violations(config.forbidden, actual)
        passed = required_passed and not violations
        return Outcome(
            score=_score(config, actual, score.f1, violations),
            passed=passed,
            feedback=_feedback(config, actual, required_passed, violations),
            details={
                "mode": config.mode,
                "required_skills": config.required,
                "forbidden_skills": config.forbidden,
                "forbidden_violations": violations,
                "actual_skills": actual,
                "allow_extra": config.allow_extra,
                "precision": score.precision,
                "recall": score.recall,
                "f1": score.f1,
            },
        )


def _required_score(required: list[str], actual: list[str]) -> SequenceScore:
    """Without required skills only the forbidden ones count: precision and recall are 1."""
    return sequence_score(required, actual) if required else SequenceScore(1.0, 1.0)


def _violations(forbidden: list[str], actual: list[str]) -> list[str]:
    """The forbidden skills invoked, in config order, each once."""
    invoked = set(actual)
    return list(dict.fromkeys(skill for skill in forbidden if skill in invoked))


def _score(
    config: SkillInvocationConfig, actual: list[str], f1: float, violations: list[str]
) -> float:
    if violations:
        return 0.0
    if config.penalises(actual):
        extra = len(actual) - len(config.required)
        return f1 * (1.0 - extra / len(actual) * _EXTRA_PENALTY)
    return f1


def _feedback(
    config: SkillInvocationConfig, actual: list[str], required_passed: bool, violations: list[str]
) -> str:
    if required_passed and not violations:
        if not config.required:
            return "Forbidden skills were not invoked"
        if config.penalises(actual):
            return (
                "Skill invocation sequence matched but had extra invocations "
                f"(got {len(actual)}, expected {len(config.required)})"
            )
        return "Skill invocation sequence matched"
    parts: list[str] = []
    if not required_passed:
        parts.append(
            mismatch_text(
                _MODES[config.mode],
                list(config.required),
                actual,
                things="skills",
                wanted="required",
            )
        )
    if config.penalises(actual):
        parts.append(
            f"Extra invocations not allowed (got {len(actual)}, expected {len(config.required)})"
        )
    if violations:
        parts.append(f"Forbidden skills invoked: {', '.join(violations)}")
    return "; ".join(parts)
