"""waza's formats and maths, pure: what waza writes and reads, and how it aggregates.

spec.py, spec_schema.py        eval.yaml, its task files and `.waza.yaml`, with YAML lines
program_config.py              a `program` grader's `config`, strict as waza reads it
unmarshal_text.py              yaml.v3's words for a value that does not fit a Go struct
eval_header.py                 which eval a spec is (1.x, or a scenario eval at "2.0")
yaml_doc.py, project_config.py  one YAML file read as yaml.v3 reads it; `.waza.yaml`'s timeout
kinds.py                       which grader kinds need a model, which start a process
results.py, results_schema.py  results files (`waza run --output`): tolerant load, waza-shaped write
results_errors.py              results load errors in waza's words; files that are not results
broken_json.py                 a results file that does not parse: what it is (empty, gzip, …)
schema_version.py              which `schemaVersion`s are read, as waza decides
jsonstream.py                  a results file parsed a piece at a time
context.py                     one saved run -> `context.json` (the grading-context file)
scoring.py, statistics.py      waza's aggregation: run status, scores, task stats, intervals
digest.py, usage.py            the results `summary` digest; `summary.usage`, summed over runs
modules/                       `ref:` graders: waza.lock, waza.registry.yaml, the module cache
"""
