"""The `trigger` grader: waza's trigger_grader_test.go restated (with the reference's worked
values), the SKILL.md and prompt_file errors, config errors, and the tokenizer's and phrase
parser's rules."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import make_run, require_shared
from tests.graders.harness import Loaded, grade, grade_raw, grader_task, load_task
from tests.graders.output.test_expected import wild_graders
from waza_ci.errors import InputError
from waza_ci.graders import kind_of
from waza_ci.graders.base import GraderJob, GraderSetup
from waza_ci.graders.skill.skill_md import tokenize, trigger_phrases
from waza_ci.waza.results import SavedRun

# trigger_grader_test.go writeTestSkillFile
AZURE_SKILL = """---
name: azure-deploy
description: "Deploy to Azure resources. USE FOR: deploy to azure, publish api, release to cloud. DO NOT USE FOR: write unit tests."
---
# Azure deploy skill

## Deployment
Use this skill for Azure deployment workflows.
"""  # noqa: E501


def write_skill(folder: Path, text: str = AZURE_SKILL, name: str = "skill") -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def trigger_task(
    folder: Path, config: dict[str, Any], prompt: str | None = None, **inputs: str
) -> Loaded:
    if prompt is not None:
        inputs["prompt"] = prompt
    fields = {"inputs": json.dumps(inputs)} if inputs else {}
    entry = f"type: trigger\nname: trig\nconfig: {json.dumps(config)}"
    return grader_task(folder, entry, **fields)


def trigger_verdict(
    score: float,
    passed: bool,
    feedback: str,
    *,
    mode: str = "positive",
    threshold: float = 0.6,
    matched: list[str] | None,
    phrase_score: float,
    keyword_count: int = 11,
    skill_path: str = "skill/SKILL.md",
) -> dict[str, Any]:
    return {
        "identifier": "trig",
        "type": "trigger",
        "score": score,
        "weight": 1.0,
        "passed": passed,
        "feedback": feedback,
        "details": {
            "keyword_count": keyword_count,
            "matched_count": len(matched or ()),
            "matched_keywords": matched,
            "mode": mode,
            "phrase_score": phrase_score,
            "skill_path": skill_path,
            "threshold": threshold,
        },
    }


ALIGNED = "Prompt is trigger-aligned (score {} >= {})"
NOT_ALIGNED = "Prompt is not trigger-aligned enough (score {} < {})"
NON_TRIGGER = "Prompt correctly treated as non-trigger (score {} < {})"
UNEXPECTED = "Prompt appears trigger-aligned unexpectedly (score {} >= {})"

CASES = [
    # TestTriggerHeuristicGrader_PositiveAndNegativeModes
    pytest.param(
        {"mode": "positive"},
        "Please deploy this API to Azure and publish it.",
        trigger_verdict(
            1.0,
            True,
            ALIGNED.format("1.00", "0.60"),
            matched=["deploy", "api", "azure", "publish"],
            phrase_score=1.0,
        ),
        id="go-positive-passes-matching-prompt",
    ),
    pytest.param(
        {"mode": "positive"},
        "Write unit tests for my Go package.",
        trigger_verdict(
            0.0, False, NOT_ALIGNED.format("0.00", "0.60"), matched=None, phrase_score=0.0
        ),
        id="go-positive-fails-unrelated-prompt",
    ),
    pytest.param(
        {"mode": "negative"},
        "Write unit tests for my Go package.",
        trigger_verdict(
            0.0,
            True,
            NON_TRIGGER.format("0.00", "0.60"),
            mode="negative",
            matched=None,
            phrase_score=0.0,
        ),
        id="go-negative-passes-unrelated-prompt",
    ),
    pytest.param(
        {"mode": "negative"},
        "Can you deploy this app to Azure?",
        trigger_verdict(
            1.0,
            False,
            UNEXPECTED.format("1.00", "0.60"),
            mode="negative",
            matched=["deploy", "azure"],
            phrase_score=1.0,
        ),
        id="go-negative-fails-matching-prompt",
    ),
    # TestTriggerHeuristicGrader_ThresholdBoundary
    pytest.param(
        {"mode": "positive", "threshold": 0.5},
        "deploy azure",
        trigger_verdict(
            1.0,
            True,
            ALIGNED.format("1.00", "0.50"),
            threshold=0.5,
            matched=["deploy", "azure"],
            phrase_score=1.0,
        ),
        id="go-threshold-boundary",
    ),
    # TestTriggerHeuristicGrader_DuplicateTokensDoNotDiluteScore
    pytest.param(
        {"mode": "positive"},
        "deploy deploy deploy",
        trigger_verdict(
            1.0, True, ALIGNED.format("1.00", "0.60"), matched=["deploy"], phrase_score=0.5
        ),
        id="go-duplicate-tokens-do-not-dilute",
    ),
    # The reference's worked values: a phrase found as a substring scores 1.
    pytest.param(
        {"mode": "positive"},
        "deploy to azure",
        trigger_verdict(
            1.0,
            True,
            ALIGNED.format("1.00", "0.60"),
            matched=["deploy", "azure"],
            phrase_score=1.0,
        ),
        id="phrase-substring",
    ),
    pytest.param(
        {"mode": "positive"},
        "",
        trigger_verdict(
            0.0, False, NOT_ALIGNED.format("0.00", "0.60"), matched=None, phrase_score=0.0
        ),
        id="empty-prompt",
    ),
    # The token score wins over a lower phrase score: 3 of 4 distinct tokens are keywords,
    # and half of "release to cloud" is in the prompt.
    pytest.param(
        {"mode": "positive", "threshold": 0.7},
        "cloud resources skill pipeline",
        trigger_verdict(
            0.75,
            True,
            ALIGNED.format("0.75", "0.70"),
            threshold=0.7,
            matched=["cloud", "resources", "skill"],
            phrase_score=0.5,
        ),
        id="token-score-above-phrase-score",
    ),
    pytest.param(
        {"mode": "positive", "threshold": 0.7},
        "cloud release pipeline",
        trigger_verdict(
            1.0,
            True,
            ALIGNED.format("1.00", "0.70"),
            threshold=0.7,
            matched=["cloud", "release"],
            phrase_score=1.0,
        ),
        id="all-phrase-tokens-found-in-another-order",
    ),
    # An explicit threshold 0 is kept (waza's *float64), so everything passes it.
    pytest.param(
        {"mode": "positive", "threshold": 0},
        "nothing in common",
        trigger_verdict(
            0.0,
            True,
            ALIGNED.format("0.00", "0.00"),
            threshold=0.0,
            matched=None,
            phrase_score=0.0,
        ),
        id="explicit-zero-threshold",
    ),
    # The mode is trimmed and lower-cased; details say it normalised.
    pytest.param(
        {"mode": " NEGATIVE "},
        "publish the api",
        trigger_verdict(
            1.0,
            False,
            UNEXPECTED.format("1.00", "0.60"),
            mode="negative",
            matched=["publish", "api"],
            phrase_score=1.0,
        ),
        id="mode-normalised",
    ),
]


@pytest.mark.parametrize(("config", "prompt", "expected"), CASES)
def test_trigger_verdict(
    tmp_path: Path, config: dict[str, Any], prompt: str, expected: dict[str, Any]
) -> None:
    write_skill(tmp_path)
    loaded = trigger_task(tmp_path, {"skill_path": "skill/SKILL.md", **config}, prompt)
    assert grade_raw(loaded, "trig", make_run()) == expected


def test_phrase_score_is_the_best_share_of_a_phrase_s_tokens(tmp_path: Path) -> None:
    skill = AZURE_SKILL.replace("release to cloud", "release the cloud build artifacts")
    write_skill(tmp_path, skill)
    config = {"skill_path": "skill", "mode": "positive"}
    loaded = trigger_task(tmp_path, config, "artifacts pipeline")
    raw = grade_raw(loaded, "trig", make_run())
    # "release the cloud build artifacts": 4 tokens ("the" is a stop word), 1 in the prompt;
    # duplicates in a phrase count each time.
    assert raw["details"]["phrase_score"] == 0.25
    assert raw["score"] == 0.5  # "artifacts" of {"artifacts", "pipeline"}: a keyword (phrase)


def test_a_directory_skill_path_reads_its_skill_md(tmp_path: Path) -> None:
    # TestTriggerHeuristicGrader_SkillPathDirectory
    write_skill(tmp_path)
    loaded = trigger_task(tmp_path, {"skill_path": "skill", "mode": "positive"}, "deploy to azure")
    raw = grade_raw(loaded, "trig", make_run())
    assert raw["passed"] is True
    assert raw["details"]["skill_path"] == "skill"  # the configured string, not the resolved


def test_skill_path_is_relative_to_the_working_directory_not_the_eval(tmp_path: Path) -> None:
    work = tmp_path / "work"
    write_skill(work, name="skills/azure")
    loaded = trigger_task(
        tmp_path / "evals", {"skill_path": "skills/azure/../azure", "mode": "positive"}, "x"
    )
    raw = grade_raw(loaded, "trig", make_run(), working_directory=work)
    assert raw["details"]["keyword_count"] == 11
    missing = grade(loaded, "trig", make_run())  # the eval's folder has no skills/
    resolved = tmp_path / "evals" / "skills" / "azure"
    assert missing.raw["feedback"] == (
        f"failed to create grader trig: reading SKILL.md {resolved}: stat {resolved}: "
        "no such file or directory"
    )


def test_an_absolute_skill_path_is_used_as_is(tmp_path: Path) -> None:
    path = write_skill(tmp_path / "elsewhere")
    loaded = trigger_task(tmp_path / "eval", {"skill_path": str(path), "mode": "positive"}, "x")
    assert grade_raw(loaded, "trig", make_run())["details"]["keyword_count"] == 11


def test_the_prompt_file_beside_the_task_is_the_prompt(tmp_path: Path) -> None:
    write_skill(tmp_path)
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "prompt.md").write_text("Publish API\n", encoding="utf-8")
    loaded = trigger_task(
        tmp_path, {"skill_path": "skill", "mode": "positive"}, prompt_file="prompt.md"
    )
    raw = grade_raw(loaded, "trig", make_run())
    assert raw["details"]["matched_keywords"] == ["publish", "api"]


PROMPT_FILE_ERRORS = [
    pytest.param(
        {"prompt": "hi", "prompt_file": "p.md"},
        "cannot specify both prompt and prompt_file",
        id="both",
    ),
    pytest.param(
        {"prompt_file": "/etc/p.md"},
        'prompt_file must be a relative path, got "/etc/p.md"',
        id="absolute",
    ),
    pytest.param(
        {"prompt_file": "../p.md"},
        'prompt_file must not contain path traversal, got "../p.md"',
        id="traversal",
    ),
    pytest.param(
        {"prompt_file": "gone.md"},
        'reading prompt_file "gone.md": open {tasks}/gone.md: no such file or directory',
        id="missing",
    ),
]


@pytest.mark.parametrize(("inputs", "problem"), PROMPT_FILE_ERRORS)
def test_a_prompt_file_waza_cannot_load(
    tmp_path: Path, inputs: dict[str, str], problem: str
) -> None:
    write_skill(tmp_path)
    loaded = trigger_task(tmp_path, {"skill_path": "skill", "mode": "positive"}, **inputs)
    result = grade(loaded, "trig", make_run())
    task_file = tmp_path / "tasks" / "task.yaml"
    expected = f"test case {task_file}: " + problem.format(tasks=tmp_path / "tasks")
    assert result.raw["feedback"] == expected  # waza fails loading the task: no grader prefix
    assert result.verdict.error == expected
    assert result.raw["passed"] is False and "details" not in result.raw


CONSTRUCTION_ERRORS = [
    # TestTriggerHeuristicGrader_ConstructorValidation
    pytest.param(
        {"skill_path": "  ", "mode": "positive"},
        "trigger grader 'trig' requires skill_path",
        id="go-blank-skill-path",
    ),
    pytest.param(
        {"skill_path": "skill", "mode": "maybe"},
        "trigger grader 'trig' has invalid mode \"maybe\" (must be positive or negative)",
        id="go-invalid-mode",
    ),
    pytest.param(
        {"skill_path": "skill", "mode": "positive", "threshold": 1.2},
        "trigger grader 'trig' threshold must be between 0 and 1",
        id="go-invalid-threshold",
    ),
    pytest.param(
        {"skill_path": "skill"},
        "trigger grader 'trig' has invalid mode \"\" (must be positive or negative)",
        id="missing-mode",
    ),
    pytest.param(
        {"skill_path": "skill", "mode": "negative", "threshold": -0.1},
        "trigger grader 'trig' threshold must be between 0 and 1",
        id="negative-threshold",
    ),
]


@pytest.mark.parametrize(("config", "problem"), CONSTRUCTION_ERRORS)
def test_a_construction_error_is_that_grader_s_error(
    tmp_path: Path, config: dict[str, Any], problem: str
) -> None:
    write_skill(tmp_path)
    result = grade(trigger_task(tmp_path, config, "deploy"), "trig", make_run())
    assert result.raw["feedback"] == f"failed to create grader trig: {problem}"
    assert result.verdict.error == result.raw["feedback"]
    assert result.raw["score"] == 0.0 and result.raw["type"] == "trigger"


def skill_error(tmp_path: Path, skill_text: str | None) -> str:
    if skill_text is not None:
        write_skill(tmp_path, skill_text)
    else:
        (tmp_path / "skill").mkdir(exist_ok=True)
    result = grade(
        trigger_task(tmp_path, {"skill_path": "skill", "mode": "positive"}, "x"), "trig", make_run()
    )
    return str(result.raw["feedback"]).replace(str(tmp_path), "<tmp>")


SKILL_ERRORS = [
    pytest.param(
        None,
        "reading SKILL.md <tmp>/skill/SKILL.md: open <tmp>/skill/SKILL.md: "
        "no such file or directory",
        id="folder-without-skill-md",
    ),
    pytest.param(" \n\t\n", "parsing SKILL.md <tmp>/skill/SKILL.md: SKILL.md is empty", id="blank"),
    pytest.param(
        "---\nname: x\ndescription: y\n",
        "parsing SKILL.md <tmp>/skill/SKILL.md: parsing frontmatter: closing frontmatter "
        "delimiter not found",
        id="unclosed-frontmatter",
    ),
    pytest.param(
        "---\n---\nbody text here\n",
        "parsing SKILL.md <tmp>/skill/SKILL.md: parsing frontmatter: closing frontmatter "
        "delimiter not found",
        id="empty-frontmatter-is-unclosed",
    ),
    pytest.param(
        "---\nname: ab\n---\nThe and, for: it is to be.\n",
        "SKILL.md <tmp>/skill/SKILL.md does not contain usable keywords",
        id="no-usable-keywords",
    ),
    pytest.param(
        "---\nname: [a, b]\n---\nbody words\n",
        "parsing SKILL.md <tmp>/skill/SKILL.md: unmarshalling frontmatter: yaml: unmarshal "
        "errors:\n  line 1: cannot unmarshal !!seq into string",
        id="name-not-a-string",
    ),
]


@pytest.mark.parametrize(("skill_text", "problem"), SKILL_ERRORS)
def test_an_unusable_skill_md_is_a_construction_error(
    tmp_path: Path, skill_text: str | None, problem: str
) -> None:
    assert skill_error(tmp_path, skill_text) == f"failed to create grader trig: {problem}"


def test_a_skill_md_that_is_a_folder_cannot_be_read(tmp_path: Path) -> None:
    (tmp_path / "skill" / "SKILL.md").mkdir(parents=True)
    assert skill_error(tmp_path, None) == (
        "failed to create grader trig: reading SKILL.md <tmp>/skill/SKILL.md: "
        "read <tmp>/skill/SKILL.md: is a directory"
    )


def test_skill_md_without_frontmatter_is_all_body(tmp_path: Path) -> None:
    write_skill(tmp_path, "Deploy widgets. USE FOR: nothing here\n")
    loaded = trigger_task(tmp_path, {"skill_path": "skill", "mode": "positive"}, "deploy nothing")
    raw = grade_raw(loaded, "trig", make_run())
    # No description, so no phrases: the body's words are keywords ("here", "nothing", ...).
    assert raw["details"]["keyword_count"] == 5
    assert raw["details"]["phrase_score"] == 0.0
    assert raw["score"] == 1.0


def test_the_frontmatter_body_starts_after_the_closing_dashes(tmp_path: Path) -> None:
    # "\n----" also closes the frontmatter; the rest of that line ("-extra") is body text.
    write_skill(tmp_path, "---\nname: alpha\n----extra\nbravo\n")
    loaded = trigger_task(tmp_path, {"skill_path": "skill", "mode": "positive"}, "alpha extra")
    raw = grade_raw(loaded, "trig", make_run())
    assert raw["details"]["keyword_count"] == 3
    assert raw["details"]["matched_keywords"] == ["alpha", "extra"]


LOAD_ERRORS = [
    pytest.param(
        {"mode": "positive"},
        'trigger grader "trig": must specify config.skill_path',
        id="no-skill-path",
    ),
    pytest.param(
        {"skill_path": "s", "mode": "positive", "extra": 1},
        'invalid grader config for "trig" (type "trigger"): failed to decode grader parameters'
        " of type models.TriggerHeuristicGraderParameters: yaml: unmarshal errors: line 1:"
        " field extra not found in type models.TriggerHeuristicGraderParameters",
        id="unknown-key",
    ),
    pytest.param(
        {"skill_path": "s", "mode": "positive", "threshold": "high"},
        'invalid grader config for "trig" (type "trigger"): failed to decode grader parameters'
        " of type models.TriggerHeuristicGraderParameters: yaml: unmarshal errors: line 1:"
        " cannot unmarshal !!str `high` into float64",
        id="threshold-not-a-number",
    ),
]


@pytest.mark.parametrize(("config", "message"), LOAD_ERRORS)
def test_load_time_errors(tmp_path: Path, config: dict[str, Any], message: str) -> None:
    loaded = trigger_task(tmp_path, config, "x")
    kind_config = loaded.grader("trig")
    kind = kind_of(kind_config)
    assert kind is not None
    with pytest.raises(InputError) as caught:
        kind.configure(kind_config)
    assert caught.value.args[0] == message


TOKENS = [
    pytest.param("Deploy the API, then deploy!", ["deploy", "api", "then", "deploy"], id="basic"),
    pytest.param("ab abc a1b2 x_yz don't", ["abc", "a1b2", "don"], id="short-runs-dropped"),
    # UTF-8 bytes count: "é" is 2 bytes (dropped), "日本" 6 bytes (kept), "éa" 3 bytes (kept).
    pytest.param("é éa 日本 中", ["éa", "日本", "中"], id="utf8-byte-length"),
    pytest.param("ÜBER naïve", ["über", "naïve"], id="unicode-lower"),
    # Combining marks separate: "e\u0301te" is "e", mark, "te".
    pytest.param("cafe\u0301s", ["cafe"], id="combining-mark-separates"),
    pytest.param("Ⅻ ²³⁴ ٣٤٥", ["ⅻ", "²³⁴", "٣٤٥"], id="numbers-of-every-kind"),
    pytest.param("should using about have", [], id="stop-words"),
]


@pytest.mark.parametrize(("text", "tokens"), TOKENS)
def test_tokenize(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


PHRASES = [
    pytest.param(
        "Deploy. USE FOR: deploy to azure, publish api, release to cloud. DO NOT USE FOR: x.",
        ["deploy to azure", "publish api", "release to cloud"],
        id="comma-list-cut-at-do-not-use-for",
    ),
    pytest.param(
        'USE FOR: "make a plan", \u201creview the plan\u201d, other stuff. INVOKES: tool',
        ["make a plan", "review the plan"],
        id="quoted-phrases-only",
    ),
    pytest.param(
        "DO NOT USE FOR: tests. Use for: one (note), two ( y ) , three...",
        ["one", "two", "three"],
        id="label-in-do-not-use-for-skipped-and-parenthetical-dropped",
    ),
    pytest.param(
        "USE FOR: alpha,\nbeta (b)\r\n, gamma FOR SINGLE OPERATIONS: delta",
        ["alpha", "beta", "gamma"],
        id="newlines-and-single-operations-cut",
    ),
    pytest.param("Nothing labelled here", [], id="no-label"),
    pytest.param('USE FOR: " ", "x"', ["x"], id="blank-quoted-dropped"),
]


@pytest.mark.parametrize(("description", "phrases"), PHRASES)
def test_trigger_phrases(description: str, phrases: list[str]) -> None:
    assert trigger_phrases(description) == phrases


def test_do_not_use_for_words_are_not_keywords(tmp_path: Path) -> None:
    write_skill(tmp_path)
    loaded = trigger_task(tmp_path, {"skill_path": "skill", "mode": "negative"}, "write tests")
    raw = grade_raw(loaded, "trig", make_run())
    assert raw["details"]["matched_keywords"] is None
    assert raw["passed"] is True


def test_skill_md_is_read_once_per_grading(tmp_path: Path) -> None:
    path = write_skill(tmp_path)
    loaded = trigger_task(tmp_path, {"skill_path": "skill", "mode": "positive"}, "deploy azure")
    grader = loaded.grader("trig")
    kind = kind_of(grader)
    assert kind is not None
    config = kind.configure(grader)
    first = _grade_with(loaded, config, tmp_path)
    os.remove(path)
    assert _grade_with(loaded, config, tmp_path) == first


def _grade_with(loaded: Loaded, config: object, folder: Path) -> dict[str, Any]:
    grader = loaded.grader("trig")
    kind = kind_of(grader)
    assert kind is not None
    job = GraderJob(
        grader=grader,
        task=loaded.task,
        config=config,
        run=SavedRun.model_validate(make_run()),
        context=b"",
        timeout_s=30,
        timeout_source="test",
        setup=GraderSetup(".", str(folder), {}, "/tmp"),
    )
    raw = dict(kind.grade(job).raw)
    raw.pop("duration_ms")
    return raw


def test_an_eval_level_grader_scores_each_task_s_own_prompt(tmp_path: Path) -> None:
    write_skill(tmp_path)
    eval_graders = (
        "graders:\n  - type: trigger\n    name: trig\n"
        "    config: {skill_path: skill, mode: positive}\n"
    )
    loaded = load_task(tmp_path, "id: t\ninputs: {prompt: publish api}\n", eval_graders)
    assert grade_raw(loaded, "trig", make_run())["details"]["matched_count"] == 2


def test_a_real_skill_md_s_use_for_list(tmp_path: Path) -> None:
    # waza's own example skill: a block-scalar description with every label of the parser.
    corpus = require_shared("waza-wild")
    path = corpus / "runs/microsoft-waza/snapshot-091a1f9e/examples/code-explainer/SKILL.md"
    write_skill(tmp_path, path.read_text(encoding="utf-8"))
    loaded = trigger_task(
        tmp_path, {"skill_path": "skill", "mode": "positive"}, "Can you walk through this?"
    )
    raw = grade_raw(loaded, "trig", make_run())
    # "walk through this algorithm" is 3 tokens ("this" is a stop word), 2 in the prompt.
    assert raw["details"]["phrase_score"] == 2 / 3
    assert trigger_phrases(_description(path)) == [
        "explain code",
        "what does this code do",
        "break down this function",
        "help me understand this",
        "walk through this algorithm",
        "clarify this logic",
        "explain this snippet",
        "describe what happens here",
    ]


def _description(skill_md: Path) -> str:
    front = skill_md.read_text(encoding="utf-8").split("\n---", 1)[0].removeprefix("---\n")
    return str(yaml.safe_load(front)["description"])


@pytest.mark.slow
def test_every_trigger_grader_of_the_wild_corpus_loads() -> None:
    corpus = require_shared("waza-wild")
    graders = wild_graders(corpus, "trigger")
    assert len(graders) > 20
    for grader in graders:
        kind = kind_of(grader)
        assert kind is not None
        assert kind.configure(grader).creation_error is None, grader.location
