"""The cyclic collector is paused while results are loaded, graded and written:
walking millions of just-made containers again at every collection added a quarter to
in-process grading and 0.12 s to loading 100 MB of results. Whichever engine call a caller
makes, the pause covers it, and the collector is running again afterwards."""

from __future__ import annotations

import gc
import os
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import DEMO
from waza_ci import engine
from waza_ci.engine import EvaluationRequest, GradeRequest, evaluate, prepare_grading, run_grading


def _request() -> GradeRequest:
    return GradeRequest(
        eval_path=DEMO / "eval.yaml",
        results=[str(DEMO / "results.json")],
        workspace=DEMO / "workspace",
        working_directory=DEMO,
        jobs=2,
        grader_env=dict(os.environ),
        temp_dir=tempfile.gettempdir(),
    )


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, bool]]:
    """Whether the collector ran while the results were loaded and while they were graded."""
    states: dict[str, bool] = {}
    load, grade = engine.load_results_files, getattr(engine, "run_plan")  # noqa: B009 - imported there

    def loading(*args: Any, **kwargs: Any) -> Any:
        states["loading"] = gc.isenabled()
        return load(*args, **kwargs)

    def grading(*args: Any, **kwargs: Any) -> Any:
        states["grading"] = gc.isenabled()
        return grade(*args, **kwargs)

    monkeypatch.setattr(engine, "load_results_files", loading)
    monkeypatch.setattr(engine, "run_plan", grading)
    assert gc.isenabled()
    yield states
    assert gc.isenabled(), "the collector runs again afterwards"


def test_a_library_caller_of_run_grading_grades_with_the_collector_paused(
    seen: dict[str, bool],
) -> None:
    run_grading(prepare_grading(_request()))
    assert seen == {"loading": True, "grading": False}  # prepare_grading alone: not paused


def test_evaluate_pauses_it_from_loading_to_writing(seen: dict[str, bool]) -> None:
    evaluate(EvaluationRequest(grading=_request()))
    assert seen == {"loading": False, "grading": False}
