"""waza's grader-module formats: the ref grammar, waza.lock, the manifest, the cache layout and
the merge of an entry into its preset (waza_ci/waza/modules)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.grader_modules import COMMIT, GraderModule, lock_module
from waza_ci.errors import InputError
from waza_ci.golang.yaml import child, node_value
from waza_ci.waza.modules.cache import cached_file, digest
from waza_ci.waza.modules.expand import expand_entry
from waza_ci.waza.modules.lock import load_lockfile
from waza_ci.waza.modules.manifest import parse_manifest, preset_path
from waza_ci.waza.modules.ref import ModuleRef, RefError, parse_ref

SHA = "a" * 40


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "github.com/waza-evals/fact#factuality@v1.0.0",
            ("waza-evals", "fact", "", "factuality", "v1.0.0"),
        ),
        (
            "  github.com/o/r/graders/sub@v2.1.3-rc.1+build.7 ",
            ("o", "r", "graders/sub", "", "v2.1.3-rc.1+build.7"),
        ),
        (f"github.com/o/r#x@{SHA}", ("o", "r", "", "x", SHA)),
        # `@` splits at the last one, `#` at the first: waza's order.
        ("github.com/o/r#a#b@v1.0.0", ("o", "r", "", "a#b", "v1.0.0")),
    ],
)
def test_refs_parse_as_waza_parses_them(text: str, expected: tuple[str, ...]) -> None:
    ref = parse_ref(text)
    assert (ref.owner, ref.repo, ref.path, ref.export, ref.version) == expected
    assert ref.raw == text.strip() and ref.module == f"github.com/{ref.owner}/{ref.repo}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "ref is empty"),
        ("github.com/o/r#x", 'ref "github.com/o/r#x" missing @version selector'),
        ("github.com/o/r#x@", "has empty version"),
        ("github.com/o/r#@v1.0.0", "has empty export after '#'"),
        ("github.com/o@v1.0.0", "must be host/owner/repo[/path][#export]@version"),
        ("github.com//r#x@v1.0.0", "has empty host/owner/repo segment"),
        ("gitlab.com/o/r#x@v1.0.0", 'only github.com is supported in Phase 1 (got "gitlab.com")'),
        ("github.com/o/r/graders/x#x@v1.0.0", "cannot combine subpath and #export syntax"),
        ("github.com/o/r#x@main", 'version "main" must be a semver tag (vX.Y.Z) or 40-char'),
        ("github.com/o/r#x@v1.0", "floating selectors are not allowed"),
        ("github.com/o/r#x@" + "A" * 40, "must be a semver tag"),
        ("github.com/o/r#x@v\u0661.0.0", "must be a semver tag"),  # Go's \d is ASCII only
        ("github.com/../r#x@v1.0.0", 'invalid path segment ".."'),
        ("github.com/o/r/graders/../../x@v1.0.0", 'invalid path segment ".."'),
        ("github.com/o/c:r#x@v1.0.0", "invalid path segment"),
    ],
)
def test_refs_waza_refuses_are_refused_in_its_words(text: str, message: str) -> None:
    with pytest.raises(RefError, match=None) as caught:
        parse_ref(text)
    assert message in str(caught.value)


def test_a_grader_without_a_name_is_named_after_the_export_or_the_subpath() -> None:
    assert parse_ref("github.com/o/r#factuality@v1.0.0").default_name == "factuality"
    assert parse_ref("github.com/o/r/graders/sub.yaml@v1.0.0").default_name == "sub"
    assert parse_ref("github.com/o/r/graders/sub@v1.0.0").default_name == "sub"


# --- waza.lock ----------------------------------------------------------------------------------


def test_the_lock_waza_get_writes_is_read(tmp_path: Path) -> None:
    module = GraderModule()
    lock = load_lockfile(lock_module(tmp_path, module))
    assert lock is not None
    entry = lock.lookup(module.ref())
    assert entry is not None
    assert (entry.commit, entry.digest, entry.version) == (COMMIT, module.digest(), "v1.0.0")
    assert entry.location.line == 5  # the entry's line (after two comments), for messages
    assert lock.lookup(module.ref(version="v1.0.1")) is None  # looked up exactly as written


def test_no_lock_is_none_and_an_empty_lock_has_no_entry(tmp_path: Path) -> None:
    assert load_lockfile(tmp_path / "waza.lock") is None
    (tmp_path / "waza.lock").write_text("# nothing yet\n")
    lock = load_lockfile(tmp_path / "waza.lock")
    assert lock is not None and lock.entries == ()


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("schema_version: 2\nmodules: []\n", "unsupported schema_version 2 (expected 1)", 1),
        ("schema_version: 1\nmodules:\n  - ref: [a]\n", "`modules[0].ref` must be a string", 3),
        ("schema_version: 1\nmodules: {}\n", "`modules` must be a list", 2),
        ("graders:\n  - ref: x\n", "lists `graders:`", 2),
        ("schema_version: 1\nmodules: [\n", "invalid YAML", 3),
    ],
)
def test_a_lock_waza_refuses_is_refused_at_its_line(
    tmp_path: Path, text: str, message: str, line: int
) -> None:
    (tmp_path / "waza.lock").write_text(text)
    with pytest.raises(InputError) as caught:
        load_lockfile(tmp_path / "waza.lock")
    assert message in caught.value.message
    assert caught.value.location is not None and caught.value.location.line == line


# --- the manifest and the preset's path --------------------------------------------------------


def _manifest(tmp_path: Path, text: str) -> tuple[Path, str]:
    return tmp_path / "waza.registry.yaml", text


def test_an_export_is_looked_up_in_the_manifest(tmp_path: Path) -> None:
    manifest = parse_manifest(*_manifest(tmp_path, GraderModule().manifest().decode()))
    assert preset_path(manifest, parse_ref("github.com/o/r#mentions@v1.0.0")) == (
        "graders/mentions.yaml"
    )
    with pytest.raises(InputError, match=r'export "nope" not found .*\(available: \[mentions\]\)'):
        preset_path(manifest, parse_ref("github.com/o/r#nope@v1.0.0"))


def test_a_path_ref_names_its_file_and_gets_yaml_added() -> None:
    assert preset_path(None, parse_ref("github.com/o/r/graders/x@v1.0.0")) == "graders/x.yaml"
    assert preset_path(None, parse_ref("github.com/o/r/graders/x.yml@v1.0.0")) == "graders/x.yml"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("", "has empty path in manifest"),
        ("../../etc/passwd", "leaves the module"),
        ("/etc/x", "leaves the module"),
    ],
)
def test_an_export_path_that_is_empty_or_leaves_the_module_is_refused(
    tmp_path: Path, path: str, message: str
) -> None:
    text = f"schema_version: 1\nexports:\n  graders:\n    x:\n      path: {path!r}\n"
    manifest = parse_manifest(*_manifest(tmp_path, text))
    with pytest.raises(InputError, match=message):
        preset_path(manifest, parse_ref("github.com/o/r#x@v1.0.0"))


def test_a_manifest_of_another_schema_version_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"unsupported schema_version 2 \(expected 1\)"):
        parse_manifest(*_manifest(tmp_path, "schema_version: 2\n"))


# --- the cache -----------------------------------------------------------------------------------


def test_the_cache_is_read_at_the_top_and_in_the_first_resolvers_source_folder(
    tmp_path: Path,
) -> None:
    module = GraderModule()
    ref = parse_ref(module.ref())
    assert cached_file(tmp_path, ref, COMMIT, "waza.registry.yaml") is None
    module.put_in_cache(tmp_path, layout="source")
    found = cached_file(tmp_path, ref, COMMIT, "waza.registry.yaml")
    assert found == module.folder(tmp_path) / "source" / "waza.registry.yaml"
    module.put_in_cache(tmp_path)
    assert cached_file(tmp_path, ref, COMMIT, "waza.registry.yaml") == (
        module.folder(tmp_path) / "waza.registry.yaml"
    )


def test_the_digest_is_sha256_of_the_preset_bytes() -> None:
    assert digest(b"") == (
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )


# --- the merge -----------------------------------------------------------------------------------


def _expand(tmp_path: Path, entry: str, preset: str, ref: str = "github.com/o/r#x@v1.0.0") -> dict:  # type: ignore[type-arg]
    path = tmp_path / "eval.yaml"
    path.write_text(entry)
    node = yaml.compose(entry)
    assert isinstance(node, yaml.MappingNode)
    preset_node = yaml.compose(preset)
    assert preset_node is None or isinstance(preset_node, yaml.MappingNode)
    merged = expand_entry(path, node, preset_node, parse_ref(ref))
    value = node_value(merged)
    assert isinstance(value, dict)
    return value


def test_local_fields_win_and_config_is_merged_deeply_with_lists_replaced(tmp_path: Path) -> None:
    preset = (
        "type: text\nname: remote\nweight: 3\nconfig:\n"
        "  contains: [a, b]\n  nested: {keep: 1, change: 2}\n  other: x\n"
    )
    entry = (
        "ref: github.com/o/r#x@v1.0.0\nname: local\nweight: 2\n"
        "config:\n  contains: [c]\n  nested: {change: 3, add: 4}\n"
    )
    merged = _expand(tmp_path, entry, preset)
    assert merged == {
        "type": "text",
        "name": "local",
        "weight": 2,
        "config": {
            "contains": ["c"],
            "nested": {"keep": 1, "change": 3, "add": 4},
            "other": "x",
        },
    }


def test_a_zero_weight_an_empty_name_and_an_empty_config_keep_the_presets(tmp_path: Path) -> None:
    preset = "type: text\nname: remote\nweight: 3\nconfig: {contains: [a]}\n"
    entry = 'ref: github.com/o/r#x@v1.0.0\nname: ""\nweight: 0\nconfig: {}\n'
    assert _expand(tmp_path, entry, preset) == {
        "type": "text",
        "name": "remote",
        "weight": 3,
        "config": {"contains": ["a"]},
    }


def test_a_grader_the_preset_leaves_unnamed_is_named_after_the_export(tmp_path: Path) -> None:
    merged = _expand(
        tmp_path,
        "ref: github.com/o/r#facts@v1.0.0\n",
        "type: text\n",
        "github.com/o/r#facts@v1.0.0",
    )
    assert merged["name"] == "facts"


def test_a_local_config_over_a_preset_config_that_is_not_a_mapping_replaces_it(
    tmp_path: Path,
) -> None:
    merged = _expand(tmp_path, "ref: r\nconfig: {a: 1}\n", "type: text\nconfig: [x]\n")
    assert merged["config"] == {"a": 1}


@pytest.mark.parametrize(
    ("entry", "preset", "message"),
    [
        (
            "ref: r\n",
            "name: x\n",
            "remote preset github.com/o/r#x@v1.0.0 is missing required 'type'",
        ),
        ("ref: r\n", "", "missing required 'type' field"),
        ("ref: r\nconfig: [a]\n", "type: text\n", "invalid override config for ref"),
    ],
)
def test_what_waza_refuses_in_a_merge_is_refused_at_the_entry(
    tmp_path: Path, entry: str, preset: str, message: str
) -> None:
    with pytest.raises(InputError, match=message) as caught:
        _expand(tmp_path, entry, preset)
    assert caught.value.location is not None and caught.value.location.file.endswith("eval.yaml")


def test_the_presets_nodes_point_at_the_entrys_line(tmp_path: Path) -> None:
    path = tmp_path / "eval.yaml"
    text = "x: 1\ngraders:\n  - ref: github.com/o/r#x@v1.0.0\n    config: {b: 2}\n"
    path.write_text(text)
    graders = child(yaml.compose(text), "graders")
    assert isinstance(graders, yaml.SequenceNode)
    entry = graders.value[0]
    preset = yaml.compose("type: text\n\n\nconfig:\n  a: 1\n")
    assert isinstance(preset, yaml.MappingNode) and isinstance(entry, yaml.MappingNode)
    merged = expand_entry(
        path, entry, preset, ModuleRef("r", "github.com", "o", "r", "", "x", "v1.0.0")
    )
    config = child(merged, "config")
    assert config is not None
    a_node = child(config, "a")
    b_node = child(config, "b")
    assert a_node is not None and a_node.start_mark.line == 2  # the `- ref:` line (0-based)
    assert b_node is not None and b_node.start_mark.line == 3  # the override keeps its own
