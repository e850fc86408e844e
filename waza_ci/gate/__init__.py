"""Gating on regressions, computation only (the report renders it, the shells run it).

waza_gate.py    waza's regression gate (`waza gate`), restated
baseline.py     graded tasks against a baseline: categories, the noise rule, waza's gate on top
baseline_io.py  the two sides from files and the GradeSummary; the baseline's loading
flaky.py        tasks whose runs both passed and failed
"""
