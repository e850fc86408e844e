"""Grading saved runs: which grader runs against which run, running them all, and putting
the verdicts back into waza's results.

plan.py      match spec tasks to saved tasks; list every execution in a stable order
run.py       run the executions on a pool of threads, each by its grader kind
verdicts.py  a run's verdicts after grading: new ones, kept ones, waza's run status
assemble.py  the graded tasks and the regraded results files, with waza's summary rebuilt
"""
