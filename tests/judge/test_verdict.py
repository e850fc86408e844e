"""The verdict from the judge's calls, as waza computes it, and what kept verdicts say."""

from __future__ import annotations

from waza_ci.judge.config import JudgeConfig
from waza_ci.judge.tools import FAIL_TOOL, GRADE_TOOLS, PASS_TOOL, Calls
from waza_ci.judge.verdict import (
    ALL_PROMPTS_PASSED,
    NEVER_CALLED,
    independent,
    kept_notes,
    pairwise,
)

CONFIG = JudgeConfig(prompt="p")


def calls(*entries: tuple[str, object]) -> Calls:
    recorded = Calls()
    for tool, args in entries:
        recorded.record(tool, args)
    return recorded


def test_the_tools_are_wazas_two() -> None:
    assert [t.name for t in GRADE_TOOLS] == [PASS_TOOL, FAIL_TOOL]
    assert GRADE_TOOLS[0].description == (
        "Used by waza graders, this marks the check as passed. This can be called multiple times."
    )
    assert "required" not in GRADE_TOOLS[1].parameters


def test_a_call_records_wazas_words() -> None:
    got = calls(
        (PASS_TOOL, {"description": "d", "reason": "r"}),
        (PASS_TOOL, None),
        (FAIL_TOOL, {"reason": 3}),
        (FAIL_TOOL, "not an object"),
    )
    assert got.passes == ["pass: d: r", "pass: : "]
    assert got.failures == ["fail", "fail"]


def test_pass_fail_mixed_and_no_call() -> None:
    passed = independent(CONFIG, "m", "ok", calls((PASS_TOOL, {"reason": "r"})))
    assert (passed.passed, passed.score, passed.feedback) == (True, 1.0, ALL_PROMPTS_PASSED)
    mixed = independent(CONFIG, "m", "", calls((PASS_TOOL, {}), (FAIL_TOOL, {"reason": "bad"})))
    assert (mixed.passed, mixed.score, mixed.feedback) == (False, 0.5, "fail: : bad")
    assert mixed.details == {
        "prompt": "m",
        "response": "<no response content>",
        "passes": "pass: : ",
        "failures": "fail: : bad",
    }
    none = independent(CONFIG, "m", "0.7", Calls())
    assert (none.passed, none.score, none.feedback) == (False, 0.0, ALL_PROMPTS_PASSED)


def test_pairwise_scores_as_waza() -> None:
    b_wins = {"winner": "B", "magnitude": "slightly-better", "reasoning": "r"}
    a_wins = dict(b_wins, winner="A")
    skill = pairwise(
        CONFIG, calls(("set_pairwise_winner", b_wins)), calls(("set_pairwise_winner", a_wins))
    )
    assert (skill.passed, skill.score) == (True, 1.0)
    assert skill.feedback == "pairwise: winner=skill, magnitude=slightly-better, consistent=true"
    both_b = pairwise(
        CONFIG, calls(("set_pairwise_winner", b_wins)), calls(("set_pairwise_winner", b_wins))
    )
    assert (both_b.passed, both_b.score, both_b.details["pairwise"]["winner"]) == (True, 0.5, "tie")
    never = pairwise(CONFIG, Calls(), Calls())
    assert (never.passed, never.score) == (True, 0.5)


def test_a_kept_verdict_says_when_stale_or_never_called() -> None:
    saved = {"passed": True, "details": {"prompt": "old", "passes": "pass: : ", "failures": ""}}
    assert kept_notes(saved, ("new",), "t.yaml:3")[0].startswith("stale:")
    assert "t.yaml:3" in kept_notes(saved, ("new",), "t.yaml:3")[0]
    assert kept_notes(saved, ("old", "new"), "t.yaml:3") == ()
    silent = {"passed": False, "details": {"passes": "", "failures": ""}}
    assert kept_notes(silent, (), "t.yaml:3") == (NEVER_CALLED,)
    assert kept_notes({"passed": False}, (), "t.yaml:3") == ()
