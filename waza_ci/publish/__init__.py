"""After grading, for the action: the verdict everywhere a reviewer looks, in one order and
with one rule (a reporting problem is a warning, never a change of the verdict).

options.py    what the action asked for (light: read before anything heavy loads)
step.py       the order: regressions in the log, job summary, check run, comment, report JSON
check_run.py  the check run, or the annotations in the log when GitHub will not take it
comment.py    the sticky pull-request comment: decide, render, post or update
outputs.py    the step outputs and the report JSON file
"""
