"""The documentation is true to the code: every input and output of action.yml has a row in
docs/action.md; every flag of every `waza-ci` subcommand's `--help` (and the top level's) is
documented under docs/; every grader kind has a row in docs/graders.md; every relative link of
README.md and docs/*.md resolves (files and #anchors, by GitHub's heading-anchor rules), and
every docs page is linked from the README; docs/architecture.md names exactly the package's
folders and top-level modules, and every module path it mentions exists.

The markdown is rendered with cmark-gfm, as GitHub renders it, so a link or heading inside a
code block is not one. Each check has a companion showing it can fail."""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import cmarkgfm
import pytest
import yaml
from cmarkgfm.cmark import Options

from tests.conftest import ROOT
from waza_ci.graders import KINDS
from waza_ci.waza.kinds import MODEL_KINDS

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
MARKDOWN = [ROOT / "README.md", *PAGES]
HELP_OPTIONS = {"-h", "--help"}
"""argparse's own; every other flag must be documented."""


# --- rendering: headings, anchors, links --------------------------------------------------------


@dataclass
class Rendered:
    anchors: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rendered = Rendered()
        self._heading: list[str] | None = None
        self._seen: dict[str, int] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if re.fullmatch(r"h[1-6]", tag):
            self._heading = []
        if tag == "a" and values.get("href"):
            self.rendered.links.append(str(values["href"]))
        if tag == "img" and values.get("src"):
            self.rendered.links.append(str(values["src"]))
        for name in ("id", "name"):
            if tag == "a" and values.get(name):
                self.rendered.anchors.add(str(values[name]))

    def handle_data(self, data: str) -> None:
        if self._heading is not None:
            self._heading.append(data)

    def handle_endtag(self, tag: str) -> None:
        if re.fullmatch(r"h[1-6]", tag) and self._heading is not None:
            slug = github_slug("".join(self._heading))
            count = self._seen.get(slug, 0)
            self._seen[slug] = count + 1
            self.rendered.anchors.add(slug if count == 0 else f"{slug}-{count}")
            self._heading = None


def github_slug(heading_text: str) -> str:
    """The anchor GitHub gives a heading (github-slugger): lower case; every character that is
    not a letter, mark, number, `_`, `-` or space dropped; spaces turned into `-`. Repeats get
    `-1`, `-2`… (`_Collector`)."""
    kept = (
        ch for ch in heading_text.lower() if ch in " -_" or unicodedata.category(ch)[0] in "LMN"
    )
    return "".join(kept).replace(" ", "-")


def render(text: str) -> Rendered:
    html = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    collector = _Collector()
    collector.feed(html)
    return collector.rendered


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """Each relative link of `page` whose file, or whose #anchor in a Markdown file, is not
    there, as `page: link (why)`."""
    problems: list[str] = []
    rendered = render(page.read_text(encoding="utf-8"))
    for link in rendered.links:
        parts = urlsplit(link)
        if parts.scheme or parts.netloc:
            continue
        target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        where = f"{page.relative_to(root)}: {link}"
        if not target.is_relative_to(root.resolve()):
            problems.append(f"{where} (outside the repository)")
        elif not target.exists():
            problems.append(f"{where} (no such file)")
        elif parts.fragment and target.suffix == ".md":
            anchors = render(target.read_text(encoding="utf-8")).anchors
            if unquote(parts.fragment) not in anchors:
                problems.append(f"{where} (no heading with that anchor)")
    return problems


# --- what must be documented ----------------------------------------------------------------------


def docs_text() -> str:
    return "\n".join(page.read_text(encoding="utf-8") for page in PAGES)


def is_documented(name: str, text: str) -> bool:
    """`name` opens a code span somewhere: `--flag`, `--flag=VALUE`, `--flag N` (a usage
    synopsis in a code block does not count)."""
    return re.search(rf"`{re.escape(name)}(?![\w-])[^`\n]*`", text) is not None


def cli_help(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "waza_ci", *args, "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def subcommands() -> list[str]:
    usage = cli_help().split("\n\n", 1)[0]
    found = re.search(r"\{([\w,-]+)\}", usage)
    assert found, f"no subcommands in `waza-ci --help`: {usage!r}"
    return found.group(1).split(",")


def help_flags(help_text: str) -> set[str]:
    """The option strings of an argparse `--help`: each option line's names, before its help."""
    flags: set[str] = set()
    for line in help_text.splitlines():
        if re.match(r"  -", line):
            names = re.split(r"\s{2,}", line.strip())[0]
            flags.update(re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", names))
    return flags - HELP_OPTIONS


# --- the checks ----------------------------------------------------------------------------------


def test_every_input_and_output_of_action_yml_is_in_the_action_page() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    page = (DOCS / "action.md").read_text(encoding="utf-8")
    missing = [
        f"{kind[:-1]} {name}"
        for kind in ("inputs", "outputs")
        for name in action[kind]
        if f"| `{name}` |" not in page
    ]
    assert not missing, f"docs/action.md has no table row for: {', '.join(missing)}"


@pytest.mark.parametrize("command", subcommands())
def test_every_flag_of_the_command_is_documented(command: str) -> None:
    text = docs_text()
    assert f"waza-ci {command}" in text, f"docs/ never names `waza-ci {command}`"
    flags = help_flags(cli_help(command))
    assert flags, f"`waza-ci {command} --help` lists no flags"
    missing = sorted(flag for flag in flags if not is_documented(flag, text))
    assert not missing, f"`waza-ci {command}` flags not documented in docs/: {missing}"


def test_the_top_level_flags_are_documented() -> None:
    flags = help_flags(cli_help())
    assert "--version" in flags
    missing = sorted(flag for flag in flags if not is_documented(flag, docs_text()))
    assert not missing, f"`waza-ci` flags not documented in docs/: {missing}"


@pytest.mark.parametrize("page", MARKDOWN, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_every_docs_page_is_reachable_from_the_readme() -> None:
    linked = {
        (ROOT / urlsplit(link).path).resolve()
        for link in render((ROOT / "README.md").read_text(encoding="utf-8")).links
        if not urlsplit(link).scheme and urlsplit(link).path
    }
    assert [p.name for p in PAGES if p.resolve() not in linked] == []


def package_stages() -> set[str]:
    """The package's folders (`name/`) and top-level modules (`name.py`), dunders aside."""
    return {
        f"{p.name}/" if p.is_dir() else p.name
        for p in (ROOT / "waza_ci").iterdir()
        if not p.name.startswith("__")
        and ((p.is_dir() and (p / "__init__.py").exists()) or p.suffix == ".py")
    }


def architecture_stages(page_text: str) -> set[str]:
    """The names the tree block of docs/architecture.md opens its lines with: `name/` for a
    folder, and the `name.py` modules of its module lines."""
    tree = re.search(r"^```\nwaza_ci/\n(.*?)^```", page_text, re.S | re.M)
    assert tree, "docs/architecture.md has no tree block starting with `waza_ci/`"
    names: set[str] = set()
    for line in tree.group(1).splitlines():
        entry = re.match(r"  (\w+/|\w+\.py(?: +\w+\.py)*)(?:\s|$)", line)
        if entry:
            names.update(entry.group(1).split())
    return names


def test_the_architecture_page_names_every_stage_of_the_tree() -> None:
    named = architecture_stages((DOCS / "architecture.md").read_text(encoding="utf-8"))
    assert named == package_stages(), (
        f"docs/architecture.md lists {sorted(named - package_stages())} that waza_ci/ lacks "
        f"and lacks {sorted(package_stages() - named)}"
    )


# --- the checks can fail --------------------------------------------------------------------------


def test_slugs_follow_githubs_rules() -> None:
    assert github_slug("The `waza-ci grade` command") == "the-waza-ci-grade-command"
    assert github_slug("What is graded, and how") == "what-is-graded-and-how"
    assert github_slug("GitHub's REST description") == "githubs-rest-description"
    assert github_slug("❌ Failures") == "-failures"
    assert render("# A\n\n## A\n\n### A\n").anchors == {"a", "a-1", "a-2"}


def test_broken_links_are_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## Its part\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Here\n\n[ok](other.md#its-part) [ok](#here) [web](https://example.com/x#y)\n"
        "[gone](missing.md) [no anchor](other.md#nope) [none here](#nope) [up](../../etc)\n\n"
        "```\n[in code](missing-too.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page, root=tmp_path) == [
        "page.md: missing.md (no such file)",
        "page.md: other.md#nope (no heading with that anchor)",
        "page.md: #nope (no heading with that anchor)",
        "page.md: ../../etc (outside the repository)",
    ]


def test_undocumented_flags_are_found() -> None:
    help_text = "options:\n  -h, --help  show\n  -f FORMAT, --format FORMAT\n  --shard I/N  x\n"
    assert help_flags(help_text) == {"-f", "--format", "--shard"}
    assert is_documented("--shard", "| `--shard` | … |")
    assert is_documented("--golden-must-pass", "`--golden-must-pass[=BOOL]`")
    assert not is_documented("--shard", "```\nwaza-ci grade --shard I/N\n```")
    assert not is_documented("--shard", "`--shard-weights`")


def test_a_missing_stage_is_found() -> None:
    page = "```\nwaza_ci/\n  waza/      formats\n  errors.py  files.py   whole\n```\n"
    assert architecture_stages(page) == {"waza/", "errors.py", "files.py"}


def test_every_grader_kind_has_a_row_in_the_graders_page() -> None:
    page = (DOCS / "graders.md").read_text(encoding="utf-8")
    kinds = [*KINDS, *MODEL_KINDS, "expected:"]
    missing = [kind for kind in kinds if f"\n| `{kind}` |" not in page]
    assert not missing, f"docs/graders.md has no table row for {missing}"


def missing_module_paths(page_text: str, package: Path, root: Path) -> list[str]:
    """The `folder/module.py` code spans of a page that name no file, in the package or the
    repository."""
    named = set(re.findall(r"`((?:[\w.-]+/)+[\w.-]+\.py)`", page_text))
    return sorted(p for p in named if not (package / p).is_file() and not (root / p).is_file())


def test_the_modules_the_architecture_page_names_exist() -> None:
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    assert missing_module_paths(page, ROOT / "waza_ci", ROOT) == []


def test_a_renamed_module_is_found(tmp_path: Path) -> None:
    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "model.py").touch()
    page = "`report/model.py` and `report/gone.py`, `tests/x.py`"
    assert missing_module_paths(page, tmp_path, tmp_path) == ["report/gone.py", "tests/x.py"]
