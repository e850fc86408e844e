"""`skill_invocation`: waza's Go tests (skill_invocation_grader_test.go) restated as a table,
then details, load errors and construction errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.graders.harness import grade_raw, grader_task
from waza_ci.errors import InputError
from waza_ci.graders import KINDS

PREPARE, DEPLOY = "azure-prepare", "azure-deploy"
MATCHED = "Skill invocation sequence matched"
NOT_INVOKED = "Forbidden skills were not invoked"


def _run(*skills: str) -> dict[str, Any]:
    invocations = [{"name": name, "path": f"skills/{name}/SKILL.md"} for name in skills]
    return {"run_number": 1, "status": "passed", "skill_invocations": invocations}


def _grade(tmp_path: Path, config: str, run: dict[str, Any]) -> dict[str, Any]:
    loaded = grader_task(tmp_path, f"name: si\ntype: skill_invocation\nconfig: {config}")
    return grade_raw(loaded, "si", run)


EXACT = f"{{mode: exact_match, required_skills: [{PREPARE}, {DEPLOY}]}}"
IN_ORDER = f"{{mode: in_order, required_skills: [{PREPARE}, {DEPLOY}]}}"
ANY_ORDER = f"{{mode: any_order, required_skills: [{PREPARE}, {DEPLOY}]}}"

# (config, invoked skills, score, passed, feedback)
GO_CASES = [
    pytest.param(EXACT, [PREPARE, DEPLOY], 1.0, True, MATCHED, id="exact-passes"),
    pytest.param(
        EXACT,
        [PREPARE, DEPLOY, "azure-monitor"],
        0.8,
        False,
        "Exact match failed: expected 2 skills [azure-prepare azure-deploy], "
        "got 3 skills [azure-prepare azure-deploy azure-monitor]",
        id="exact-fails-with-extra-skill",
    ),
    pytest.param(
        EXACT,
        [PREPARE],
        0.6666666666666666,
        False,
        "Exact match failed: expected 2 skills [azure-prepare azure-deploy], "
        "got 1 skills [azure-prepare]",
        id="exact-fails-with-missing-skill",
    ),
    pytest.param(
        EXACT,
        [DEPLOY, PREPARE],
        1.0,
        False,
        "Exact match failed: expected 2 skills [azure-prepare azure-deploy], "
        "got 2 skills [azure-deploy azure-prepare]",
        id="exact-fails-with-wrong-order",
    ),
    pytest.param(
        EXACT,
        [],
        0.0,
        False,
        "Exact match failed: expected 2 skills [azure-prepare azure-deploy], got 0 skills []",
        id="exact-fails-without-invocations",
    ),
    pytest.param(IN_ORDER, [PREPARE, DEPLOY], 1.0, True, MATCHED, id="in-order-exact-sequence"),
    pytest.param(
        IN_ORDER,
        [PREPARE, "azure-validate", DEPLOY],
        0.8,
        True,
        MATCHED,
        id="in-order-with-extras",
    ),
    pytest.param(
        IN_ORDER,
        [DEPLOY, PREPARE],
        1.0,
        False,
        "In-order match failed: not all required skills [azure-prepare azure-deploy] appeared "
        "in order within actual [azure-deploy azure-prepare]",
        id="in-order-out-of-order",
    ),
    pytest.param(
        IN_ORDER,
        [PREPARE],
        0.6666666666666666,
        False,
        "In-order match failed: not all required skills [azure-prepare azure-deploy] appeared "
        "in order within actual [azure-prepare]",
        id="in-order-missing-skill",
    ),
    pytest.param(ANY_ORDER, [PREPARE, DEPLOY], 1.0, True, MATCHED, id="any-order-in-order"),
    pytest.param(ANY_ORDER, [DEPLOY, PREPARE], 1.0, True, MATCHED, id="any-order-out-of-order"),
    pytest.param(
        ANY_ORDER,
        ["azure-validate", PREPARE, DEPLOY],
        0.8,
        True,
        MATCHED,
        id="any-order-with-extras",
    ),
    pytest.param(
        ANY_ORDER,
        [PREPARE],
        0.6666666666666666,
        False,
        "Any-order match failed: missing or insufficient skills: azure-deploy (need 1, got 0)",
        id="any-order-missing-skill",
    ),
    pytest.param(
        "{mode: any_order, required_skills: [skill1, skill1, skill2]}",
        ["skill1", "skill1", "skill2"],
        1.0,
        True,
        MATCHED,
        id="any-order-duplicate-required-skills",
    ),
    pytest.param(
        "{mode: in_order, required_skills: [skill1], allow_extra: true}",
        ["skill1", "skill2"],
        0.6666666666666666,
        True,
        MATCHED,
        id="allow-extra-true-does-not-penalise",
    ),
    pytest.param(
        "{mode: in_order, required_skills: [skill1], allow_extra: false}",
        ["skill1", "skill2"],
        0.4666666666666666,
        True,
        "Skill invocation sequence matched but had extra invocations (got 2, expected 1)",
        id="allow-extra-false-penalises-but-passes",
    ),
    pytest.param(
        "{forbidden_skills: [skill1]}",
        [],
        1.0,
        True,
        NOT_INVOKED,
        id="forbidden-only-without-invocations",
    ),
    pytest.param(
        "{forbidden_skills: [skill1], allow_extra: false}",
        ["skill2"],
        1.0,
        True,
        NOT_INVOKED,
        id="forbidden-only-allows-unrelated-skills",
    ),
    pytest.param(
        "{forbidden_skills: [skill1]}",
        ["skill1"],
        0.0,
        False,
        "Forbidden skills invoked: skill1",
        id="forbidden-only-fails-when-invoked",
    ),
    pytest.param(
        "{mode: any_order, required_skills: [skill1], forbidden_skills: [skill3]}",
        ["skill1", "skill2"],
        0.6666666666666666,
        True,
        MATCHED,
        id="mixed-passes-without-forbidden",
    ),
    pytest.param(
        "{mode: any_order, required_skills: [skill1], forbidden_skills: [skill3]}",
        ["skill1", "skill3"],
        0.0,
        False,
        "Forbidden skills invoked: skill3",
        id="mixed-fails-when-forbidden-invoked",
    ),
    pytest.param(
        "{mode: any_order, required_skills: [skill1]}",
        [],
        0.0,
        False,
        "Any-order match failed: missing or insufficient skills: skill1 (need 1, got 0)",
        id="no-invocations-are-empty",
    ),
    pytest.param(
        "{mode: exact_match, required_skills: [skill1]}",
        ["", "skill1"],
        0.6666666666666666,
        False,
        "Exact match failed: expected 1 skills [skill1], got 2 skills [ skill1]",
        id="empty-skill-names-are-kept",
    ),
]


@pytest.mark.parametrize(("config", "skills", "score", "passed", "feedback"), GO_CASES)
def test_waza_skill_invocation_cases(
    tmp_path: Path, config: str, skills: list[str], score: float, passed: bool, feedback: str
) -> None:
    verdict = _grade(tmp_path, config, _run(*skills))
    assert (verdict["score"], verdict["passed"], verdict["feedback"]) == (score, passed, feedback)
    assert verdict["type"] == "skill_invocation"


@pytest.mark.parametrize(
    ("skills", "precision", "recall", "f1"),
    [
        pytest.param(["skill1", "skill2"], 1.0, 1.0, 1.0, id="perfect"),
        pytest.param(["skill1"], 1.0, 0.5, 0.6666666666666666, id="missing-lowers-recall"),
        pytest.param(
            ["skill1", "skill2", "skill3"],
            0.6666666666666666,
            1.0,
            0.8,
            id="extra-lowers-precision",
        ),
    ],
)
def test_precision_and_recall(
    tmp_path: Path, skills: list[str], precision: float, recall: float, f1: float
) -> None:
    config = "{mode: any_order, required_skills: [skill1, skill2]}"
    details = _grade(tmp_path, config, _run(*skills))["details"]
    assert (details["precision"], details["recall"], details["f1"]) == (precision, recall, f1)


def test_details(tmp_path: Path) -> None:
    config = "{mode: exact_match, required_skills: [skill1], forbidden_skills: [x, x]}"
    assert _grade(tmp_path, config, _run("skill1", "x"))["details"] == {
        "mode": "exact_match",
        "required_skills": ["skill1"],
        "forbidden_skills": ["x", "x"],
        "forbidden_violations": ["x"],
        "actual_skills": ["skill1", "x"],
        "allow_extra": True,
        "precision": 0.5,
        "recall": 1.0,
        "f1": 0.6666666666666666,
    }


def test_details_of_a_forbidden_only_grader_without_invocations(tmp_path: Path) -> None:
    run = {"run_number": 1, "status": "passed"}  # no skill_invocations at all
    details = _grade(tmp_path, "{forbidden_skills: [skill1]}", run)["details"]
    assert details["mode"] == "any_order"
    assert details["required_skills"] == []
    assert details["forbidden_violations"] == []
    assert details["actual_skills"] == []
    assert "available_skills" not in details  # the catalog never reaches waza grade


def test_required_and_extra_failures_are_both_reported(tmp_path: Path) -> None:
    config = "{mode: exact_match, required_skills: [a], allow_extra: false, forbidden_skills: [c]}"
    verdict = _grade(tmp_path, config, _run("b", "c"))
    assert verdict["feedback"] == (
        "Exact match failed: expected 1 skills [a], got 2 skills [b c]; "
        "Extra invocations not allowed (got 2, expected 1); Forbidden skills invoked: c"
    )
    assert (verdict["score"], verdict["passed"]) == (0.0, False)


def test_the_extra_penalty_applies_to_a_failed_match(tmp_path: Path) -> None:
    config = "{mode: exact_match, required_skills: [a, b], allow_extra: false}"
    verdict = _grade(tmp_path, config, _run("b", "a", "z"))
    assert verdict["score"] == 0.8 * (1.0 - 1 / 3 * 0.6)
    assert verdict["feedback"].endswith("; Extra invocations not allowed (got 3, expected 2)")


@pytest.mark.parametrize(
    ("config", "shown"),
    [
        pytest.param("{mode: invalid_mode, required_skills: [skill1]}", '"invalid_mode"', id="bad"),
        pytest.param("{required_skills: [skill1]}", '""', id="absent-with-required-skills"),
        pytest.param(
            "{mode: in_order_match, required_skills: [skill1]}",
            '"in_order_match"',
            id="action-sequence-spelling",
        ),
        pytest.param(
            "{mode: invalid_mode, forbidden_skills: [skill1]}",
            '"invalid_mode"',
            id="explicit-with-forbidden-only",
        ),
    ],
)
def test_an_unknown_mode_fails_construction(tmp_path: Path, config: str, shown: str) -> None:
    verdict = _grade(tmp_path, config, _run("skill1"))
    assert verdict["feedback"] == (
        f"failed to create grader si: skill_invocation grader 'si' has invalid mode {shown} "
        "(must be exact_match, in_order, or any_order)"
    )


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param(
            "{mode: exact_match}",
            'skill_invocation grader "si": must have at least one skill in '
            "config.required_skills or config.forbidden_skills",
            id="no-skills",
        ),
        pytest.param(
            "{mode: exact_match, required_skills: [], forbidden_skills: []}",
            'skill_invocation grader "si": must have at least one skill in '
            "config.required_skills or config.forbidden_skills",
            id="empty-skill-lists",
        ),
        pytest.param(
            "{required_skills: [a], allow_extra: maybe}",
            'invalid grader config for "si" (type "skill_invocation"): failed to decode grader '
            "parameters of type models.SkillInvocationGraderParameters: yaml: unmarshal errors: "
            "line 1: cannot unmarshal !!str `maybe` into bool",
            id="allow-extra-not-a-bool",
        ),
    ],
)
def test_load_errors(tmp_path: Path, config: str, message: str) -> None:
    loaded = grader_task(tmp_path, f"name: si\ntype: skill_invocation\nconfig: {config}")
    with pytest.raises(InputError) as raised:
        KINDS["skill_invocation"].configure(loaded.grader("si"))
    assert raised.value.message == message


# --- runs saved before waza recorded `skill_invocations`: derived from the run's evidence ----


def _skill_call(skill: str) -> dict[str, Any]:
    arguments = {"path": "", "file_text": "", "command": "", "description": "", "skill": skill}
    return {"name": "skill", "arguments": arguments, "result": {"content": "loaded"}}


def _invoked(frontmatter: str) -> dict[str, Any]:
    return {"type": "skill.invoked", "content": f"---\n{frontmatter}\n---\n\n# Body\n"}


def _legacy_run(calls: list[str], events: list[str] | None = None) -> dict[str, Any]:
    run: dict[str, Any] = {
        "run_number": 1,
        "status": "passed",
        "session_digest": {"tool_call_count": len(calls), "tools_used": ["skill"]},
    }
    run["session_digest"]["tool_calls"] = [_skill_call(name) for name in calls]
    if events is not None:
        run["transcript"] = [{"type": "user.message", "content": "go"}] + [
            _invoked(f) for f in events
        ]
    return run


@pytest.mark.parametrize(
    ("run", "actual"),
    [
        pytest.param(
            _legacy_run([PREPARE, DEPLOY], [f"name: {PREPARE}", f'name: "{DEPLOY}"']),
            [PREPARE, DEPLOY],
            id="transcript-events-in-order",
        ),
        pytest.param(_legacy_run([PREPARE, DEPLOY]), [PREPARE, DEPLOY], id="digest-calls-alone"),
        pytest.param(
            # A skill call that loaded nothing has no `skill.invoked` event: not an invocation.
            _legacy_run([PREPARE, "no-such-skill"], [f"name: {PREPARE}"]),
            [PREPARE],
            id="events-decide-over-calls",
        ),
        pytest.param(
            _legacy_run([PREPARE], ["description: no name here"]),
            [PREPARE],
            id="a-nameless-skill-md-is-named-by-its-call",
        ),
        pytest.param(
            {**_legacy_run([PREPARE]), "skill_invocations": None},
            [PREPARE],
            id="null-is-absent",
        ),
        pytest.param(
            {**_legacy_run([PREPARE], [f"name: {PREPARE}"]), "skill_invocations": []},
            [],
            id="an-empty-list-says-none-were-invoked",
        ),
    ],
)
def test_skills_of_a_run_saved_without_skill_invocations_are_derived(
    tmp_path: Path, run: dict[str, Any], actual: list[str]
) -> None:
    raw = _grade(tmp_path, f"{{mode: in_order, required_skills: [{PREPARE}]}}", run)
    assert raw["details"]["actual_skills"] == actual
