"""Go as waza sees it: one module per Go package whose behaviour waza's texts and verdicts
show, restated in Python. A leaf: imports nothing else of waza_ci, and every stage may use it.

strconv.py       `Quote` (`%q` of a string)
"""
