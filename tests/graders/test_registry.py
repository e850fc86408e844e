"""The registry picks a grader kind by the spec's `type`; a `prompt` grader and unknown kinds
keep their saved verdicts; `expected:` checks are found only among synthetic graders."""

from __future__ import annotations

import subprocess
import sys

from waza_ci.errors import Location
from waza_ci.graders import KINDS, SYNTHETIC_KINDS, kind_of
from waza_ci.graders.programs.program import ProgramGrader
from waza_ci.waza.kinds import MODEL_KINDS, PROCESS_KINDS
from waza_ci.waza.spec import GraderSpec, ProgramConfig

WAZA_KINDS = {
    "action_sequence",
    "behavior",
    "code",
    "diff",
    "file",
    "json_schema",
    "program",
    "prompt",
    "skill_invocation",
    "text",
    "tool_calls",
    "tool_constraint",
    "trigger",
}


def test_waza_s_kinds_are_the_thirteen_of_its_factory() -> None:
    # Each is graded again here or, needing a model, keeps its saved verdict.
    assert set(KINDS) | MODEL_KINDS == WAZA_KINDS


def test_the_kinds_that_start_a_process_are_the_ones_waza_kinds_names() -> None:
    # waza/kinds.py answers by name (saved verdicts, shard weights, the report); each kind
    # knows it of itself (the grading plan): the two must agree.
    assert {name for name, kind in KINDS.items() if not kind.in_process} == PROCESS_KINDS
    assert all(kind.in_process for kind in SYNTHETIC_KINDS.values())


def _grader(kind: str, *, synthetic: bool = False) -> GraderSpec:
    program = ProgramConfig("true", None, None) if kind == "program" else None
    return GraderSpec("g", kind, 1.0, Location("eval.yaml", 1), program, synthetic=synthetic)


def test_program_is_run_again_by_the_program_kind() -> None:
    assert isinstance(kind_of(_grader("program")), ProgramGrader)


def test_every_kind_of_waza_but_the_llm_judge_is_run_again() -> None:
    assert set(KINDS) == WAZA_KINDS - MODEL_KINDS
    assert {"prompt"} == MODEL_KINDS


def test_a_kind_that_needs_a_model_or_is_unknown_is_not_run_again() -> None:
    assert kind_of(_grader("prompt")) is None
    assert kind_of(_grader("")) is None
    assert kind_of(_grader("agent")) is None


def test_expected_checks_are_only_synthetic() -> None:
    assert set(SYNTHETIC_KINDS) == {"expected"}
    assert kind_of(_grader("expected")) is None  # a user's `type: expected` is no waza kind
    assert kind_of(_grader("expected", synthetic=True)) is SYNTHETIC_KINDS["expected"]


def test_every_registered_kind_is_keyed_by_its_own_name() -> None:
    for name, kind in {**KINDS, **SYNTHETIC_KINDS}.items():
        assert kind.kind == name


_LOAD_ONE_KIND = """\
import sys
from waza_ci.errors import Location
from waza_ci.graders import KINDS, is_regraded, kind_of
from waza_ci.waza.spec import GraderSpec, ProgramConfig
program = ProgramConfig("true", None, None)
grader = GraderSpec("g", "program", 1.0, Location("eval.yaml", 1), program)
assert is_regraded(GraderSpec("j", "json_schema", 1.0, Location("eval.yaml", 2), None))
assert "json_schema" in KINDS and len(KINDS) == 12
first = kind_of(grader)
assert kind_of(grader) is first
loaded = sorted(m for m in sys.modules if m.startswith("waza_ci.graders.") and m.count(".") > 2)
print(loaded, "re2" in sys.modules, "jsonschema_specifications" in sys.modules)
"""


def test_a_kind_loads_on_first_use_and_alone() -> None:
    # Start-up cost: a program-only spec never imports the other kinds or their libraries,
    # though every kind's name is known.
    done = subprocess.run(
        [sys.executable, "-c", _LOAD_ONE_KIND], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["['waza_ci.graders.programs.program']", "False", "False"]
