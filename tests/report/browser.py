"""A real Chromium for the HTML report's tests, driven by Playwright for Python.

Playwright's own browser download is never used: the tests drive the system's Chromium
(Debian's `chromium`; `.ci/run` installs it). Without one the browser tests skip on a
developer's machine and fail in CI (`CI` set): they must never pass by not running.
"""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, Route

CHROMIUM_ARGS = [
    "--no-sandbox",  # root in a container, and uid 1001 without user namespaces
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str | None:
    """WAZA_CI_CHROMIUM, else Debian's /usr/bin/chromium, else a chromium or google-chrome on
    PATH (GitHub's Ubuntu runners have the latter)."""
    given = os.environ.get("WAZA_CI_CHROMIUM")
    if given:
        return given
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("google-chrome")


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}: the browser tests must run in CI (.ci/run installs chromium)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = chromium_path()
    if executable is None:
        _missing("no Chromium (apt-get install chromium, or set WAZA_CI_CHROMIUM)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[test]')")
    # Chromium's profile goes to a temporary folder the user owns (uid 1001 has no home).
    with tempfile.TemporaryDirectory() as home, sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable,
            args=CHROMIUM_ARGS,
            env={**os.environ, "HOME": home, "XDG_CONFIG_HOME": home, "XDG_CACHE_HOME": home},
        )
        yield launched
        launched.close()


@dataclass
class Opened:
    """A report open in a page, and everything the page tried that it must not."""

    page: Page
    outside: list[str] = field(default_factory=list)
    """Requests for anything but the report file itself."""
    errors: list[str] = field(default_factory=list)
    """Console errors and uncaught exceptions."""
    dialogs: list[str] = field(default_factory=list)

    def text(self) -> str:
        return str(self.page.inner_text("body"))

    def expand_everything(self) -> None:
        """Open every task, run, verdict and collapsed text, as a curious reviewer would."""
        for _ in range(4):
            closed = self.page.query_selector_all("[aria-expanded=false]")
            for element in closed:
                element.click()
            self.page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            if not closed:
                break

    def evaluate(self, script: str) -> Any:
        return self.page.evaluate(script)


@contextmanager
def open_report(browser: Browser, path: Path, *, javascript: bool = True) -> Iterator[Opened]:
    context = browser.new_context(
        java_script_enabled=javascript, viewport={"width": 1280, "height": 900}
    )
    page = context.new_page()
    opened = Opened(page)
    url = path.resolve().as_uri()

    def route(route: Route) -> None:
        if route.request.url.split("#")[0] == url:
            route.continue_()
        else:
            opened.outside.append(route.request.url)
            route.abort()

    page.route("**/*", route)

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            opened.errors.append(message.text)

    def dialog(shown: Dialog) -> None:
        opened.dialogs.append(shown.message)
        shown.dismiss()

    page.on("console", console)
    page.on("pageerror", lambda error: opened.errors.append(str(error)))
    page.on("dialog", dialog)
    try:
        page.goto(url, wait_until="load")
        yield opened
    finally:
        context.close()


# --- the screenshot in docs/: a PNG that carries the text it shows --------------------------

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TEXT_KEY = b"waza-ci:first-screen"


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    assert png.startswith(_PNG_SIGNATURE), "not a PNG"
    found, at = [], len(_PNG_SIGNATURE)
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        found.append((png[at + 4 : at + 8], png[at + 8 : at + 8 + length]))
        at += 12 + length
    return found


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def png_with_text(png: bytes, text: str) -> bytes:
    """The PNG with `text` in an iTXt chunk (UTF-8) under TEXT_KEY, before its end."""
    body = png[: -len(_chunk(b"IEND", b""))]
    itxt = TEXT_KEY + b"\0\0\0\0\0" + text.encode("utf-8")
    return body + _chunk(b"iTXt", itxt) + _chunk(b"IEND", b"")


def png_text(png: bytes) -> str | None:
    for kind, data in _chunks(png):
        if kind == b"iTXt" and data.startswith(TEXT_KEY + b"\0"):
            return data[len(TEXT_KEY) + 5 :].decode("utf-8")
    return None


def png_size(png: bytes) -> tuple[int, int]:
    kind, header = _chunks(png)[0]
    assert kind == b"IHDR"
    width, height = struct.unpack(">II", header[:8])
    return width, height
