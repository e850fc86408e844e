"""The registry picks a grader kind by the spec's `type`; unregistered kinds keep their verdicts."""

from __future__ import annotations

from waza_ci.graders import KINDS, kind_of
from waza_ci.graders.program import ProgramGrader


def test_program_is_the_kind_waza_ci_runs_again() -> None:
    assert isinstance(kind_of("program"), ProgramGrader)
    assert set(KINDS) == {"program"}


def test_a_kind_that_needs_a_model_is_not_run_again() -> None:
    assert kind_of("prompt") is None
    assert kind_of("") is None


def test_every_registered_kind_is_keyed_by_its_own_name() -> None:
    for name, kind in KINDS.items():
        assert kind.kind == name
