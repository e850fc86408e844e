"""The `trigger` grader: how well the task's prompt matches the skill it should (or should not)
trigger, by a keyword heuristic against the skill's SKILL.md.

What waza does, and is done here the same way: the prompt (`inputs.prompt`, or the content of
`inputs.prompt_file` beside the task file) is tokenized (skill_md.py); the token score is the
share of its distinct tokens that are SKILL.md keywords; the phrase score is 1 when a trigger
phrase occurs in the lower-cased prompt, else the best share of a phrase's tokens found among
the prompt's; the score is the higher of the two. `mode: positive` passes at or above the
threshold (0.6 by default), `mode: negative` below it. The agent's output is not read at all.

`config.skill_path` is resolved against waza's working directory (`--working-directory`), not
the eval file's folder, as waza resolves it against its process directory. An unusable SKILL.md
or config is a construction error in waza (`failed to create grader …`), and a prompt_file
waza cannot read fails its loading of the task; waza-ci reports either as that grader's error.
SKILL.md and prompt files are read once per grading, where waza reads them for every run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from waza_ci.errors import InputError
from waza_ci.golang.filepath import go_clean
from waza_ci.golang.fmt import go_fixed
from waza_ci.golang.os import GoFileError, go_read_file
from waza_ci.golang.strconv import go_quote
from waza_ci.golang.strings import go_lower, go_trim_space
from waza_ci.graders.base import GraderJob
from waza_ci.graders.inprocess import GraderError, InProcessGrader, Outcome
from waza_ci.graders.params import decode_params
from waza_ci.graders.skill.skill_md import SkillError, SkillTriggers, load_skill, tokenize
from waza_ci.waza.spec import GraderSpec, TaskSpec
from waza_ci.waza.spec_schema import FLOAT, STR, Struct

TRIGGER_KIND = "trigger"
DEFAULT_THRESHOLD = 0.6
MODES = ("positive", "negative")

_PARAMS = Struct({"skill_path": STR, "mode": STR, "threshold": FLOAT})


class TaskLoadError(GraderError):
    """waza fails to load the task itself (its prompt_file); its text has no grader prefix."""

    def text(self, grader: GraderSpec) -> str:
        return self.message


@dataclass
class TriggerConfig:
    """A trigger grader's parameters, checked once; SKILL.md and prompts cached as read."""

    skill_path: str
    mode: str
    threshold: float
    creation_error: str | None
    skills: dict[str, SkillTriggers | SkillError] = field(default_factory=dict)
    """By resolved path (one per working directory); an error is kept like a result."""
    prompts: dict[tuple[str, str], str | TaskLoadError] = field(default_factory=dict)
    scores: dict[tuple[int, str], tuple[float, float, tuple[str, ...]]] = field(
        default_factory=dict
    )
    """By SKILL.md (the identity of its cached triggers) and prompt."""


class TriggerGrader(InProcessGrader[TriggerConfig]):
    """waza's `trigger` grader kind (the trigger heuristic)."""

    kind = TRIGGER_KIND

    def configure(self, grader: GraderSpec) -> TriggerConfig:
        params = decode_params(grader, "TriggerHeuristicGraderParameters", _PARAMS)
        skill_path = params.get("skill_path") or ""
        if not skill_path:
            raise InputError(
                f"trigger grader {go_quote(grader.name)}: must specify config.skill_path",
                grader.location,
            )
        raw_mode = params.get("mode") or ""
        mode = go_lower(go_trim_space(raw_mode))
        threshold = params.get("threshold")
        threshold = DEFAULT_THRESHOLD if threshold is None else float(threshold)
        return TriggerConfig(
            skill_path,
            mode,
            threshold,
            _creation_error(grader.name, skill_path, raw_mode, mode)
            or _threshold_error(grader.name, threshold),
        )

    def evaluate(self, config: TriggerConfig, job: GraderJob) -> Outcome:
        if config.creation_error is not None:
            raise GraderError(config.creation_error, at_creation=True)
        skill = _skill(config, job.setup.working_directory)
        prompt = _prompt(config, job.task)
        key = (id(skill), prompt)
        scored = config.scores.get(key)
        if scored is None:  # every run of a task has the same prompt, hence the same score
            scored = config.scores[key] = score_prompt(skill, prompt)
        score, phrase_score, matched = scored
        return Outcome(
            score,
            *_verdict(config.mode, score, config.threshold),
            details={
                "mode": config.mode,
                "threshold": config.threshold,
                "skill_path": config.skill_path,
                "matched_keywords": list(matched) or None,  # Go's nil slice: null
                "matched_count": len(matched),
                "keyword_count": len(skill.keywords),
                "phrase_score": phrase_score,
            },
        )


def _creation_error(name: str, skill_path: str, raw_mode: str, mode: str) -> str | None:
    if not go_trim_space(skill_path):
        return f"trigger grader '{name}' requires skill_path"
    if mode not in MODES:
        return (
            f"trigger grader '{name}' has invalid mode {go_quote(raw_mode)} "
            "(must be positive or negative)"
        )
    return None


def _threshold_error(name: str, threshold: float) -> str | None:
    if threshold < 0 or threshold > 1:  # NaN passes, as in Go
        return f"trigger grader '{name}' threshold must be between 0 and 1"
    return None


def _skill(config: TriggerConfig, working_directory: str) -> SkillTriggers:
    # Relative to waza's process directory, cleaned as Go's filepath.Join cleans it.
    path = config.skill_path
    if not os.path.isabs(path):
        path = go_clean(os.path.join(working_directory, path))
    resolved = path
    found = config.skills.get(resolved)
    if found is None:
        try:
            found = load_skill(resolved)
        except SkillError as err:
            found = err
        config.skills[resolved] = found
    if isinstance(found, SkillError):
        raise GraderError(str(found), at_creation=True)
    return found


def _prompt(config: TriggerConfig, task: TaskSpec) -> str:
    """The task's prompt as waza's loader makes it: `inputs.prompt`, or the prompt file's
    content when `inputs.prompt_file` is set."""
    if not task.prompt_file:
        return task.prompt
    key = (str(task.path), task.prompt_file)
    found = config.prompts.get(key)
    if found is None:
        try:
            found = read_prompt_file(task)
        except TaskLoadError as err:
            found = err
        config.prompts[key] = found
    if isinstance(found, TaskLoadError):
        raise found
    return found


def read_prompt_file(task: TaskSpec) -> str:
    """The content of `inputs.prompt_file`; raises TaskLoadError with waza's loading text."""
    target = task.prompt_file
    if task.prompt:
        problem = "cannot specify both prompt and prompt_file"
    elif os.path.isabs(target):
        problem = f"prompt_file must be a relative path, got {go_quote(target)}"
    elif ".." in go_clean(target):
        problem = f"prompt_file must not contain path traversal, got {go_quote(target)}"
    else:
        resolved = go_clean(os.path.join(os.path.dirname(task.path), target))
        try:
            return go_read_file(resolved).decode("utf-8", errors="replace")
        except GoFileError as err:
            problem = f"reading prompt_file {go_quote(target)}: {err}"
    raise TaskLoadError(f"test case {task.path}: {problem}")


def score_prompt(skill: SkillTriggers, prompt: str) -> tuple[float, float, tuple[str, ...]]:
    """(score, phrase score, matched keywords in first-seen order) of a prompt."""
    tokens = tokenize(prompt)
    if not tokens:
        return 0.0, 0.0, ()
    unique = set(tokens)
    matched = tuple(dict.fromkeys(t for t in tokens if t in skill.keywords))
    token_score = len(matched) / len(unique)
    phrase_score = _best_phrase_score(skill.phrases, prompt, unique)
    return max(token_score, phrase_score), phrase_score, matched


def _best_phrase_score(phrases: tuple[str, ...], prompt: str, prompt_tokens: set[str]) -> float:
    if not phrases:
        return 0.0
    lowered_prompt = go_lower(prompt)
    best = 0.0
    for phrase in phrases:
        lowered = go_lower(go_trim_space(phrase))
        if not lowered:
            continue
        if lowered in lowered_prompt:
            return 1.0
        phrase_tokens = tokenize(phrase)
        if phrase_tokens:
            hits = sum(1 for token in phrase_tokens if token in prompt_tokens)
            best = max(best, hits / len(phrase_tokens))
    return best


def _verdict(mode: str, score: float, threshold: float) -> tuple[bool, str]:
    figures = f"(score {go_fixed(score, 2)} {{}} {go_fixed(threshold, 2)})"
    if mode == "positive":
        if score >= threshold:
            return True, "Prompt is trigger-aligned " + figures.format(">=")
        return False, "Prompt is not trigger-aligned enough " + figures.format("<")
    if score < threshold:
        return True, "Prompt correctly treated as non-trigger " + figures.format("<")
    return False, "Prompt appears trigger-aligned unexpectedly " + figures.format(">=")
