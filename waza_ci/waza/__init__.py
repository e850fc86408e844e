"""waza's formats and maths, pure: what waza writes and reads, and how it aggregates.

spec.py, spec_schema.py        eval.yaml, its task files and `.waza.yaml`, with YAML lines
results.py, results_schema.py  results files (`waza run --output`): tolerant load, waza-shaped write
schema_version.py              which `schemaVersion`s are read, as waza decides
gojson.py, jsonstream.py       Go's JSON printing; a results file parsed a piece at a time
context.py                     one saved run -> `context.json` (the grading-context file)
scoring.py, statistics.py      waza's aggregation: run status, scores, task stats, intervals
usage.py                       `summary.usage`, summed over every run
"""
