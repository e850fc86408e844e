"""The judge's message, byte for byte as waza assembles it (exact_prompt_test.go's cases)."""

from __future__ import annotations

from typing import Any

import pytest

from waza_ci.judge.config import JudgeConfig, Rubric
from waza_ci.judge.message import (
    TRANSCRIPT_MAX_CHARS,
    conversation,
    exact_message,
    legacy_messages,
    pairwise_message,
    render_prompt,
)


@pytest.mark.parametrize("output", ["", " ", "\n", " \nanswer\n ", "\r\n"])
def test_exact_message_keeps_every_value_untrimmed(output: str) -> None:
    assert exact_message("override", " input ", output) == (
        "override\n\n---\n\n## Task input\n input \n\n## Candidate output\n" + output + "\n"
    )


def test_exact_message_leaves_out_a_missing_task_input_never_the_output() -> None:
    assert exact_message("override", "", "") == "override\n\n---\n\n## Candidate output\n\n"


def test_older_waza_messages_count_as_current() -> None:
    rubric = Rubric("r", "1.0.0", "pass-fail", "the body", "file:r.md")
    config = JudgeConfig(prompt="the body", rubric=rubric)
    assert legacy_messages(config, " in ", " out ") == (
        "the body",
        "the body\n\n---\n\n## Task input\nin\n\n## Candidate output\nout\n",
    )
    assert render_prompt(rubric, "", " \n") == "the body"


def test_pairwise_message_is_wazas() -> None:
    text = pairwise_message("rubric", "one", "two")
    assert text.startswith(
        "You are a judge comparing two outputs for the same task.\n\n## Rubric\nrubric\n\n"
    )
    assert "## Output A\n```\none\n```\n\n## Output B\n```\ntwo\n```\n\n" in text
    assert text.endswith('Call set_pairwise_winner with your verdict: "A", "B", or "tie".\n')


def test_the_conversation_is_the_transcript_in_order_and_bounded() -> None:
    transcript: list[dict[str, Any]] = [
        {"type": "user.message", "content": "write a changelog"},
        {"type": "assistant.message", "content": "on it"},
        {"type": "tool.execution_start", "tool_name": "bash", "arguments": {"command": "ls"}},
        {
            "type": "tool.execution_complete",
            "tool_name": "bash",
            "success": True,
            "tool_result": {"content": "CHANGELOG.md"},
        },
        {"type": "session.idle"},
    ]
    text = conversation(transcript, "")
    order = [
        "### user\nwrite a changelog",
        "### assistant\non it",
        "### tool call: bash",
        '{"command": "ls"}',
        "### tool result: bash\nCHANGELOG.md",
    ]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)
    long = conversation([{"type": "assistant.message", "content": "x" * 3000}] * 100, "p")
    assert len(long) < TRANSCRIPT_MAX_CHARS + 200
    assert "characters of the saved conversation cut here" in long
    assert long.startswith("### user\np")
