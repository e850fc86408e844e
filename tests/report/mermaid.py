"""mermaid's own parser and renderer, run in the real Chromium the HTML report's tests use.

The job summary's history chart is Mermaid that GitHub renders; the only judge of whether it
parses is mermaid itself. Its browser build comes from the npm package `mermaid`, pinned and
fetched by `.ci/mermaid.sh` into `.ci/.npm/mermaid/` (git-ignored), or the file WAZA_CI_MERMAID
names (the unprivileged CI pass sets it). Without it the tests skip on a developer's machine,
saying how to install it, and fail in CI (`CI` set): they never pass by not running.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

ROOT = Path(__file__).resolve().parents[2]
ENV_VAR = "WAZA_CI_MERMAID"
DEFAULT_PATH = ROOT / ".ci" / ".npm" / "mermaid" / "dist" / "mermaid.min.js"

_RUN = """async (source) => {
  mermaid.initialize({ startOnLoad: false });
  try {
    const parsed = await mermaid.parse(source);
    const rendered = await mermaid.render("chart", source);
    return { ok: true, type: parsed.diagramType, svg: rendered.svg };
  } catch (error) {
    return { ok: false, error: String((error && error.message) || error) };
  }
}"""


def mermaid_path() -> Path:
    named = os.environ.get(ENV_VAR)
    return Path(named) if named else DEFAULT_PATH


class Mermaid:
    """A page with mermaid loaded; `run(source)` parses and renders one diagram."""

    def __init__(self, page: Page) -> None:
        self.page = page

    def run(self, source: str) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate(_RUN, source)
        return result


@pytest.fixture
def mermaid(browser: Browser) -> Iterator[Mermaid]:
    path = mermaid_path()
    if not path.is_file():
        reason = f"mermaid is not at {path}: install it with `bash .ci/mermaid.sh` (npm mermaid)"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false"):
            pytest.fail(f"{reason}; CI is set, so this is a failure, not a skip")
        pytest.skip(reason)
    context = browser.new_context()
    page = context.new_page()
    page.route("**/*", lambda route: route.abort())  # nothing is fetched from anywhere
    page.set_content("<!DOCTYPE html><html><body></body></html>")
    page.add_script_tag(content=path.read_text(encoding="utf-8"))
    try:
        yield Mermaid(page)
    finally:
        context.close()
