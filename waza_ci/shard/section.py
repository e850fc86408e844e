"""The `waza_ci` section of a partial results file, as the merge reads it: strict pydantic
models of what a shard wrote (see plan.py's `partial_section`), and the names its errors give
their parts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from waza_ci.errors import Location
from waza_ci.waza.identity import AnotherEval, EvalIdentity
from waza_ci.waza.modules.ref import ModulePin
from waza_ci.waza.spec import LoadWarning


class SectionModel(BaseModel):
    # Written by waza-ci itself; strict types, unknown keys ignored (a later minor addition).
    model_config = ConfigDict(strict=True, extra="ignore")


class LocationModel(SectionModel):
    file: str
    line: int | None = None
    json_path: str | None = None

    def location(self) -> Location:
        return Location(self.file, self.line, self.json_path)


class ModuleModel(SectionModel):
    ref: str
    commit: str
    digest: str

    def pin(self) -> ModulePin:
        return ModulePin(self.ref, self.commit, self.digest)


class GraderModel(SectionModel):
    name: str
    kind: str
    location: LocationModel
    module: ModuleModel | None = None
    """A `ref:` grader's module as waza.lock pinned it."""


class VerdictModel(SectionModel):
    run: int
    grader: str
    error: str | None
    notes: list[str]
    problem: Literal["not-started", "timed-out", "cancelled", "cleanup"] | None = None
    """A `Problem`'s value (the section is strict JSON: an enum is checked as its text)."""
    timeout_s: float | None = None
    timeout_source: str = ""
    start_problem: str | None = None
    """What the program's file showed of a failed start (an unknown value gets the generic
    hint)."""
    found_from: str | None = None
    """The folder that has the files the grader names but its working directory lacks."""
    saved_passed: bool | None = None
    saved_score: float | None = None


class UngradedModel(SectionModel):
    run: int
    grader: str


class DroppedModel(SectionModel):
    run: int
    grader: str
    saved_passed: bool


class TaskModel(SectionModel):
    test_id: str
    position: int
    index: int
    display_name: str
    location: LocationModel | None
    graders: list[GraderModel]
    program_graders: list[str]
    regraded_graders: list[str] | None = None
    """Every grader graded again (None in a partial from before other kinds were)."""
    verdicts: list[VerdictModel]
    ungraded: list[UngradedModel] = []
    dropped: list[DroppedModel] = []


class ShardModel(SectionModel):
    index: int
    count: int


class EvalModel(SectionModel):
    name: str
    path: str
    skill: str = ""
    """Absent in a partial from before identities were checked."""


class IdentityModel(SectionModel):
    name: str
    skill: str

    def identity(self) -> EvalIdentity:
        return EvalIdentity(self.name, self.skill)


class AnotherEvalModel(SectionModel):
    file: str
    found: IdentityModel
    expected: IdentityModel

    def another_eval(self) -> AnotherEval:
        return AnotherEval(self.file, self.found.identity(), self.expected.identity())


class SkippedModel(SectionModel):
    results_name: str
    test_id: str
    reason: str


class WarningModel(SectionModel):
    message: str
    file: str | None = None
    line: int | None = None

    def to_warning(self) -> LoadWarning:
        where = Location(self.file, line=self.line) if self.file is not None else None
        return LoadWarning(self.message, where)


class PartialSection(SectionModel):
    format: int
    shard: ShardModel
    inputs_digest: str
    eval: EvalModel
    results_files: list[str]
    results_name: str
    results_tasks: int
    task_indexes: list[int]
    total_tasks: int
    skipped: list[SkippedModel]
    another_eval: list[AnotherEvalModel] = []
    warnings: list[WarningModel]
    tasks: list[TaskModel]
    elapsed_ms: int = 0
    task_filter: str | None = None
    modules: list[ModuleModel] = []
    """What every `ref:` grader of the spec resolved to (absent before refs were read)."""


# The partial section's parts as its errors name them (never a Python class).
SECTION_NAMES = {
    "PartialSection": "partial section",
    "LocationModel": "location",
    "GraderModel": "grader",
    "ModuleModel": "grader module",
    "VerdictModel": "verdict",
    "UngradedModel": "ungraded grader",
    "DroppedModel": "dropped verdict",
    "TaskModel": "task entry",
    "ShardModel": "shard",
    "EvalModel": "eval",
    "SkippedModel": "skipped task",
    "IdentityModel": "eval identity",
    "AnotherEvalModel": "results of another eval",
    "WarningModel": "warning",
}
