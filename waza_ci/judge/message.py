"""The messages the judge is sent, assembled as waza assembles them (`renderJudgePrompt`,
`RenderPromptExact`, `buildPairwisePrompt`), and, for a judge that continued the agent's
session in waza, the saved conversation that stands in for that session.

No system prompt is added: waza sends none, the runtime's own applies."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from waza_ci.judge.config import JudgeConfig, Rubric

TRANSCRIPT_MAX_CHARS = 60_000
"""The most of a saved conversation a transcript judge is sent: the head and the tail, each
half of it, with a line saying what was cut between them (documented in docs/judge.md)."""
ITEM_MAX_CHARS = 4_000
"""The most of one message, tool call or tool result in that conversation."""

CUT = "\n[… {n:,} characters of the saved conversation cut here …]\n"


def exact_message(prompt: str, task_input: str, output: str) -> str:
    """waza's exact independent mode: the prompt, `---`, the task input (when there is one) and
    the candidate output (always, even empty), none of them trimmed."""
    parts = [prompt, "\n\n---\n"]
    if task_input:
        parts += ["\n## Task input\n", task_input, "\n"]
    parts += ["\n## Candidate output\n", output, "\n"]
    return "".join(parts)


def legacy_messages(config: JudgeConfig, task_input: str, output: str) -> tuple[str, ...]:
    """What older waza versions sent for the same grader: the prompt as written, and with a
    rubric the trimmed `RenderPrompt`. A saved `details.prompt` equal to any of these or to
    the exact message is not stale."""
    messages = [config.prompt]
    if config.rubric is not None:
        messages.append(render_prompt(config.rubric, task_input, output))
    return tuple(messages)


def render_prompt(rubric: Rubric, task_input: str, output: str) -> str:
    """waza's `Rubric.RenderPrompt` (values trimmed, empty sections left out)."""
    task_input, output = task_input.strip(), output.strip()
    if not task_input and not output:
        return rubric.body
    text = rubric.body + "\n\n---\n"
    if task_input:
        text += f"\n## Task input\n{task_input}\n"
    if output:
        text += f"\n## Candidate output\n{output}\n"
    return text


def pairwise_message(prompt: str, output_a: str, output_b: str) -> str:
    """waza's `buildPairwisePrompt` with labels A and B."""
    return (
        "You are a judge comparing two outputs for the same task.\n\n"
        f"## Rubric\n{prompt}\n\n"
        f"## Output A\n```\n{output_a}\n```\n\n"
        f"## Output B\n```\n{output_b}\n```\n\n"
        "Compare both outputs against the rubric. Call set_pairwise_winner with your verdict: "
        '"A", "B", or "tie".\n'
    )


def transcript_message(prompt: str, conversation: str) -> str:
    """A `continue_session` judge: waza resumes the agent's live session and sends the prompt
    as written; that session is gone, so the saved conversation comes first, then the prompt."""
    return f"## The agent's session (saved transcript)\n\n{conversation}\n\n---\n\n{prompt}"


def conversation(transcript: Sequence[Mapping[str, Any]], user_prompt: str) -> str:
    """The run's conversation from its saved transcript: the user's prompt, the assistant's
    messages, its tool calls and their results, in order; cut head and tail to the bound."""
    items: list[str] = []
    if user_prompt and not any(e.get("type") == "user.message" for e in transcript):
        items.append(f"### user\n{_cut(user_prompt)}")
    for event in transcript:
        line = _item(event)
        if line:
            items.append(line)
    text = "\n\n".join(items)
    return _head_and_tail(text, TRANSCRIPT_MAX_CHARS)


def _item(event: Mapping[str, Any]) -> str:
    kind = event.get("type")
    if kind in ("user.message", "assistant.message", "Turn"):
        who = "user" if kind == "user.message" else "assistant"
        content = event.get("content")
        return f"### {who}\n{_cut(str(content))}" if content else ""
    if kind in ("tool.execution_start", "ToolExecutionStart"):
        args = json.dumps(event.get("arguments"), ensure_ascii=False, sort_keys=True)
        return f"### tool call: {event.get('tool_name', '')}\n{_cut(args)}"
    if kind in ("tool.execution_complete", "ToolExecutionComplete"):
        result = event.get("tool_result")
        content = result.get("content") if isinstance(result, Mapping) else result
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        ok = "" if event.get("success", True) else " (failed)"
        return f"### tool result{ok}: {event.get('tool_name', '')}\n{_cut(text)}"
    return ""


def _cut(text: str) -> str:
    return _head_and_tail(text, ITEM_MAX_CHARS)


def _head_and_tail(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return text[:half] + CUT.format(n=len(text) - 2 * half) + text[-half:]
