"""The HTML report: one self-contained file a reviewer downloads from the workflow run's
artifacts and opens in a browser (`--html`, action input `html-report`).

Nothing is imported here: the engine imports page.py only when a report is asked for, so a
grading without `--html` loads none of it (limits.py holds the one constant it needs).
"""
