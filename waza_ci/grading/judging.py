"""`prompt` graders (the LLM judge) in a grading: re-judged through the Copilot runtime when
the user asked for it (`--judge`), else their saved verdicts kept; either way, a kept verdict
says when it is stale or when its judge never called a grade tool.

One judgement per grader and saved run: its message(s) built as waza builds them, looked up in
the cache, the rest sent (all at once, `--judge-jobs` at a time), the verdicts computed as
waza computes them and put in the run's validations as a regraded verdict would be."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from waza_ci.errors import JudgeSetupError
from waza_ci.graders.base import raw_verdict, regraded_verdict
from waza_ci.graders.skill.trigger import TaskLoadError, read_prompt_file
from waza_ci.grading.plan import Execution, GradingPlan, TaskMatch
from waza_ci.grading.run import ExecutionResult
from waza_ci.judge.cache import JudgeCache, cache_key, load_cache
from waza_ci.judge.config import BuiltinRubric, JudgeConfig, read_config
from waza_ci.judge.message import (
    conversation,
    exact_message,
    legacy_messages,
    pairwise_message,
    transcript_message,
)
from waza_ci.judge.options import COPILOT_PERMISSION_FIX, JudgeSetup
from waza_ci.judge.providers import Provider
from waza_ci.judge.spend import JudgeReport, Usage, by_model
from waza_ci.judge.tools import GRADE_TOOLS, Calls, ToolSpec, pairwise_tool
from waza_ci.judge.verdict import Judged, independent, kept_notes, pairwise
from waza_ci.waza.kinds import MODEL_KINDS
from waza_ci.waza.spec import EvalSpec, GraderSpec

KeptNotes = dict[tuple[int, int, str], tuple[str, ...]]
"""By (id of the task match, run index, grader name)."""

SETUP_KINDS = {
    "auth": "the judge's credential was refused",
    "quota": "the judge's quota or rate limit is exhausted",
    "model": "the judge's model is unknown to its endpoint",
    "network": "the judge's endpoint could not be reached",
}


@dataclass(frozen=True)
class Judging:
    results: tuple[ExecutionResult, ...] = ()
    """The re-judged verdicts, as the other graders' results."""
    notes: KeptNotes = field(default_factory=dict)
    """What each kept prompt verdict says of itself (stale, never called a grade tool, …)."""
    report: JudgeReport | None = None
    """What the judge did; None without `--judge`."""


@dataclass
class _Item:
    """One grader on one saved run."""

    match: TaskMatch
    run_index: int
    grader: GraderSpec
    config: JudgeConfig
    sends: list[tuple[str, tuple[ToolSpec, ...], str | None]] = field(default_factory=list)
    """(message, tools, workspace) of each send."""
    model: str = ""
    transcript: bool = False
    kept_why: str = ""


def judge_prompts(
    spec: EvalSpec,
    plan: GradingPlan,
    setup: JudgeSetup | None,
    *,
    working_directory: Path,
    workspace: str,
    temp_dir: str,
    rubrics: BuiltinRubric | None = None,
) -> Judging:
    """Every `prompt` verdict of the plan: re-judged (`setup` active) or kept with its notes;
    `rubrics` reads a built-in rubric by name (None: such a verdict is kept, saying why)."""
    items = list(_items(spec, plan, working_directory, workspace, setup, rubrics=rubrics))
    notes: KeptNotes = {}
    if setup is None or not setup.options.active:
        for item in items:
            _note(notes, item, _kept_notes(item))
        return Judging(notes=notes)
    options = setup.options
    unable = _cannot_run(setup)
    if unable and options.required:
        raise JudgeSetupError(f"the judge cannot run (--judge-required): {unable}")
    runnable = [i for i in items if not i.kept_why and not unable]
    for item in items:
        if item not in runnable:
            why = unable or item.kept_why
            if options.required:
                raise JudgeSetupError(
                    f"{item.grader.location}: grader {item.grader.name!r} cannot be judged "
                    f"again (--judge-required): {why}"
                )
            _note(notes, item, (f"kept, not re-judged: {why}", *_kept_notes(item)))
    cache = load_cache(options.cache)
    keys = {
        id(item): [
            cache_key(
                str(options.provider),
                item.model,
                item.config.reasoning_effort,
                m,
                t,
                workspace=w is not None,
            )
            for m, t, w in item.sends
        ]
        for item in runnable
    }
    wanted = {k for item in runnable for k in keys[id(item)] if cache.get(k) is None}
    if options.max_calls is not None and len(wanted) > options.max_calls:
        raise JudgeSetupError(
            f"the judge needs {len(wanted)} sessions, more than --judge-max-calls "
            f"{options.max_calls} ({len(runnable)} prompt verdicts, the rest cached): raise the "
            "limit, or cut the grading with --task / --shard"
        )
    answers = _send(setup, runnable, keys, wanted, temp_dir)
    results = []
    for item in runnable:
        results.append(_result(item, keys[id(item)], cache, answers, setup))
    cache.save()
    usages: list[Usage] = [u for a in answers.values() for u in a.usage]
    report = JudgeReport(
        provider=str(options.provider),
        sessions=len(wanted),
        cached=sum(1 for item in runnable for k in keys[id(item)] if k not in wanted),
        rejudged=len(runnable),
        kept=len(items) - len(runnable),
        kept_why=tuple(dict.fromkeys(unable or i.kept_why for i in items if i not in runnable)),
        models=by_model(usages),
        notes=(setup.timeout_warning,) if setup.timeout_warning else (),
    )
    return Judging(tuple(results), notes, report)


def _cannot_run(setup: JudgeSetup) -> str:
    """Why the judge cannot run at all here ("" when it can)."""
    from waza_ci.judge.cli_pin import cli_pin  # noqa: PLC0415 - only with --judge
    from waza_ci.judge.runtime import sdk_available  # noqa: PLC0415 - imports nothing heavy

    options = setup.options
    if setup.credential is None:
        if options.provider is Provider.COPILOT:
            return setup.no_credential or f"no Copilot token in the job: {COPILOT_PERMISSION_FIX}"
        return setup.no_credential or (
            f"the variable {options.key_env} named by --judge-key-env is not set or empty "
            "(a fork pull request gets no secrets)"
        )
    if not sdk_available():
        return "the GitHub Copilot SDK is not installed: pip install waza-ci"
    if not setup.cli_path:
        pin = cli_pin()
        how = pin.install_hint if pin else "npm install @github/copilot"
        return f"no Copilot CLI binary: set COPILOT_CLI_PATH to it ({how})"
    if not Path(setup.cli_path).is_file():
        return f"COPILOT_CLI_PATH {setup.cli_path!r} is not a file"
    return ""


def _items(
    spec: EvalSpec,
    plan: GradingPlan,
    working_directory: Path,
    workspace: str,
    setup: JudgeSetup | None,
    *,
    rubrics: BuiltinRubric | None,
) -> list[_Item]:
    configs: dict[int, JudgeConfig] = {}
    items: list[_Item] = []
    fallback = setup.options.model if setup is not None else ""
    byok = setup is not None and setup.options.provider.byok
    for match in plan.matches:
        raw_task = match.results.raw["tasks"][match.task_index]
        for run_index, run in enumerate(match.saved.runs):
            if run.errored:
                continue
            for grader in match.task.graders:
                if grader.kind not in MODEL_KINDS:
                    continue
                config = configs.get(id(grader))
                if config is None:
                    config = configs[id(grader)] = read_config(grader, working_directory, rubrics)
                item = _Item(match, run_index, grader, config)
                item.model = config.model or spec.judge_model or fallback
                _build(item, raw_task, workspace)
                if not item.kept_why and byok and not item.model:
                    item.kept_why = (
                        "no model: set the grader's `model`, the eval's `config.judge_model` "
                        "or --judge-model"
                    )
                items.append(item)
    return items


def _build(item: _Item, raw_task: Mapping[str, Any], workspace: str) -> None:
    config = item.config
    run = item.match.saved.runs[item.run_index]
    if config.unavailable:
        item.kept_why = config.unavailable
        return
    output = run.final_output
    if config.pairwise:
        baseline = _baseline_output(item.match, item.run_index)
        if baseline is not None:
            tool = (pairwise_tool(),)
            item.sends = [
                (pairwise_message(config.prompt, baseline, output), tool, None),
                (pairwise_message(config.prompt, output, baseline), tool, None),
            ]
            return
    if config.continue_session:
        if not run.transcript:
            item.kept_why = (
                "continue_session: the judge read the agent's live session in waza, and this "
                "run has no saved transcript to stand in for it"
            )
            return
        text = conversation(run.transcript, _task_input(item) or run.prompt)
        item.transcript = True
        item.sends = [(transcript_message(config.prompt, text), GRADE_TOOLS, workspace or None)]
        return
    item.sends = [(exact_message(config.prompt, _task_input(item), output), GRADE_TOOLS, None)]


def _task_input(item: _Item) -> str:
    task = item.match.task
    if not task.prompt_file:
        return task.prompt
    try:
        return read_prompt_file(task)
    except TaskLoadError:
        return task.prompt


def _baseline_output(match: TaskMatch, run_index: int) -> str | None:
    """The no-skill run's output for the same task and run, from `waza run --baseline`."""
    outcome = match.results.model.baseline_outcome
    for task in (outcome.tasks or []) if outcome is not None else []:
        if task.test_id == match.task.id and task.runs and run_index < len(task.runs):
            output = task.runs[run_index].final_output
            return output or None
    return None


def _kept_notes(item: _Item) -> tuple[str, ...]:
    run = item.match.saved.runs[item.run_index]
    raw = item.match.results.raw_run(item.match.task_index, item.run_index)
    saved = (raw.get("validations") or {}).get(item.grader.name)
    if not isinstance(saved, Mapping) or run.validations is None:
        return ()
    config = item.config
    if config.unavailable:
        return kept_notes(saved, (), str(item.grader.location))
    output = run.final_output
    task_input = _task_input(item)
    if config.pairwise:
        expected: tuple[str, ...] = (config.prompt,)
    elif config.continue_session:
        expected = (config.prompt,)
    else:
        expected = (
            exact_message(config.prompt, task_input, output),
            *legacy_messages(config, task_input, output),
        )
    return kept_notes(saved, expected, str(item.grader.location))


def _note(notes: KeptNotes, item: _Item, said: tuple[str, ...]) -> None:
    if said:
        notes[(id(item.match), item.run_index, item.grader.name)] = said


def _send(
    setup: JudgeSetup,
    items: Sequence[_Item],
    keys: Mapping[int, list[str]],
    wanted: set[str],
    temp_dir: str,
) -> dict[str, Any]:
    """Each wanted send once (the same message twice in a grading is asked once)."""
    if not wanted:
        return {}
    from waza_ci.judge.runtime import RuntimeSetup, Send, run_sends  # noqa: PLC0415 - the SDK

    assert setup.credential is not None
    sends: dict[str, Send] = {}
    for item in items:
        for key, (message, tools, workspace) in zip(keys[id(item)], item.sends, strict=True):
            if key in wanted and key not in sends:
                sends[key] = Send(
                    message, tools, item.model, item.config.reasoning_effort, workspace
                )
    logging.getLogger("copilot").setLevel(logging.CRITICAL + 1)  # its tracebacks are not ours
    runtime = RuntimeSetup(
        setup.options, setup.credential, setup.cli_path, setup.cli_env, setup.timeout_s, temp_dir
    )
    try:
        answers = run_sends(runtime, list(sends.values()))
    except Exception as err:
        raise JudgeSetupError(
            f"the Copilot CLI could not be started ({type(err).__name__}: {_first_line(err)}): "
            "check COPILOT_CLI_PATH names the CLI binary for this machine"
        ) from None
    by_key = dict(zip(sends, answers, strict=True))
    for answer in by_key.values():
        if answer.error_kind in SETUP_KINDS and not answer.calls.graded:
            raise JudgeSetupError(_setup_message(setup, answer.error_kind, answer.error))
    return by_key


def _setup_message(setup: JudgeSetup, kind: str, error: str) -> str:
    options = setup.options
    fix = {
        "auth": COPILOT_PERMISSION_FIX
        if options.provider is Provider.COPILOT
        else f"check the key in {options.key_env} is valid for {options.url}",
        "quota": "wait for the quota to renew, or judge less at once (--task, --shard)",
        "model": "check --judge-model (or the grader's `model`) names a model the endpoint serves",
        "network": "check --judge-url and that the job can reach it",
    }[kind]
    return f"{SETUP_KINDS[kind]} ({_first_line(error)}): {fix}"


def _first_line(err: object) -> str:
    text = str(err).strip().splitlines()
    return text[0][:300] if text else ""


def _result(
    item: _Item,
    keys: Sequence[str],
    cache: JudgeCache,
    answers: Mapping[str, Any],
    setup: JudgeSetup,
) -> ExecutionResult:
    started = time.perf_counter()
    parts: list[tuple[Calls, str, str]] = []  # calls, response, error
    denied: list[str] = []
    for key in keys:
        cached = cache.get(key)
        if cached is not None:
            parts.append((cached.calls, cached.response, ""))
            continue
        answer = answers[key]
        denied += answer.calls.denied
        error = answer.error if not answer.calls.graded else ""
        parts.append((answer.calls, answer.response, error))
        if not answer.error:
            cache.put(key, answer.calls, answer.response)
    execution = Execution(
        item.match, item.run_index, item.grader, round(setup.timeout_s), in_process=True
    )
    notes = [f"re-judged by {setup.options.provider}" + (f" ({item.model})" if item.model else "")]
    if item.transcript:
        notes.append(
            "re-judged from the saved transcript (continue_session: the live session is gone)"
        )
    if denied:
        notes.append(
            f"the judge tried tools it may not use, denied: {', '.join(dict.fromkeys(denied))}"
        )
    errors = [e for _, _, e in parts if e]
    if errors:
        raw = raw_verdict(
            item.grader, False, f"failed to send prompt: {errors[0]}", None, 0, score=0.0
        )
        verdict = regraded_verdict(
            raw, error=f"failed to send prompt: {errors[0]}", notes=tuple(notes), kind="prompt"
        )
        return ExecutionResult(execution, raw, verdict)
    judged: Judged
    if len(parts) == 2:
        judged = pairwise(item.config, parts[0][0], parts[1][0])
    else:
        calls, response, _ = parts[0]
        judged = independent(item.config, item.sends[0][0], response, calls)
        if not calls.graded:
            from waza_ci.judge.verdict import NEVER_CALLED  # noqa: PLC0415

            notes.append(NEVER_CALLED)
    duration = round((time.perf_counter() - started) * 1000)
    raw = raw_verdict(
        item.grader, judged.passed, judged.feedback, judged.details, duration, score=judged.score
    )
    return ExecutionResult(execution, raw, regraded_verdict(raw, notes=tuple(notes), kind="prompt"))
