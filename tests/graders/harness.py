"""Grade one saved run with one grader kind, the way the engine does: the grader entry is
real YAML loaded by the spec loader, its `config` decoded by the kind's `configure`, the run
parsed by the results model. Tables restating waza's Go tests call `grade_raw`."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from waza_ci.graders import kind_of
from waza_ci.graders.base import GraderJob, GraderResult, GraderSetup
from waza_ci.waza.results import SavedRun
from waza_ci.waza.spec import EvalSpec, GraderSpec, TaskSpec, load_eval


@dataclass(frozen=True)
class Loaded:
    spec: EvalSpec
    task: TaskSpec

    def grader(self, name: str) -> GraderSpec:
        return next(g for g in self.task.graders if g.name == name)


def load_task(folder: Path, task_yaml: str, eval_yaml: str = "") -> Loaded:
    """Write eval.yaml (its `graders:` from `eval_yaml`) and one task file, load them."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "eval.yaml").write_text(
        "name: harness\ntasks: ['tasks/*.yaml']\n" + textwrap.dedent(eval_yaml), encoding="utf-8"
    )
    (folder / "tasks").mkdir(exist_ok=True)
    (folder / "tasks" / "task.yaml").write_text(textwrap.dedent(task_yaml), encoding="utf-8")
    spec = load_eval(folder / "eval.yaml", working_directory=folder)
    return Loaded(spec, spec.tasks[0])


def grader_task(folder: Path, grader_yaml: str, **task_fields: str) -> Loaded:
    """A task `t` with one grader entry (YAML of one list item, without the dash)."""
    entry = textwrap.indent(textwrap.dedent(grader_yaml).strip(), "    ").lstrip()
    extra = "".join(f"{key}: {value}\n" for key, value in task_fields.items())
    return load_task(folder, f"id: t\n{extra}graders:\n  - {entry}\n")


def grade(
    loaded: Loaded,
    name: str,
    run: dict[str, Any],
    *,
    workspace: str = ".",
    working_directory: str | Path | None = None,
    env: dict[str, str] | None = None,
    temp_dir: str = "/tmp",
    timeout_s: int = 30,
) -> GraderResult:
    """Configure the named grader and grade the run with it."""
    grader = loaded.grader(name)
    kind = kind_of(grader)
    assert kind is not None, f"{grader.kind!r} is not a regraded kind"
    setup = GraderSetup(
        workspace_dir=workspace,
        working_directory=str(working_directory or loaded.spec.path.parent),
        env=env or {},
        temp_dir=temp_dir,
    )
    job = GraderJob(
        grader=grader,
        task=loaded.task,
        config=kind.configure(grader),
        run=SavedRun.model_validate(run),
        context=b"",
        timeout_s=timeout_s,
        timeout_source="test",
        setup=setup,
    )
    return kind.grade(job)


def grade_raw(loaded: Loaded, name: str, run: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """The verdict as waza writes it, `duration_ms` left out (wall time is not reproducible)."""
    raw = dict(grade(loaded, name, run, **kwargs).raw)
    raw.pop("duration_ms")
    return raw
