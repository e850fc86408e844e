"""`ref:` grader entries in eval.yaml and task files, resolved while the spec loads: through
waza.lock and waza's module cache (and a fetch, when given one), into ordinary graders."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Project
from tests.grader_modules import COMMIT, GraderModule, lock_module, write_lock
from waza_ci.errors import EXIT_GRADER_ERROR, EXIT_INPUT_ERROR, InputError, SetupError
from waza_ci.waza.modules.ref import ModulePin, ModuleRef
from waza_ci.waza.modules.resolve import FetchError, ModuleResolver
from waza_ci.waza.spec import EvalSpec, load_eval

MODULE = GraderModule()
REF = MODULE.ref()


def load(project: Project, cache: Path, fetch: object = None) -> EvalSpec:
    if not project.eval_path.exists():
        project.write_eval()
    resolver = ModuleResolver(project.eval_path, cache, fetch)  # type: ignore[arg-type]
    return load_eval(project.eval_path, working_directory=project.root, modules=resolver)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def test_a_ref_in_the_eval_and_in_a_task_file_become_ordinary_graders(
    project: Project, cache: Path
) -> None:
    MODULE.put_in_cache(cache)
    lock_module(project.root, MODULE)
    project.write_eval(f"- ref: {REF}\n  name: global_mentions\n")
    project.write_task("t1", graders=f"- ref: {REF}\n  weight: 2\n")
    (task,) = load(project, cache).tasks
    by_name = {g.name: g for g in task.graders}
    assert set(by_name) == {"global_mentions", "mentions"}  # unnamed: named after the export
    for grader in by_name.values():
        assert grader.kind == "text"
        assert grader.module == ModulePin(REF, COMMIT, MODULE.digest())
        assert grader.config is not None
    assert by_name["mentions"].weight == 2.0 and by_name["global_mentions"].weight == 1.0
    assert by_name["global_mentions"].location.file.endswith("eval.yaml")
    assert by_name["mentions"].location.file.endswith("t1.yaml")
    assert by_name["mentions"].location.line == 4  # the `- ref:` entry's line


def test_the_expanded_name_decides_which_grader_a_task_keeps(project: Project, cache: Path) -> None:
    """waza merges a task's graders by name after expansion: the preset's name counts."""
    MODULE.put_in_cache(cache)
    lock_module(project.root, MODULE)
    project.write_eval("- type: text\n  name: mentions\n  config: {contains: [x]}\n")
    project.write_task("t1", graders=f"- ref: {REF}\n")
    (task,) = load(project, cache).tasks
    assert [(g.name, g.module is not None) for g in task.graders] == [("mentions", True)]


@pytest.mark.parametrize("layout", ["", "source"])
def test_both_cache_layouts_are_read_with_no_fetch(
    project: Project, cache: Path, layout: str
) -> None:
    MODULE.put_in_cache(cache, layout=layout)
    lock_module(project.root, MODULE)
    project.write_task("t1", graders=f"- ref: {REF}\n")

    def no_fetch(ref: ModuleRef, commit: str, path: str) -> bytes:
        raise AssertionError(f"fetched {path}")

    (task,) = load(project, cache, no_fetch).tasks
    assert task.graders[0].kind == "text"


def test_what_the_cache_lacks_is_fetched_at_the_locked_commit_and_cached(
    project: Project, cache: Path
) -> None:
    lock_module(project.root, MODULE)
    project.write_task("t1", graders=f"- ref: {REF}\n")
    asked: list[tuple[str, str]] = []
    files = MODULE.files()

    def fetch(ref: ModuleRef, commit: str, path: str) -> bytes:
        asked.append((commit, path))
        return files[path]

    load(project, cache, fetch)
    assert asked == [(COMMIT, "waza.registry.yaml"), (COMMIT, "graders/mentions.yaml")]
    folder = MODULE.folder(cache)
    assert (folder / "graders" / "mentions.yaml").read_bytes() == files["graders/mentions.yaml"]
    asked.clear()
    load(project, cache, fetch)
    assert asked == []  # the next load reads the cache


def _error(project: Project, cache: Path, fetch: object = None) -> InputError | SetupError:
    with pytest.raises((InputError, SetupError)) as caught:
        load(project, cache, fetch)
    assert isinstance(caught.value, InputError | SetupError)
    return caught.value


def test_no_lock_is_refused_with_the_fix_at_the_graders_line(project: Project, cache: Path) -> None:
    MODULE.put_in_cache(cache)
    project.write_task("t1", graders=f"- ref: {REF}\n")
    err = _error(project, cache)
    assert err.exit_code == EXIT_INPUT_ERROR
    assert "waza.lock" in err.message and "run `waza get" in err.message
    assert "commit waza.lock" in err.message
    assert err.location is not None and err.location.line == 4
    assert "unsupported grader type" not in err.message


def test_a_ref_missing_from_the_lock_is_refused_with_the_fix(project: Project, cache: Path) -> None:
    MODULE.put_in_cache(cache)
    lock_module(project.root, MODULE)
    other = MODULE.ref(version="v1.0.1")
    project.write_task("t1", graders=f"- ref: {other}\n")
    err = _error(project, cache)
    assert f"`ref: {other}` is not in" in err.message and "waza get" in err.message


def test_a_preset_changed_under_its_commit_is_refused_naming_both_digests(
    project: Project, cache: Path
) -> None:
    lock_module(project.root, MODULE)
    changed = GraderModule(presets={"mentions": ("graders/mentions.yaml", b"type: text\n")})
    changed.put_in_cache(cache)
    project.write_task("t1", graders=f"- ref: {REF}\n")
    err = _error(project, cache)
    assert err.exit_code == EXIT_INPUT_ERROR
    assert MODULE.digest() in err.message and changed.digest() in err.message
    assert "changed under the pinned commit" in err.message
    assert err.location is not None and err.location.file.endswith("waza.lock")


def test_fetched_content_that_fails_the_digest_is_never_cached(
    project: Project, cache: Path
) -> None:
    lock_module(project.root, MODULE)
    project.write_task("t1", graders=f"- ref: {REF}\n")
    files = {**MODULE.files(), "graders/mentions.yaml": b"type: text\n"}
    err = _error(project, cache, lambda ref, commit, path: files[path])
    assert "digest mismatch" in err.message and "GitHub at commit" in err.message
    assert not (MODULE.folder(cache) / "graders" / "mentions.yaml").exists()


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("- ref: github.com/acme/wazamods#nope@v1.0.0\n", 'export "nope" not found'),
        ("- ref: github.com/acme/wazamods#mentions@main\n", "floating selectors"),
        (f"- ref: {REF}\n  weight: heavy\n", "weight` must be a number"),
    ],
)
def test_what_waza_refuses_of_a_ref_is_exit_2(
    project: Project, cache: Path, entry: str, message: str
) -> None:
    module = GraderModule()
    module.put_in_cache(cache)
    write_lock(
        project.root,
        {
            REF: (module, module.digest()),
            "github.com/acme/wazamods#nope@v1.0.0": (module, module.digest()),
        },
    )
    project.write_task("t1", graders=entry)
    err = _error(project, cache)
    assert err.exit_code == EXIT_INPUT_ERROR
    assert message in err.message


def test_a_preset_field_of_the_wrong_type_is_refused_at_the_entry(
    project: Project, cache: Path
) -> None:
    module = GraderModule(
        presets={"mentions": ("graders/mentions.yaml", b"type: text\nweight: [1]\n")}
    )
    module.put_in_cache(cache)
    lock_module(project.root, module)
    project.write_task("t1", graders=f"- ref: {REF}\n")
    err = _error(project, cache)
    assert (
        err.message
        == f"invalid grader from `ref: {REF}`: `weight` must be a number, not a list or mapping"
    )
    assert err.location is not None and err.location.line == 4


def test_a_preset_without_type_is_refused(project: Project, cache: Path) -> None:
    module = GraderModule(presets={"mentions": ("graders/mentions.yaml", b"name: x\n")})
    module.put_in_cache(cache)
    lock_module(project.root, module)
    project.write_task("t1", graders=f"- ref: {REF}\n")
    assert "missing required 'type' field" in _error(project, cache).message


def test_an_invalid_locked_commit_is_refused_before_any_path_is_made(
    project: Project, cache: Path
) -> None:
    lock = lock_module(project.root, MODULE)
    lock.write_text(lock.read_text().replace(COMMIT, "../../../etc"))
    project.write_task("t1", graders=f"- ref: {REF}\n")
    assert 'invalid commit SHA "../../../etc"' in _error(project, cache).message


def test_a_cache_miss_with_nothing_to_fetch_is_a_setup_error(project: Project, cache: Path) -> None:
    lock_module(project.root, MODULE)
    project.write_task("t1", graders=f"- ref: {REF}\n")
    err = _error(project, cache)
    assert err.exit_code == EXIT_GRADER_ERROR
    assert "is not in the module cache" in err.message and "--module-cache" in err.message


def test_a_fetch_that_fails_is_a_setup_error_naming_the_url(project: Project, cache: Path) -> None:
    lock_module(project.root, MODULE)
    project.write_task("t1", graders=f"- ref: {REF}\n")

    def fails(ref: ModuleRef, commit: str, path: str) -> bytes:
        raise FetchError("HTTP 404: Not Found", f"https://api.example/{path}")

    err = _error(project, cache, fails)
    assert err.exit_code == EXIT_GRADER_ERROR
    assert "https://api.example/waza.registry.yaml" in err.message and "404" in err.message


def test_an_eval_without_refs_needs_no_lock_and_no_cache(project: Project, tmp_path: Path) -> None:
    project.write_task("t1", graders="- type: text\n  name: t\n  config: {contains: [x]}\n")
    spec = load(project, tmp_path / "absent")
    assert spec.modules == () and not (tmp_path / "absent").exists()
