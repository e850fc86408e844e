"""Gating on regressions, computation only (the report renders it, the shells run it).

waza_gate.py    waza's regression gate (`waza gate`), restated
baseline.py     graded tasks against a baseline: categories, the noise rule, waza's gate on top
baseline_io.py  the two sides from files and the GradeSummary; the baseline's loading
flaky.py        tasks whose runs both passed and failed
history.py      graded tasks against the pooled records of a history: the same noise rule, bands
history_io.py   the history file: its records, read (a broken line named) and appended, bounded
history_limits.py  the history's schema version, bounds and defaults, in one place
"""
