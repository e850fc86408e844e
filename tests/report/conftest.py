"""Fixtures of the report tests: the real browser the HTML report is opened in."""

from tests.report.browser import browser

__all__ = ["browser"]
