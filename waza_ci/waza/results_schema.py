"""waza's results-file structs (`internal/models/outcome.go`, schema 1.5) as pydantic models.

They say what each known field's type is, as Go's decoder enforces it: a wrong type anywhere in
the file is an error naming its JSON path, even when unknown fields sit beside it (those are
allowed: newer waza versions add fields within a major version). `null` is a field's zero value,
as Go decodes it. Only the fields grading reads are used afterwards; the rest is checked and left
in the raw JSON, which is what gets written back.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

_INT64 = 2**63


def _go_zero(zero: Any) -> BeforeValidator:
    # Go's decoder leaves a field at its zero value for JSON null; it does not fail.
    return BeforeValidator(lambda value: zero if value is None else value)


_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")


def _rfc3339(value: str) -> str:
    """Go's time.Time reads RFC 3339 only; the zero value (null) is kept as it is."""
    if value and not (_RFC3339.fullmatch(value) and _valid_date(value)):
        raise ValueError("timestamp must be an RFC 3339 date and time")
    return value


def _valid_date(value: str) -> bool:
    try:
        datetime.fromisoformat(value[:19])
    except ValueError:
        return False
    return True


GoStr = Annotated[str, _go_zero("")]
GoInt = Annotated[int, _go_zero(0), Field(ge=-_INT64, lt=_INT64)]
GoFloat = Annotated[float, _go_zero(0.0)]
GoBool = Annotated[bool, _go_zero(False)]
GoTime = Annotated[str, _go_zero(""), AfterValidator(_rfc3339)]
GoStrs = Annotated[list[GoStr], _go_zero([])]
GoAnyMap = dict[str, Any] | None


class Tolerant(BaseModel):
    # Unknown fields are tolerated; types are strict, as Go's decoder is: "false" is not a
    # bool, "1" is not a number, 1.5 is not an int.
    model_config = ConfigDict(extra="allow", populate_by_name=True, strict=True)


class ConfidenceInterval(Tolerant):
    lower: GoFloat = 0.0
    upper: GoFloat = 0.0
    mean: GoFloat = 0.0
    confidence_level: GoFloat = 0.0
    num_bootstraps: GoInt = 0


class ModelUsage(Tolerant):
    input_tokens: GoInt = 0
    output_tokens: GoInt = 0
    cache_read_tokens: GoInt = 0
    cache_write_tokens: GoInt = 0
    request_count: GoFloat = 0.0
    request_cost: GoFloat = 0.0
    ai_credits: float | None = None


class UsageStats(Tolerant):
    turns: GoInt = 0
    input_tokens: GoInt = 0
    output_tokens: GoInt = 0
    cache_read_tokens: GoInt = 0
    cache_write_tokens: GoInt = 0
    premium_requests: GoFloat = 0.0
    ai_credits: float | None = None
    provider: GoStr = ""
    provider_host: GoStr = ""
    model_metrics: dict[str, ModelUsage] | None = None


class ToolPolicyDenial(Tolerant):
    tool: GoStr = ""
    kind: GoStr = ""
    reason: GoStr = ""


class SessionDigest(Tolerant):
    tool_call_count: GoInt = 0
    # null stays None: waza writes a Go nil slice as null and graders echo it in `details`
    # (null there, [] for an empty list), so the two must stay apart.
    tools_used: list[GoStr] | None = None
    tool_calls: list[Any] | None = None
    errors: GoStrs = Field(default_factory=list)
    usage: UsageStats | None = None
    session_id: GoStr = ""
    tool_policy_mode: GoStr = ""
    tool_policy_denials: list[ToolPolicyDenial] | None = None


class GraderResults(Tolerant):
    """A saved `validations.<name>` entry."""

    identifier: GoStr = ""
    type: GoStr = ""
    score: GoFloat = 0.0
    weight: GoFloat = 0.0
    passed: GoBool = False
    feedback: GoStr = ""
    details: GoAnyMap = None
    duration_ms: GoInt = 0


class SkillInvocation(Tolerant):
    name: GoStr = ""
    path: GoStr = ""


class FailureArtifacts(Tolerant):
    stderr: GoStr = ""
    stdout: GoStr = ""
    exit_code: GoInt = 0
    failed_graders: GoStrs = Field(default_factory=list)
    error_patterns: GoStrs = Field(default_factory=list)
    triage_summary: GoStr = ""
    captured_at: GoTime = ""
    context: dict[str, GoStr] | None = None


class ResponderInfo(Tolerant):
    followups_sent: GoInt = 0
    outcome: GoStr = ""
    reason: GoStr = ""


class CheckpointOutcome(Tolerant):
    after_turn: GoInt = 0
    status: GoStr = ""
    validations: dict[str, GraderResults] | None = None
    stopped: GoBool = False


class RunFields(Tolerant):
    """Every typed field of waza's RunResult; `results.SavedRun` adds what grading reads."""

    run_number: GoInt = 0
    attempts: GoInt = 0
    prompt: GoStr = ""
    status: GoStr = ""
    duration_ms: GoInt = 0
    validations: dict[str, GraderResults] | None = None
    session_digest: SessionDigest | None = None
    grader_sessions: list[SessionDigest] | None = None
    transcript: list[dict[str, Any]] | None = None
    final_output: GoStr = ""
    error_msg: GoStr = ""
    skill_invocations: list[SkillInvocation] | None = None
    usage: UsageStats | None = None
    workspace_dir: GoStr = ""
    failure_artifacts: FailureArtifacts | None = None
    responder: ResponderInfo | None = None
    checkpoints: list[CheckpointOutcome] | None = None
    tool_events: list[Any] | None = None
    command_invocations: list[Any] | None = None
    snapshot_path: GoStr = ""


class TestStats(Tolerant):
    __test__ = False  # not a pytest class, whatever its name says

    pass_rate: GoFloat = 0.0
    flakiness_percent: GoFloat = 0.0
    passed_runs: GoInt = 0
    failed_runs: GoInt = 0
    error_runs: GoInt = 0
    total_runs: GoInt = 0
    avg_score: GoFloat = 0.0
    avg_weighted_score: GoFloat = 0.0
    min_score: GoFloat = 0.0
    max_score: GoFloat = 0.0
    std_dev_score: GoFloat = 0.0
    score_variance: GoFloat = 0.0
    ci95_lo: GoFloat = 0.0
    ci95_hi: GoFloat = 0.0
    flaky: GoBool = False
    avg_duration_ms: GoInt = 0
    bootstrap_ci: ConfidenceInterval | None = None
    pass_rate_ci: ConfidenceInterval | None = None
    is_significant: bool | None = None


class PairwiseResult(Tolerant):
    winner: GoStr = ""
    magnitude: GoStr = ""
    reasoning: GoStr = ""
    position_consistent: GoBool = False


class SkillImpactMetric(Tolerant):
    pass_rate_with_skills: GoFloat = 0.0
    pass_rate_baseline: GoFloat = 0.0
    delta: GoFloat = 0.0
    percent_change: GoFloat = 0.0
    pairwise: PairwiseResult | None = None


class TaskFields(Tolerant):
    """Every typed field of waza's TestOutcome but `runs` (typed by `results.SavedTask`)."""

    cached: GoBool = False
    display_name: GoStr = ""
    group: GoStr = ""
    golden: GoBool = False
    status: GoStr = ""
    stats: TestStats | None = None
    skill_impact: SkillImpactMetric | None = None


class OutcomeSetup(Tolerant):
    runs_per_test: GoInt = 0
    model_id: GoStr = ""
    engine_type: GoStr = ""
    timeout_sec: GoInt = 0
    judge_model: GoStr = ""
    reasoning_effort: GoStr = ""
    judge_reasoning_effort: GoStr = ""


class GroupStats(Tolerant):
    name: GoStr = ""
    passed: GoInt = 0
    total: GoInt = 0
    avg_score: GoFloat = 0.0


class StatisticalSummary(Tolerant):
    bootstrap_ci: ConfidenceInterval | None = None
    success_rate_ci: ConfidenceInterval | None = None
    pass_hat_k: Annotated[list[float], _go_zero([])] = Field(default_factory=list)
    normalized_gain: float | None = None
    is_significant: bool | None = None


class OutcomeDigest(Tolerant):
    total_tests: GoInt = 0
    succeeded: GoInt = 0
    failed: GoInt = 0
    errors: GoInt = 0
    skipped: GoInt = 0
    success_rate: GoFloat = 0.0
    aggregate_score: GoFloat = 0.0
    weighted_score: GoFloat = 0.0
    min_score: GoFloat = 0.0
    max_score: GoFloat = 0.0
    std_dev: GoFloat = 0.0
    duration_ms: GoInt = 0
    groups: list[GroupStats] | None = None
    usage: UsageStats | None = None
    statistics: StatisticalSummary | None = None


class MeasureResult(Tolerant):
    identifier: GoStr = ""
    value: GoFloat = 0.0
    threshold: GoFloat = 0.0
    passed: GoBool = False
    weight: GoFloat = 0.0
    details: GoAnyMap = None


class EvaluationSessionUsage(Tolerant):
    session_id: GoStr = ""
    usage: UsageStats | None = None
    initial_usage: UsageStats | None = None
    unknown_baseline: GoBool = False
    cumulative: GoBool = False
    usage_revision: Annotated[int, _go_zero(0), Field(ge=0, lt=2**64)] = 0


class EvaluationUsage(Tolerant):
    sessions: list[EvaluationSessionUsage] | None = None


class OutcomeFields(Tolerant):
    """Every typed top-level field of waza's EvaluationOutcome but `tasks` and the version."""

    eval_id: GoStr = ""
    skill: GoStr = ""
    eval_name: GoStr = ""
    timestamp: GoTime = ""
    config: OutcomeSetup | None = None
    summary: OutcomeDigest | None = None
    metrics: dict[str, MeasureResult] | None = None
    trigger_metrics: GoAnyMap = None
    trigger_results: list[Any] | None = None
    metadata: GoAnyMap = None
    is_baseline: GoBool = False
    baseline_outcome: BaselineOutcome | None = None
    evaluation_usage: EvaluationUsage | None = None


class BaselineTask(TaskFields):
    test_id: GoStr = ""
    runs: list[RunFields] | None = None


class BaselineOutcome(OutcomeFields):
    """The nested no-skill run of `waza run --baseline`: an EvaluationOutcome of its own."""

    tasks: list[BaselineTask] | None = None


OutcomeFields.model_rebuild()
