"""The JSON Schema engine, as waza's library (santhosh-tekuri/jsonschema v6) compiles and
validates: it serves the `json_schema` grader and the argument matchers of `tool_calls` and
`tool_constraint`, as waza uses one library for both. compile.py (schemas, drafts, `$ref`),
validate.py with type_keywords.py (the keywords), texts.py (the library's messages),
formats.py (its format checks)."""
