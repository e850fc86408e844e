"""Gating on regressions: waza's gate (`waza-ci gate`), the comparison of a grading with a
baseline, the action's gate inputs and outputs, and its pull-request comment step.

waza_gate.py   waza's regression gate, pure but for reading the two files
baseline.py    graded tasks against a baseline: categories, the noise rule, waza's gate on top
baseline_io.py the two sides from files and the GradeSummary; the step's exit code
cli.py         `waza-ci gate` (waza's exit codes 0-3)
step.py        the action's gate inputs and outputs
pr_comment.py  the action's sticky pull-request comment step
"""
