"""`json_schema`: the final output validated as waza's library (santhosh-tekuri/jsonschema v6)
validates it. grader.py (the kind), parse.py (the output read as JSON, strict or extracted),
compile.py, validate.py with type_keywords.py, texts.py, formats.py (the library's compile,
validation, messages and format checks)."""
