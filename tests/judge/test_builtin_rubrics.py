"""waza's built-in rubrics (`rubric: helpfulness`): read from waza's module cache, else from
waza's repository at the pinned commit through the contents API (the loopback fake GitHub),
kept in the cache; what cannot be had keeps the verdict and says why."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.fake_github import FakeGitHub
from waza_ci.engine.modules import ModuleSettings, builtin_rubrics
from waza_ci.errors import Location
from waza_ci.judge.builtin_rubrics import WAZA_COMMIT, BuiltinRubrics, rubric_path
from waza_ci.judge.config import RubricError, read_config
from waza_ci.waza.modules.ref import ModuleRef
from waza_ci.waza.modules.resolve import FetchError
from waza_ci.waza.spec import GraderSpec

# A rubric in waza's format, written for these tests (waza's own texts are read at run time).
RUBRIC = b"""---
name: helpfulness
version: 1.0.0
scale: pass-fail
description: A stand-in written for the tests.
---

# Stand-in

Pass a response that answers the question.
"""
BODY = "# Stand-in\n\nPass a response that answers the question."


def cached_at(cache: Path, name: str = "helpfulness") -> Path:
    return cache / "github.com" / "microsoft" / "waza" / WAZA_COMMIT / rubric_path(name)


def never_fetch(ref: ModuleRef, commit: str, path: str) -> bytes:
    raise AssertionError(f"fetched {path} although the cache has it")


def grader(config: str) -> GraderSpec:
    node = yaml.compose(config)
    assert isinstance(node, yaml.MappingNode)
    return GraderSpec("judged", "prompt", 1.0, Location("eval.yaml", 3), config=node)


def test_a_cached_rubric_is_read_without_asking_github(tmp_path: Path) -> None:
    cached_at(tmp_path).parent.mkdir(parents=True)
    cached_at(tmp_path).write_bytes(RUBRIC)
    rubric = BuiltinRubrics(tmp_path, never_fetch).load("helpfulness")
    assert (rubric.name, rubric.version, rubric.scale) == ("helpfulness", "1.0.0", "pass-fail")
    assert rubric.body == BODY and rubric.source == "builtin:helpfulness"


def test_a_missing_rubric_is_fetched_at_the_pinned_commit_and_kept_in_the_cache(
    tmp_path: Path,
) -> None:
    with FakeGitHub() as fake:
        fake.add_file("microsoft/waza", WAZA_COMMIT, rubric_path("helpfulness"), RUBRIC)
        settings = ModuleSettings(tmp_path, api_url=fake.url)
        with builtin_rubrics(settings, fetch=True) as load:
            assert load("helpfulness").body == BODY
        (request,) = fake.requests
    assert request.path == "/repos/microsoft/waza/contents/" + rubric_path("helpfulness")
    assert request.query == {"ref": [WAZA_COMMIT]}
    assert cached_at(tmp_path).read_bytes() == RUBRIC
    # The next grading reads the cache, even one that keeps its verdicts.
    with builtin_rubrics(settings, fetch=False) as load:
        assert load("helpfulness").source == "builtin:helpfulness"


def test_a_rubric_github_does_not_have_names_the_url(tmp_path: Path) -> None:
    with (
        FakeGitHub() as fake,
        builtin_rubrics(ModuleSettings(tmp_path, fake.url), fetch=True) as load,
    ):
        with pytest.raises(RubricError) as raised:
            load("groundedness")
        assert f"{fake.url}/repos/microsoft/waza/contents/" in str(raised.value)
    assert "built-in rubric 'groundedness' could not be read from waza's source" in str(
        raised.value
    )
    assert not cached_at(tmp_path, "groundedness").exists()


def test_a_grading_that_keeps_its_verdicts_fetches_nothing(tmp_path: Path) -> None:
    with FakeGitHub() as fake:
        fake.add_file("microsoft/waza", WAZA_COMMIT, rubric_path("helpfulness"), RUBRIC)
        only_cache = builtin_rubrics(ModuleSettings(tmp_path, fake.url), fetch=False)
        with only_cache as load, pytest.raises(RubricError, match=r"only a grading that re-judges"):
            load("helpfulness")
        assert fake.requests == []


def test_a_fetched_file_waza_would_refuse_is_refused_in_waza_s_words(tmp_path: Path) -> None:
    cached_at(tmp_path).parent.mkdir(parents=True)
    cached_at(tmp_path).write_bytes(b"# no frontmatter\n")
    with pytest.raises(RubricError) as raised:
        BuiltinRubrics(tmp_path).load("helpfulness")
    assert str(raised.value) == (
        'parse built-in rubric "helpfulness": rubric must start with --- frontmatter'
    )


def test_the_grader_config_takes_the_rubric_s_body_as_its_prompt(tmp_path: Path) -> None:
    cached_at(tmp_path).parent.mkdir(parents=True)
    cached_at(tmp_path).write_bytes(RUBRIC)
    config = read_config(grader("rubric: helpfulness"), tmp_path, BuiltinRubrics(tmp_path).load)
    assert config.prompt == BODY and not config.unavailable
    assert config.rubric is not None and config.rubric.source == "builtin:helpfulness"
    # Without a source, or when the source cannot give it, the verdict is kept and says why.
    kept = read_config(grader("rubric: groundedness"), tmp_path, BuiltinRubrics(tmp_path).load)
    assert "built-in rubric 'groundedness' is waza's" in kept.unavailable
    assert (
        "no source for waza's rubrics"
        in read_config(grader("rubric: helpfulness"), tmp_path).unavailable
    )


def test_each_name_is_read_once_though_every_task_asks(tmp_path: Path) -> None:
    # A cache that cannot be written (a file where its folder would go): without the memory,
    # every task's copy of the grader would fetch again.
    (tmp_path / "github.com").write_text("not a folder")
    asked: list[str] = []

    def fetch(ref: ModuleRef, commit: str, path: str) -> bytes:
        asked.append(path)
        if path.endswith("groundedness.md"):
            raise FetchError("not found", "http://127.0.0.1/x")
        return RUBRIC

    rubrics = BuiltinRubrics(tmp_path, fetch)
    for _ in range(3):
        assert rubrics.load("helpfulness").body == BODY
        with pytest.raises(RubricError, match="could not be read"):
            rubrics.load("groundedness")
    assert asked == [rubric_path("helpfulness"), rubric_path("groundedness")]
