"""The real waza material of the corpus's `waza-wild/` (`WAZA_CI_CORPUS`; origins in its
PROVENANCE.md), read from there and never copied in: every eval spec loads unless waza refuses
it too (the list below, each with the reason both give), every results file loads and regrades
against its spec, a file that is not a results file is refused as what it is, and every
`.waza.yaml` is read as waza reads it.

They fail when `WAZA_CI_CORPUS` names a folder without the corpus and skip, saying why, when it
is unset or `none` (see `tests.conftest.require_shared`).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import SHARED, Project, corpus_wanted, require_shared, run_cli_process
from waza_ci.engine import GradeRequest, prepare_grading, run_grading
from waza_ci.errors import InputError
from waza_ci.waza.project_config import find_program_timeout
from waza_ci.waza.results import load_results
from waza_ci.waza.spec import load_eval

WILD = "waza-wild"
IN_PROCESS_KINDS_SEEN = {"text", "behavior"}
CORPUS = SHARED / WILD

_ESCAPE = (
    "a task file writes `\\.` in a double-quoted string: an escape YAML does not have, which "
    "waza's yaml.v3 refuses too (found unknown escape character)"
)
_PROMPT_FIXTURE = (
    "a grader test fixture of waza's with no `tasks:`: `waza grade` says 'no tasks found in spec'"
)
_TASKS_AS_MAPPINGS = (
    "its `tasks:` entries are mappings, not file globs: yaml.v3 cannot decode them into "
    "waza's `Tasks []string`"
)
REFUSED_SPECS: dict[str, tuple[str, str]] = {
    # path under waza-wild/: (what waza-ci says, why waza refuses it too)
    **{
        f"runs/thiagoalmedeiros-agentic-sdlc-wizard/fd7f20b/evals/{suite}/eval.yaml": (
            "found unknown escape character '.'",
            _ESCAPE,
        )
        for suite in (
            "sdlc-council-daedalus",
            "sdlc-council-hephaestus",
            "sdlc-devcontainer-setup",
            "sdlc-impl-strategy",
            "sdlc-lessons-learned",
            "sdlc-strategy-debate",
        )
    },
    "runs/microsoft-waza/index/internal/validation/testdata/eval-1.0.yaml": (
        "no tasks found in spec",
        "its `tasks/*.yaml` were not copied into the corpus, so waza finds no task either",
    ),
    "runs/microsoft-waza/snapshot-091a1f9e/internal/graders/testdata/eval-grader-prompt.yaml": (
        "no tasks found in spec",
        _PROMPT_FIXTURE,
    ),
    "specs/microsoft_waza_internal_graders_testdata_eval-grader-prompt.yaml/internal/graders/"
    "testdata/eval-grader-prompt.yaml": ("no tasks found in spec", _PROMPT_FIXTURE),
    "runs/microsoft-waza/snapshot-091a1f9e/skills/waza-interactive/tests/eval.yaml": (
        "`tasks[0]` must be a string",
        _TASKS_AS_MAPPINGS,
    ),
    "specs/microsoft_waza_skills_waza-interactive_tests_eval.yaml/skills/waza-interactive/tests/"
    "eval.yaml": ("`tasks[0]` must be a string", _TASKS_AS_MAPPINGS),
}

# Files waza writes that are not results files: refused, naming what they are.
NOT_RESULTS: dict[str, str] = {
    "runs/microsoft-waza/index/internal/testdata/compatibility/v1/snapshot-1.0.json": (
        "a waza task snapshot"
    ),
    "runs/microsoft-waza/index/internal/testdata/compatibility/v1/dashboard-legacy.json": (
        "a waza dashboard export"
    ),
}

# Results files that load but hold no run to grade: waza's `grade` prints an empty verdict and
# exits 0; waza-ci exits 2 saying no task had runs (docs/graders.md).
NOTHING_TO_GRADE: dict[str, str] = {
    "runs/microsoft-waza/index/internal/validation/testdata/results-1.0.json": (
        "waza's schema fixture: its one task has `runs: []`"
    ),
}

# `.waza.yaml` files waza itself throws away (so its 30 s program timeout applies).
REFUSED_PROJECT_CONFIGS: dict[str, tuple[str, str]] = {
    "project-config/marlon-costa-dc+ECC/.waza.yaml": (
        "line 28: cannot unmarshal !!seq into string",
        "`paths.skills` is a list; waza's PathsConfig.Skills is a string",
    ),
    "project-config/yanivpaz+waza-test-skill/.waza.yaml": (
        "line 3: field skill not found in type projectconfig.TokenLimitsConfig",
        "waza's TokenLimitsConfig has only `defaults` and `overrides`",
    ),
}

_SPEC_NAME = re.compile(r"(eval[^/]*|grade)\.ya?ml")
_TOP_LEVEL = re.compile(r"^(tasks|graders)\s*:", re.M)


def _specs() -> list[Path]:
    """`specs/<owner>_<repo>_<path>/`: the eval file at <path> (one per folder, beside files its
    folder shares with others); `runs/`: the sweep's own rule (PROVENANCE.md), every
    `eval*.yaml` / `grade.yaml` with a top-level `tasks:` or `graders:`."""
    swept = [
        path
        for folder in sorted((CORPUS / "specs").iterdir())
        for path in sorted(folder.rglob("*.y*ml"))
        if folder.name.endswith("_" + path.relative_to(folder).as_posix().replace("/", "_"))
    ]
    beside_runs = [
        path
        for path in sorted((CORPUS / "runs").rglob("*.y*ml"))
        if _SPEC_NAME.fullmatch(path.name)
        and _TOP_LEVEL.search(path.read_text(encoding="utf-8", errors="replace"))
    ]
    return swept + beside_runs


def _results() -> list[Path]:
    """The 28 results files: `results*.json`, grader-challenge candidates, showcase results."""
    runs = CORPUS / "runs"
    found = [
        *runs.rglob("results*.json"),
        *runs.rglob("candidates/*.json"),
        *runs.rglob("showcase-results/*.json"),
    ]
    return sorted(set(found))


def _params(paths: list[Path]) -> list[object]:
    if not corpus_wanted() or not CORPUS.is_dir():
        return [pytest.param(None, id=f"{WILD}-missing")]
    return [pytest.param(p, id=p.relative_to(CORPUS).as_posix()) for p in paths]


SPECS = _params(_specs()) if corpus_wanted() and CORPUS.is_dir() else _params([])
RESULTS = _params(_results()) if corpus_wanted() and CORPUS.is_dir() else _params([])


@pytest.mark.slow
def test_the_corpus_is_whole() -> None:
    require_shared(WILD)
    specs = _specs()
    assert sum(1 for p in specs if p.is_relative_to(CORPUS / "specs")) == 230
    assert len(_results()) == 28
    listed = {*REFUSED_SPECS, *NOT_RESULTS, *NOTHING_TO_GRADE, *REFUSED_PROJECT_CONFIGS}
    assert all((CORPUS / name).is_file() for name in listed)
    assert set(REFUSED_SPECS) <= {p.relative_to(CORPUS).as_posix() for p in specs}


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS)
def test_every_spec_loads_unless_waza_refuses_it_too(spec: Path | None) -> None:
    require_shared(WILD)
    assert spec is not None
    name = spec.relative_to(CORPUS).as_posix()
    if name not in REFUSED_SPECS:
        assert load_eval(spec, working_directory=spec.parent).tasks
        return
    message, _why_waza_refuses = REFUSED_SPECS[name]
    with pytest.raises(InputError) as caught:
        load_eval(spec, working_directory=spec.parent)
    assert message in caught.value.message
    assert caught.value.location is not None


@pytest.mark.slow
@pytest.mark.parametrize("results", RESULTS)
def test_every_results_file_loads_and_regrades(results: Path | None, project: Project) -> None:
    require_shared(WILD)
    assert results is not None
    doc = load_results(results)
    spec = _spec_for(results)
    if spec is None or spec.relative_to(CORPUS).as_posix() in REFUSED_SPECS:
        spec = _synthetic_spec(project, [task.test_id for task in doc.model.tasks])
    out = project.root / "regraded.json"
    result = run_cli_process(
        [
            "grade",
            str(spec),
            "--results",
            str(results),
            "--workspace",
            str(project.workspace),
            "--working-directory",
            str(spec.parent),
            "--output",
            str(out),
        ],
        cwd=project.root,
    )
    if results.relative_to(CORPUS).as_posix() in NOTHING_TO_GRADE:
        assert result.code == 2 and "no tasks were graded" in result.stderr, result.stderr
        return
    # 1: a saved or regraded verdict failed; 3: a grader could not run. Both mean it graded.
    assert result.code in (0, 1, 3), result.stderr
    regraded = json.loads(out.read_text())
    assert [t["test_id"] for t in regraded["tasks"]] == [t.test_id for t in doc.model.tasks]
    assert regraded["summary"]["total_tests"] == len(doc.model.tasks)


@pytest.mark.parametrize("name", sorted(NOT_RESULTS))
def test_files_that_are_not_results_files_are_refused_as_what_they_are(name: str) -> None:
    require_shared(WILD)
    with pytest.raises(InputError) as caught:
        load_results(CORPUS / name)
    assert str(caught.value).startswith(f"{CORPUS / name}: not evaluation results: ")
    assert NOT_RESULTS[name] in caught.value.message


@pytest.mark.slow
def test_every_waza_yaml_is_read_as_waza_reads_it() -> None:
    require_shared(WILD)
    configs = sorted(CORPUS.rglob(".waza.yaml"))
    with_files = [c for c in configs if re.search(r"^files:", c.read_text(), re.M)]
    assert len(configs) == 29 and len(with_files) >= 8
    for config in configs:
        name = config.relative_to(CORPUS).as_posix()
        timeout, warnings = find_program_timeout(config.parent)
        expected = re.search(r"^\s+programTimeout:\s*(\d+)", config.read_text(), re.M)
        if name in REFUSED_PROJECT_CONFIGS:
            assert timeout == 30, name  # waza discards the whole file
            (warning,) = warnings
            assert REFUSED_PROJECT_CONFIGS[name][0] in warning.message, name
            assert "waza discards this whole file" in warning.message, name
            continue
        assert timeout == (int(expected.group(1)) if expected else 30), name
        assert warnings == [], name


def _spec_for(results: Path) -> Path | None:
    """The spec a results file was made with, where the corpus has it beside the file."""
    if results.parent.name == "candidates":
        return results.parent.parent / "grade.yaml"
    # The spec of the eval the file names (waza writes the spec's `name` as `eval_name`): the
    # compatibility fixture's results-1.4.json was written by eval-1.0.yaml's eval, not by
    # eval-1.4.yaml (`compatibility-mocks`, which has no `answer` grader).
    eval_name = json.loads(results.read_text(encoding="utf-8")).get("eval_name")
    for spec in sorted(results.parent.glob("eval*.yaml")):
        if (yaml.safe_load(spec.read_text(encoding="utf-8")) or {}).get("name") == eval_name:
            return spec
    stem = results.stem.removeprefix("results")
    spec = results.parent / f"eval{stem}.yaml"
    return spec if spec.is_file() else None


def _synthetic_spec(project: Project, task_ids: list[str]) -> Path:
    """A spec of the results file's own tasks with one passing program grader, for results
    without a loadable spec in the corpus (waza's hand-made showcase files)."""
    script = project.write_grader("passes.py", "import sys; sys.stdin.read()\n")
    project.write_eval(project.program_grader("passes", script))
    for task_id in dict.fromkeys(task_ids):
        path = project.root / "tasks" / f"{len(list((project.root / 'tasks').glob('*')))}.yaml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"id: {json.dumps(task_id)}\n", encoding="utf-8")
    return project.eval_path


# Verdicts that waza really wrote, of kinds waza-ci now grades in its own process, and that do
# not come out the same, with why. Two: the hand-made compatibility fixtures, whose `text` verdict
# has an empty feedback no waza writes (waza's text grader always says something).
# Tasks of real runs that have no graded run: each really was not evaluated. The sherlock eval's
# trigger task: its only run errored in execution ("waiting for session.idle: context deadline
# exceeded", a timeout of the agent run).
NOT_EVALUATED_IN_THE_CORPUS = {
    "runs/thiagoalmedeiros-agentic-sdlc-wizard/24568cc/evals/sdlc-council-sherlock/results.json": {
        "positive-trigger-001"
    },
}

HAND_MADE_VERDICTS = {
    ("runs/microsoft-waza/index/internal/testdata/compatibility/v1/results-1.0.json", "answer"),
    ("runs/microsoft-waza/index/internal/testdata/compatibility/v1/results-1.4.json", "answer"),
}


@pytest.mark.slow
def test_saved_verdicts_of_in_process_kinds_come_out_as_waza_wrote_them() -> None:
    """Every saved verdict of a kind graded in process (the corpus holds `text` and `behavior`
    ones, written by real `waza run`s), graded again from the same run with the spec it was made
    with: the same pass, score, feedback and details, byte for byte once written."""
    require_shared(WILD)
    compared = 0
    for results in _results():
        spec = _spec_for(results)
        if spec is None or spec.relative_to(CORPUS).as_posix() in REFUSED_SPECS:
            continue
        report = run_grading(
            prepare_grading(
                GradeRequest(
                    eval_path=spec,
                    results=[str(results)],
                    working_directory=spec.parent,
                    workspace=spec.parent,
                    jobs=1,
                    grader_env={"PATH": os.defpath},
                )
            )
        )
        saved = json.loads(results.read_text(encoding="utf-8"))
        name = results.relative_to(CORPUS).as_posix()
        # A real run graded with its own spec is of that eval, and evaluated where it has runs.
        assert report.summary.another_eval == (), name
        not_evaluated = {t.test_id for t in report.summary.not_evaluated}
        assert not_evaluated == NOT_EVALUATED_IN_THE_CORPUS.get(name, set()), name
        for task_index, task in enumerate(report.regraded[0].raw["tasks"]):
            for run_index, run in enumerate(task.get("runs") or []):
                before = saved["tasks"][task_index]["runs"][run_index].get("validations") or {}
                for grader, verdict in (run.get("validations") or {}).items():
                    old = before.get(grader)
                    if old is None or verdict["type"] not in IN_PROCESS_KINDS_SEEN:
                        continue
                    if (name, grader) in HAND_MADE_VERDICTS:
                        assert old["passed"] == verdict["passed"]
                        continue
                    fields = ("type", "score", "weight", "passed", "feedback", "details")
                    assert {f: verdict.get(f) for f in fields} == {f: old.get(f) for f in fields}, (
                        f"{name}: {task['test_id']} run {run_index + 1} {grader}"
                    )
                    compared += 1
    assert compared >= 89  # 44 `text` and 45 `behavior` verdicts
