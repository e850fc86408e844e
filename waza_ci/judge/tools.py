"""The grade tools waza gives its judge (`newWazaGraderTools`, `set_pairwise_winner`): their
names, descriptions and schemas as waza declares them, and what a call records. Only these
are offered; every other tool the runtime has is denied."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

PASS_TOOL = "set_waza_grade_pass"  # noqa: S105 - a tool name, not a password
FAIL_TOOL = "set_waza_grade_fail"
PAIRWISE_TOOL = "set_pairwise_winner"


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]

    def schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


def _grade_parameters(which: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "description": {
                "type": "string",
                "description": f"Optional description of the {which} check",
            },
            "reason": {"type": "string", "description": f"Optional reason for the {which} check"},
        },
    }


GRADE_TOOLS = (
    ToolSpec(
        PASS_TOOL,
        "Used by waza graders, this marks the check as passed. This can be called multiple times.",
        _grade_parameters("passing"),
    ),
    ToolSpec(
        FAIL_TOOL,
        "Used by waza graders, this marks the check as failed, with an optional reason. This "
        "can be called multiple times.",
        _grade_parameters("failing"),
    ),
)


def pairwise_tool(label_a: str = "A", label_b: str = "B") -> ToolSpec:
    return ToolSpec(
        PAIRWISE_TOOL,
        "Report the winner of the pairwise comparison.",
        {
            "type": "object",
            "properties": {
                "winner": {
                    "type": "string",
                    "enum": [label_a, label_b, "tie"],
                    "description": f"Which output is better: {label_a}, {label_b}, or tie",
                },
                "magnitude": {
                    "type": "string",
                    "enum": ["much-better", "slightly-better", "equal"],
                    "description": "How much better the winner is",
                },
                "reasoning": {
                    "type": "string",
                    "description": "Brief explanation of why this output won",
                },
            },
            "required": ["winner", "magnitude", "reasoning"],
        },
    )


@dataclass
class Calls:
    """What the judge's tool calls recorded in one session: fresh for every session."""

    passes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    winner: dict[str, str] | None = None
    denied: list[str] = field(default_factory=list)
    """Tools the judge tried that were refused (a built-in, anything not offered)."""

    def record(self, tool: str, arguments: Any) -> None:
        if tool == PASS_TOOL:
            self.passes.append(_entry("pass", arguments))
        elif tool == FAIL_TOOL:
            self.failures.append(_entry("fail", arguments))
        elif tool == PAIRWISE_TOOL:
            args = arguments if isinstance(arguments, Mapping) else {}
            picked = {k: args.get(k) for k in ("winner", "magnitude", "reasoning")}
            if all(isinstance(v, str) for v in picked.values()):
                self.winner = {k: str(v) for k, v in picked.items()}

    @property
    def graded(self) -> bool:
        return bool(self.passes or self.failures or self.winner)


def _entry(verb: str, arguments: Any) -> str:
    """`pass: <description>: <reason>`, or the bare verb when the arguments do not decode
    (as waza's mapstructure decoding fails on a non-object or a non-string value)."""
    args: Any = {} if arguments is None else arguments
    if not isinstance(args, Mapping):
        return verb
    description, reason = args.get("description", ""), args.get("reason", "")
    if not isinstance(description, str) or not isinstance(reason, str):
        return verb
    return f"{verb}: {description}: {reason}"
