"""Join the partial results files of N shards into what one unsharded grading produces.

Each partial is a regraded results file in which only its shard's tasks were graded, plus a
`waza_ci` section (see shard.py). The merge checks that the partials come from the same inputs
and cover every shard of every results file exactly once, with no task graded twice; any
problem is an InputError naming the shard and the file. It then takes each task from the shard
that graded it and rebuilds the report's view of it (verdicts, run status) with scoring.py's
functions. The stats of a task were computed by its shard with the same function an unsharded
run uses and travel in its results file; the engine rebuilds the top-level digest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from waza_ci.errors import InputError, Location
from waza_ci.results import ResultsFile, SavedRun
from waza_ci.scoring import (
    STATUS_ERROR,
    GraderRef,
    RunGrade,
    SkippedTask,
    TaskGrade,
    Verdict,
    run_status,
)
from waza_ci.shard import PARTIAL_FORMAT, PARTIAL_KEY
from waza_ci.spec import LoadWarning


class _Model(BaseModel):
    # Written by waza-ci itself; strict types, unknown keys ignored (a later minor addition).
    model_config = ConfigDict(strict=True, extra="ignore")


class _LocationModel(_Model):
    file: str
    line: int | None = None
    json_path: str | None = None

    def location(self) -> Location:
        return Location(self.file, self.line, self.json_path)


class _GraderModel(_Model):
    name: str
    kind: str
    location: _LocationModel


class _ErrorModel(_Model):
    run: int
    grader: str
    error: str


class _TaskModel(_Model):
    test_id: str
    position: int
    index: int
    display_name: str
    location: _LocationModel | None
    graders: list[_GraderModel]
    program_graders: list[str]
    errors: list[_ErrorModel]


class _ShardModel(_Model):
    index: int
    count: int


class _EvalModel(_Model):
    name: str
    path: str


class _SkippedModel(_Model):
    results_name: str
    test_id: str
    reason: str


class _WarningModel(_Model):
    message: str
    file: str | None = None
    line: int | None = None

    def to_warning(self) -> LoadWarning:
        where = Location(self.file, line=self.line) if self.file is not None else None
        return LoadWarning(self.message, where)


class PartialSection(_Model):
    format: int
    shard: _ShardModel
    inputs_digest: str
    eval: _EvalModel
    results_files: list[str]
    results_name: str
    total_tasks: int
    skipped: list[_SkippedModel]
    warnings: list[_WarningModel]
    tasks: list[_TaskModel]


@dataclass(frozen=True)
class Partial:
    file: ResultsFile
    section: PartialSection

    @property
    def label(self) -> str:
        shard = self.section.shard
        return f"shard {shard.index}/{shard.count} of {self.section.results_name}"


@dataclass(frozen=True)
class MergedFile:
    """One results file rebuilt from its partials (its `summary` is not yet recomputed)."""

    name: str
    base: ResultsFile
    raw: dict[str, Any]


@dataclass(frozen=True)
class MergedGrading:
    eval_name: str
    eval_path: str
    results_names: tuple[str, ...]
    tasks: tuple[TaskGrade, ...]
    skipped: tuple[SkippedTask, ...]
    warnings: tuple[LoadWarning, ...]
    files: tuple[MergedFile, ...]


def read_partial(file: ResultsFile) -> Partial:
    """The `waza_ci` section of a loaded partial; an InputError naming the place if bad."""
    raw = file.raw.get(PARTIAL_KEY)
    if raw is None:
        raise InputError(
            "not a waza-ci partial results file (no `waza_ci` section; write it with "
            "`waza-ci grade --shard I/N --output …`)",
            Location(str(file.path), json_path=f"$.{PARTIAL_KEY}"),
        )
    if isinstance(raw, dict) and raw.get("format") != PARTIAL_FORMAT:
        raise InputError(
            f"partial format {raw.get('format')!r} is not supported ({PARTIAL_FORMAT} expected)",
            Location(str(file.path), json_path=f"$.{PARTIAL_KEY}.format"),
        )
    try:
        section = PartialSection.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
        raise InputError(
            first["msg"].lower(), Location(str(file.path), json_path=f"$.{PARTIAL_KEY}{where}")
        ) from None
    _check_section(file, section)
    return Partial(file, section)


def _check_section(file: ResultsFile, section: PartialSection) -> None:
    def fail(message: str, path: str) -> InputError:
        return InputError(message, Location(str(file.path), json_path=f"$.{PARTIAL_KEY}{path}"))

    shard = section.shard
    if shard.count < 1 or not 1 <= shard.index <= shard.count:
        raise fail(f"shard {shard.index}/{shard.count} is not a shard I/N", ".shard")
    if section.results_name not in section.results_files:
        raise fail(f"results file {section.results_name!r} is not listed", ".results_name")
    tasks = file.model.tasks
    for number, entry in enumerate(section.tasks):
        if not 0 <= entry.index < len(tasks) or tasks[entry.index].test_id != entry.test_id:
            message = f"task {entry.test_id!r} is not at $.tasks[{entry.index}]"
            raise fail(message, f".tasks[{number}]")
        if not 0 <= entry.position < section.total_tasks:
            raise fail(f"task position {entry.position} is out of range", f".tasks[{number}]")


def merge_partials(files: Sequence[ResultsFile]) -> MergedGrading:
    """Validate the partials as one complete, consistent set and rebuild the grading."""
    partials = [read_partial(file) for file in files]
    reference = partials[0]
    for partial in partials[1:]:
        _check_same_inputs(reference, partial)
    by_file = _check_coverage(reference.section, partials)
    graded = _check_tasks(reference.section, partials)
    several = len(reference.section.results_files) > 1
    tasks = tuple(_task_grade(partial, entry, several) for partial, entry in graded)
    section = reference.section
    return MergedGrading(
        eval_name=section.eval.name,
        eval_path=section.eval.path,
        results_names=tuple(section.results_files),
        tasks=tasks,
        skipped=tuple(SkippedTask(s.results_name, s.test_id, s.reason) for s in section.skipped),
        warnings=tuple(w.to_warning() for w in section.warnings),
        files=tuple(_merged_file(name, shards) for name, shards in by_file.items()),
    )


def _check_same_inputs(reference: Partial, partial: Partial) -> None:
    ref, other = reference.section, partial.section
    if other.shard.count != ref.shard.count:
        raise InputError(
            f"{partial.label} was cut into {other.shard.count} shards, but "
            f"{reference.file.path} into {ref.shard.count}",
            Location(str(partial.file.path), json_path=f"$.{PARTIAL_KEY}.shard"),
        )
    if other.inputs_digest != ref.inputs_digest:
        raise InputError(
            f"{partial.label} was graded from other inputs than {reference.file.path} "
            f"(inputs digest {other.inputs_digest[:12]}… vs {ref.inputs_digest[:12]}…): "
            "every shard needs the same eval, task files, results files and graders",
            Location(str(partial.file.path), json_path=f"$.{PARTIAL_KEY}.inputs_digest"),
        )


def _check_coverage(
    reference: PartialSection, partials: Sequence[Partial]
) -> dict[str, list[Partial]]:
    """Every (results file, shard) exactly once; the partials per file, in shard order."""
    seen: dict[tuple[str, int], Partial] = {}
    for partial in partials:
        key = (partial.section.results_name, partial.section.shard.index)
        if key in seen:
            raise InputError(
                f"{partial.label} is given twice: {seen[key].file.path} and {partial.file.path}",
                Location(str(partial.file.path)),
            )
        seen[key] = partial
    count = reference.shard.count
    for name in reference.results_files:
        for index in range(1, count + 1):
            if (name, index) not in seen:
                raise InputError(
                    f"shard {index}/{count} of {name} is missing: none of the "
                    f"{len(partials)} partial file(s) given holds it"
                )
    return {
        name: [seen[(name, index)] for index in range(1, count + 1)]
        for name in reference.results_files
    }


def _check_tasks(
    reference: PartialSection, partials: Sequence[Partial]
) -> list[tuple[Partial, _TaskModel]]:
    """Each task of the whole plan graded by exactly one shard; returned in plan order."""
    by_position: dict[int, tuple[Partial, _TaskModel]] = {}
    for partial in partials:
        for entry in partial.section.tasks:
            if entry.position in by_position:
                other = by_position[entry.position][0]
                raise InputError(
                    f"task {entry.test_id!r} is graded by both {other.label} "
                    f"({other.file.path}) and {partial.label}",
                    Location(str(partial.file.path), json_path=f"$.{PARTIAL_KEY}.tasks"),
                )
            by_position[entry.position] = (partial, entry)
    missing = [p for p in range(reference.total_tasks) if p not in by_position]
    if missing:
        raise InputError(
            f"{len(missing)} task(s) of the plan were graded by no shard (the partials were "
            "edited or come from a different version of waza-ci)"
        )
    return [by_position[position] for position in range(reference.total_tasks)]


def _merged_file(name: str, shards: Sequence[Partial]) -> MergedFile:
    # Shard 1's file is the base: every task it did not grade is either another shard's
    # (taken from there) or one no shard graded (identical in every partial).
    base = shards[0].file
    raw = {key: value for key, value in base.raw.items() if key != PARTIAL_KEY}
    tasks = list(raw["tasks"])
    for partial in shards:
        for entry in partial.section.tasks:
            tasks[entry.index] = partial.file.raw["tasks"][entry.index]
    raw["tasks"] = tasks
    return MergedFile(name, base, raw)


def _task_grade(partial: Partial, entry: _TaskModel, several: bool) -> TaskGrade:
    name = partial.section.results_name
    saved = partial.file.model.tasks[entry.index]
    program = set(entry.program_graders)
    errors = {(e.run, e.grader): e.error for e in entry.errors}
    return TaskGrade(
        key=f"{name}:{entry.test_id}" if several else entry.test_id,
        results_name=name,
        test_id=entry.test_id,
        display_name=entry.display_name,
        runs=tuple(
            _run_grade(run, program, errors, run_index) for run_index, run in enumerate(saved.runs)
        ),
        graders={g.name: GraderRef(g.name, g.kind, g.location.location()) for g in entry.graders},
        task_location=entry.location.location() if entry.location else None,
    )


def _run_grade(
    run: SavedRun, program: set[str], errors: dict[tuple[int, str], str], run_index: int
) -> RunGrade:
    if run.errored:  # not graded, as in grading.merge_run
        return RunGrade(
            run_number=run.run_number,
            status=STATUS_ERROR,
            verdicts=(),
            duration_ms=run.duration_ms,
            error_msg=run.error_msg or "run status was error",
        )
    verdicts = tuple(
        Verdict(
            name=name,
            kind=saved.type,
            score=saved.score,
            weight=saved.weight,
            passed=saved.passed,
            feedback=saved.feedback,
            regraded=name in program,
            error=errors.get((run_index, name)),
        )
        for name, saved in sorted((run.validations or {}).items())
    )
    return RunGrade(
        run_number=run.run_number,
        status=run_status(verdicts),
        verdicts=verdicts,
        duration_ms=run.duration_ms,
    )
