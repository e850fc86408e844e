"""The HTML report: one self-contained file a reviewer downloads from the workflow run's
artifacts and opens in a browser (`--html`, action input `html-report`)."""

from waza_ci.report.html.data import DEFAULT_MAX_TEXT_KIB, Bounds
from waza_ci.report.html.page import HtmlRequest, render_html

__all__ = ["DEFAULT_MAX_TEXT_KIB", "Bounds", "HtmlRequest", "render_html"]
