"""A `prompt` grader's config and its rubric, read as waza reads them (`NewPromptGrader`,
`ResolveRubric`): `prompt` or `rubric` (a file path, or the name of a rubric built into waza),
`model`, `reasoning_effort`, `continue_session`, `mode`.

Read leniently: the saved verdict of a grader whose config waza-ci cannot use is kept, and
says why, rather than failing a grading that keeps it anyway."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from waza_ci.golang.errors import GoError
from waza_ci.golang.yaml import node_value
from waza_ci.waza.spec import GraderSpec

BUILTIN_RUBRICS = (
    "groundedness",
    "helpfulness",
    "instruction-following",
    "refusal-correctness",
    "tool-use-appropriateness",
)
"""The rubrics waza builds in (`internal/graders/data/rubrics/*.md`)."""

BuiltinRubric = Callable[[str], "Rubric"]
"""A built-in rubric's name -> the rubric (RubricError when it cannot be had)."""

_SEMVER = re.compile(r"^v?\d+(\.\d+){0,2}(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")


@dataclass(frozen=True)
class Rubric:
    name: str
    version: str
    scale: str
    body: str
    source: str
    """`file:<path>`, as waza records it."""


@dataclass(frozen=True)
class JudgeConfig:
    """What one `prompt` grader asks of the judge."""

    prompt: str
    """The inline prompt, else the rubric's body (waza's `args.Prompt`)."""
    rubric: Rubric | None = None
    model: str = ""
    reasoning_effort: str = ""
    continue_session: bool = False
    pairwise: bool = False
    unavailable: str = ""
    """Why this grader cannot be judged again here ("" when it can): its verdict is kept."""


def read_config(
    grader: GraderSpec, working_directory: Path, builtin: BuiltinRubric | None = None
) -> JudgeConfig:
    """The grader's config; a relative rubric path starts at the working directory (waza reads
    it from its own current directory), a built-in rubric's name is read through `builtin`."""
    raw = node_value(grader.config) if grader.config is not None else None
    values: dict[str, Any] = raw if isinstance(raw, dict) else {}
    text = {
        k: str(v) if v is not None else ""
        for k, v in values.items()
        if not isinstance(v, (dict, list))
    }
    prompt = text.get("prompt", "")
    base = JudgeConfig(
        prompt=prompt,
        model=text.get("model", ""),
        reasoning_effort=text.get("reasoning_effort", ""),
        continue_session=values.get("continue_session") is True,
        pairwise=text.get("mode", "") == "pairwise",
    )
    reference = text.get("rubric", "").strip()
    if not reference:
        if not prompt:
            return _unavailable(base, "its config has neither `prompt` nor `rubric`")
        return base
    if not _is_path(reference) and reference not in BUILTIN_RUBRICS:
        # waza's ResolveRubric takes it for a built-in name and NewPromptGrader refuses it.
        return _unavailable(
            base,
            f"rubric {reference!r} names a rubric built into waza, and none is known by "
            "that name (waza refuses it too: `rubric:` is a file path or a built-in "
            "rubric's name); to judge this text, give it as `prompt:`",
        )
    try:
        if _is_path(reference):
            rubric = load_rubric_file(reference, working_directory)
        elif builtin is None:
            raise RubricError(f"built-in rubric {reference!r}: no source for waza's rubrics")
        else:
            rubric = builtin(reference)
    except RubricError as err:
        return _unavailable(base, str(err))
    return JudgeConfig(
        prompt=prompt or rubric.body,
        rubric=rubric,
        model=base.model,
        reasoning_effort=base.reasoning_effort,
        continue_session=base.continue_session,
        pairwise=base.pairwise,
    )


def _unavailable(config: JudgeConfig, why: str) -> JudgeConfig:
    return JudgeConfig(
        prompt=config.prompt,
        model=config.model,
        reasoning_effort=config.reasoning_effort,
        continue_session=config.continue_session,
        pairwise=config.pairwise,
        unavailable=why,
    )


def _is_path(reference: str) -> bool:
    """waza's `isRubricPathRef`: `.md`, a leading `.`, `/` or `~`, or a separator inside."""
    return reference.endswith(".md") or reference.startswith((".", "/", "~")) or "/" in reference


class RubricError(GoError):
    """A rubric file waza would refuse, in waza's words."""


def load_rubric_file(reference: str, working_directory: Path) -> Rubric:
    path = Path(reference).expanduser()
    resolved = path if path.is_absolute() else working_directory / path
    try:
        data = resolved.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise RubricError(f"read rubric file {reference!r}: {err}") from None
    try:
        rubric = parse_rubric(data)
    except RubricError as err:
        raise RubricError(f"parse rubric file {reference!r}: {err}") from None
    return Rubric(rubric.name, rubric.version, rubric.scale, rubric.body, f"file:{resolved}")


def parse_rubric(data: str) -> Rubric:
    """waza's `ParseRubric`: `---` YAML frontmatter `---`, then the Markdown body (trimmed)."""
    trimmed = data.lstrip(" \t\r\n")
    if not trimmed.startswith("---"):
        raise RubricError("rubric must start with --- frontmatter")
    rest = trimmed[3:].lstrip("\r\n")
    end = rest.find("\n---")
    if end < 0:
        raise RubricError("rubric frontmatter missing closing ---")
    body = rest[end + 4 :].lstrip("\r\n").strip()
    try:
        meta = yaml.safe_load(rest[:end])
    except yaml.YAMLError as err:
        raise RubricError(f"invalid rubric frontmatter: {err}") from None
    fields = meta if isinstance(meta, dict) else {}
    name = str(fields.get("name") or "").strip()
    version = str(fields.get("version") or "").strip()
    scale = str(fields.get("scale") or "")
    if not name:
        raise RubricError("rubric.name is required")
    if not version:
        raise RubricError(f"rubric {name!r}: version is required")
    if not _SEMVER.match(version):
        raise RubricError(f"rubric {name!r}: version {version!r} is not valid semver")
    if not scale:
        raise RubricError(f"rubric {name!r}: scale is required")
    if scale not in ("pass-fail", "1-5"):
        raise RubricError(
            f"rubric {name!r}: scale {scale!r} is not supported (use pass-fail or 1-5)"
        )
    if not str(fields.get("description") or "").strip():
        raise RubricError(f"rubric {name!r}: description is required")
    if not body:
        raise RubricError(f"rubric {name!r}: body is required")
    return Rubric(name, version, scale, body, "")
