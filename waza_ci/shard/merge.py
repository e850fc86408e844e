"""Join the partial results files of N shards into what one unsharded grading produces.

Each partial is a regraded results file holding the tasks its shard graded (shard 1 also the
tasks no shard grades), plus a `waza_ci` section (see section.py). The merge checks that the
partials come from the same inputs and cover every shard of every results file exactly once,
with every task held and graded once; any problem is an InputError naming the shard and the
file. It then puts each file back together in its order and rebuilds the report's view of each
task (verdicts, run status) with grading/verdicts.py's and waza/scoring.py's functions. The
stats of a task were computed by its shard with the same function an unsharded run uses and
travel in its results file; the engine rebuilds the top-level digest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from waza_ci.errors import InputError, Location
from waza_ci.grading.verdicts import errored_run_grade, saved_verdict
from waza_ci.shard.plan import PARTIAL_FORMAT, PARTIAL_KEY
from waza_ci.shard.section import (
    SECTION_NAMES,
    PartialSection,
    TaskModel,
    VerdictModel,
)
from waza_ci.waza.identity import AnotherEval, EvalIdentity
from waza_ci.waza.results import ResultsFile, SavedRun, SavedVerdict
from waza_ci.waza.results_errors import describe_error
from waza_ci.waza.scoring import (
    Diagnosis,
    GraderRef,
    Problem,
    RunGrade,
    SkippedTask,
    TaskGrade,
    run_status,
)
from waza_ci.waza.spec import LoadWarning


@dataclass(frozen=True)
class Partial:
    file: ResultsFile
    section: PartialSection
    local: dict[int, int]
    """A task's index in the results file -> its index in this partial's `tasks`."""

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
    elapsed_ms: int = 0
    """The longest shard's grading time: the shards run side by side."""
    task_filter: str | None = None
    """The one task id (`--task`) the shards were cut to (their inputs digest holds it too)."""
    eval_identity: EvalIdentity = field(default_factory=lambda: EvalIdentity("", ""))
    another_eval: tuple[AnotherEval, ...] = ()
    """The results files that the shards found to be of another eval."""


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
        message, where = describe_error(
            PartialSection, err.errors()[0], structs=SECTION_NAMES, owner="waza-ci's"
        )
        path = f"$.{PARTIAL_KEY}{where.removeprefix('$')}"
        raise InputError(message, Location(str(file.path), json_path=path)) from None
    return Partial(file, section, _check_section(file, section))


def _check_section(file: ResultsFile, section: PartialSection) -> dict[int, int]:
    def fail(message: str, path: str) -> InputError:
        return InputError(message, Location(str(file.path), json_path=f"$.{PARTIAL_KEY}{path}"))

    shard = section.shard
    if shard.count < 1 or not 1 <= shard.index <= shard.count:
        raise fail(f"shard {shard.index}/{shard.count} is not a shard I/N", ".shard")
    if section.results_name not in section.results_files:
        raise fail(f"results file {section.results_name!r} is not listed", ".results_name")
    tasks = file.model.tasks
    indexes = section.task_indexes
    if len(indexes) != len(tasks) or not all(0 <= i < section.results_tasks for i in indexes):
        raise fail(f"does not list the file's {len(tasks)} task(s)", ".task_indexes")
    local = {index: number for number, index in enumerate(indexes)}
    for number, entry in enumerate(section.tasks):
        at = local.get(entry.index)
        if at is None or tasks[at].test_id != entry.test_id:
            raise fail(f"task {entry.test_id!r} is not in the file", f".tasks[{number}]")
        if not 0 <= entry.position < section.total_tasks:
            raise fail(f"task position {entry.position} is out of range", f".tasks[{number}]")
    return local


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
        elapsed_ms=max(p.section.elapsed_ms for p in partials),
        task_filter=section.task_filter,
        eval_identity=EvalIdentity(section.eval.name, section.eval.skill),
        another_eval=tuple(
            {a.file: a.another_eval() for p in partials for a in p.section.another_eval}.values()
        ),
    )


def _check_same_inputs(reference: Partial, partial: Partial) -> None:
    ref, other = reference.section, partial.section
    if other.shard.count != ref.shard.count:
        raise InputError(
            f"{partial.label} was cut into {other.shard.count} shards, but "
            f"{reference.file.path} into {ref.shard.count}",
            Location(str(partial.file.path), json_path=f"$.{PARTIAL_KEY}.shard"),
        )
    _check_same_modules(reference, partial)
    if other.inputs_digest != ref.inputs_digest:
        raise InputError(
            f"{partial.label} was graded from other inputs than {reference.file.path} "
            f"(inputs digest {other.inputs_digest[:12]}… vs {ref.inputs_digest[:12]}…): "
            "every shard needs the same eval, task files, results files and graders",
            Location(str(partial.file.path), json_path=f"$.{PARTIAL_KEY}.inputs_digest"),
        )


def _check_same_modules(reference: Partial, partial: Partial) -> None:
    """Every shard graded with the same grader modules: each `ref:` at the same commit and
    digest (a shard that read another waza.lock would grade with other graders)."""
    mine = {m.ref: m for m in reference.section.modules}
    theirs = {m.ref: m for m in partial.section.modules}
    for ref in sorted(mine.keys() | theirs.keys()):
        one, other = mine.get(ref), theirs.get(ref)
        if one == other:
            continue
        said = [
            f"{label} {'has no such ref' if m is None else f'at {m.commit}, {m.digest}'}"
            for label, m in ((str(reference.file.path), one), (partial.label, other))
        ]
        raise InputError(
            f"the shards resolved `ref: {ref}` differently ({'; '.join(said)}): every shard "
            "must grade with the same waza.lock",
            Location(str(partial.file.path), json_path=f"$.{PARTIAL_KEY}.modules"),
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
) -> list[tuple[Partial, TaskModel]]:
    """Each task of the whole plan graded by exactly one shard; returned in plan order."""
    by_position: dict[int, tuple[Partial, TaskModel]] = {}
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
    """The results file put back together: every task from the one partial holding it, in
    the file's order; the other fields from shard 1's (the same in every partial)."""
    count = shards[0].section.results_tasks
    tasks: list[Any] = [None] * count
    holder: dict[int, Partial] = {}
    for partial in shards:
        for index, task in zip(
            partial.section.task_indexes, partial.file.raw["tasks"], strict=True
        ):
            if index in holder:
                raise InputError(
                    f"$.tasks[{index}] of {name} is in both {holder[index].label} "
                    f"({holder[index].file.path}) and {partial.label}",
                    Location(str(partial.file.path), json_path=f"$.{PARTIAL_KEY}.task_indexes"),
                )
            holder[index] = partial
            tasks[index] = task
    if len(holder) != count:
        missing = min(set(range(count)) - set(holder))
        raise InputError(f"$.tasks[{missing}] of {name} is in none of its partials")
    base = shards[0].file
    raw = {key: value for key, value in base.raw.items() if key != PARTIAL_KEY}
    raw["tasks"] = tasks
    return MergedFile(name, base, raw)


def _task_grade(partial: Partial, entry: TaskModel, several: bool) -> TaskGrade:
    name = partial.section.results_name
    saved = partial.file.model.tasks[partial.local[entry.index]]
    graders = {
        g.name: GraderRef(
            g.name, g.kind, g.location.location(), g.module.pin() if g.module else None
        )
        for g in entry.graders
    }
    regraded = entry.regraded_graders
    shard_work = _ShardWork(
        graders=graders,
        program=frozenset(entry.program_graders),
        regraded=frozenset(entry.program_graders if regraded is None else regraded),
        extras={(v.run, v.grader): v for v in entry.verdicts},
        ungraded={(u.run, u.grader) for u in entry.ungraded},
        dropped=[(d.run, d.grader, d.saved_passed) for d in entry.dropped],
    )
    return TaskGrade(
        key=f"{name}:{entry.test_id}" if several else entry.test_id,
        results_name=name,
        test_id=entry.test_id,
        display_name=entry.display_name,
        runs=tuple(
            _run_grade(run, shard_work, run_index) for run_index, run in enumerate(saved.runs)
        ),
        graders=graders,
        task_location=entry.location.location() if entry.location else None,
    )


@dataclass(frozen=True)
class _ShardWork:
    """What a shard's section says of one task's graders, beyond its results file."""

    graders: dict[str, GraderRef]
    program: frozenset[str]
    regraded: frozenset[str]
    extras: dict[tuple[int, str], VerdictModel]
    ungraded: set[tuple[int, str]]
    dropped: list[tuple[int, str, bool]]


def _run_grade(run: SavedRun, work: _ShardWork, run_index: int) -> RunGrade:
    if run.errored:
        return errored_run_grade(run)
    verdicts = []
    for name, saved in sorted((run.validations or {}).items()):
        extra = work.extras.get((run_index, name))
        regraded = name in work.regraded
        ref = work.graders.get(name)
        verdicts.append(
            saved_verdict(
                name,
                saved,
                regraded=regraded,
                error=extra.error if extra else None,
                notes=tuple(extra.notes) if extra else (),
                diagnosis=_diagnosis(saved, extra) if name in work.program else None,
                kind=ref.kind if regraded and ref is not None else None,
                saved_passed=extra.saved_passed if extra else None,
                saved_score=extra.saved_score if extra else None,
            )
        )
    return RunGrade(
        run_number=run.run_number,
        status=run_status(verdicts),
        verdicts=tuple(verdicts),
        duration_ms=run.duration_ms,
        ungraded=tuple(sorted(grader for index, grader in work.ungraded if index == run_index)),
        dropped=tuple((name, passed) for index, name, passed in work.dropped if index == run_index),
    )


def _diagnosis(saved: SavedVerdict, extra: VerdictModel | None) -> Diagnosis:
    """A shard's program verdict as the report needs it: the program's output, kept in waza's
    `details`, and, for a grader error, its kind and a timeout's limit, from the section."""
    details = saved.details or {}
    return Diagnosis(
        exit_error=_text(details.get("exit_error")) or None,
        stdout=_text(details.get("stdout")),
        stderr=_text(details.get("stderr")),
        problem=Problem(extra.problem) if extra and extra.problem else None,
        timeout_s=extra.timeout_s if extra else None,
        timeout_source=extra.timeout_source if extra else "",
        start_problem=extra.start_problem if extra else None,
        found_from=extra.found_from if extra else None,
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
