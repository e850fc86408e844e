"""The HTML report as one self-contained file: the first screen rendered in HTML, the data as
JSON inside inert `<script type="application/json">` elements, and the page's own CSS and
script inline. Pure (the assets are package data).

Safety, in layers: every untrusted text in the HTML is entity-escaped; the embedded JSON has
`< > &` and U+2028/U+2029 written as `\\uXXXX`, so no string in it can close its element or
open another; the script builds the page with `textContent` only; and a Content-Security-Policy
`<meta>` allows no load from anywhere and no script but this one (by its SHA-256), so even a
mistake in the layers above could not run a payload or send anything out.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Any

from waza_ci.golang.json import HTML_UNSAFE
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.html.data import Bounds, build_page_data
from waza_ci.report.html.first_screen import esc, render_first_screen
from waza_ci.report.html.trends import history_section

_JSON_ESCAPES = tuple((char, f"\\u{ord(char):04x}") for char in HTML_UNSAFE)
_SURROGATE = re.compile(r"[\ud800-\udfff]")


@cache
def asset(name: str) -> str:
    return (files("waza_ci.report.html") / "assets" / name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def content_security_policy(script: str, style: str) -> str:
    """Nothing from outside, no script or style but the page's own (pinned by hash)."""
    return (
        "default-src 'none'; "
        f"script-src '{_sha256(script)}'; "
        f"style-src '{_sha256(style)}'; "
        "img-src 'none'; font-src 'none'; connect-src 'none'; media-src 'none'; "
        "object-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'"
    )


def embed_json(value: Any) -> str:
    """JSON that is inert inside a `<script>` element: the characters that could end the
    element, start a comment or break a line in old parsers are `\\u` escapes (only strings
    can hold them, where the escape means the same character)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # str.replace per character (a C scan each) is many times faster here than one regex
    # substitution with a callback, or str.translate, over megabytes of transcript.
    if not text.isascii():
        text = _SURROGATE.sub("\ufffd", text)
    for char, escape in _JSON_ESCAPES:
        if char in text:
            text = text.replace(char, escape)
    return text


@dataclass(frozen=True)
class HtmlRequest:
    """What the page needs besides the evaluation."""

    raw_files: Mapping[str, Mapping[str, Any]]
    """The graded results files (transcripts and all) by results name."""
    bounds: Bounds = field(default_factory=Bounds)
    commit: str = ""
    private_roots: Sequence[str] = ()
    """Absolute folders of this machine (the checkout, the workspace, the temp folder): where
    they appear in a text they are written `.`, so the file names no runner path."""


def _meta(evaluation: Evaluation, request: HtmlRequest) -> list[tuple[str, str]]:
    skills, models = [], []
    for raw in request.raw_files.values():
        skill = raw.get("skill")
        config = raw.get("config")
        config = config if isinstance(config, dict) else {}
        model = config.get("model_id") or config.get("model")
        skills += [skill] if isinstance(skill, str) and skill not in skills else []
        models += [model] if isinstance(model, str) and model not in models else []
    report = evaluation.model
    return [
        ("eval", report.eval_path),
        ("skill", ", ".join(skills)),
        ("model", ", ".join(models)),
        ("commit", request.commit),
        ("results", ", ".join(report.results_names)),
    ]


@dataclass(frozen=True)
class _Scrubber:
    """Writes the runner's folders as `.` wherever a path starts with one; and drops a path
    cut short (by `…`, a shortened line or a head-and-tail cut) inside one of them."""

    forms: frozenset[str]
    whole: re.Pattern[str]

    def apply(self, text: str) -> str:
        # Each pattern looks behind at every position, so it only runs where it can match: a
        # folder's name is in the text, or a path just before a cut (…) is.
        if any(form in text for form in self.forms):
            text = self.whole.sub(lambda m: "./" if m.group(1) == "/" else ".", text)
        return _CUT_PATH.sub(self._cut_path, text) if _CUT_CANDIDATE.search(text) else text

    def _cut_path(self, match: re.Match[str]) -> str:
        path = match.group(1)
        return "" if any(form.startswith(path) for form in self.forms) else path


# A folder starts a path: nothing of a name before it (`/work/root` is not `/root`), but a JSON
# escape may be (`\n/root/x`, `\u003c/root`).
_PATH_START = r"(?:(?<=\\[nrtbf])|(?<=\\u[0-9a-f]{4})|(?<![\w.-]))"
_CUT_PATH = re.compile(_PATH_START + r"(/[^\s\"'<>&\\…]+)(?=(?:\\n|\n)?…)")
# The same without the look-behind (which is tried at every position): where this finds nothing,
# _CUT_PATH cannot either.
_CUT_CANDIDATE = re.compile(r"/[^\s\"'<>&\\…]+(?:\\n|\n)?…")


def _scrubber(roots: Sequence[str]) -> _Scrubber | None:
    forms: set[str] = set()
    for given in roots:
        root = given.rstrip("/")
        if len(root) < 2 or not root.startswith("/"):
            continue
        forms |= {root, esc(root), embed_json(root)[1:-1]}
    if not forms:
        return None
    alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    whole = re.compile(f"{_PATH_START}(?:{alternatives})(/|(?![\\w.-]))")
    return _Scrubber(frozenset(forms), whole)


def _scrub(scrubber: _Scrubber | None, text: str) -> str:
    return text if scrubber is None else scrubber.apply(text)


def render_html(evaluation: Evaluation, request: HtmlRequest) -> str:
    """The whole page."""
    data = build_page_data(
        evaluation.summary,
        evaluation.model,
        request.raw_files,
        evaluation.comparison,
        request.bounds,
    )
    data.index["hasBaseline"] = evaluation.comparison is not None
    scrub = _scrubber(request.private_roots)
    script, style = asset("report.js"), asset("report.css")
    title = f"waza-ci: {evaluation.model.eval_name}"
    first = render_first_screen(evaluation, _meta(evaluation, request), history_section(evaluation))
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n',
        '<meta http-equiv="Content-Security-Policy" content="',
        esc(content_security_policy(script, style)),
        '">\n<meta name="referrer" content="no-referrer">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        f"<title>{_scrub(scrub, esc(title))}</title>\n<style>{style}</style>\n</head><body>\n",
        f'<main id="first">\n{_scrub(scrub, first)}\n</main>\n',
        "<noscript><p>JavaScript is off: this is the first screen. Turn it on for the tasks"
        " table, each task's runs and each run's transcript.</p></noscript>\n",
        '<div id="app" hidden></div>\n',
        '<script type="application/json" id="waza-index">',
        _scrub(scrub, embed_json(data.index)),
        "</script>\n",
    ]
    parts += [
        f'<script type="application/json" id="ev-{i}">{_scrub(scrub, embed_json(block))}</script>\n'
        for i, block in enumerate(data.evidence)
    ]
    parts += [f"<script>{script}</script>\n</body></html>\n"]
    return "".join(parts)
