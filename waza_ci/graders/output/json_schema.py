"""waza's `json_schema` grader: the run's final output, read as JSON, validated against a JSON
Schema.

The output must be exactly one JSON value (Go's `json.Unmarshal`), or with `extract_json: true`
contain exactly one JSON object or array among other text. The schema is the inline `schema`
(which wins), or the JSON file `schema_file`, read relative to the working directory (waza's
process cwd) on each run. It is compiled as waza's library compiles it (jsonschema/compile.py)
and the value validated in the library's order, with its error texts (jsonschema/validate.py);
json_output.py reads the output as JSON.
Binary score: 1 when valid, 0 otherwise. A schema file that cannot be read or parsed, or a
schema that does not compile, is a Go error (grading aborts in waza); the schema is not even
looked at when the output is not JSON.

Failure texts carry the schema's URL, `file://<working directory>/schema.json`, as waza's do
with its own cwd. Where the library's messages cannot be matched byte for byte (see the
modules named above), the verdict and score still are.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from waza_ci.errors import InputError
from waza_ci.golang.json import go_round_trip
from waza_ci.golang.json_scanner import GoJSONError, go_unmarshal
from waza_ci.golang.os import GoFileError, go_read_file
from waza_ci.golang.strconv import go_quote
from waza_ci.graders.base import GraderJob
from waza_ci.graders.inprocess import GraderError, InProcessGrader, Outcome
from waza_ci.graders.jsonschema.compile import (
    CompiledSchema,
    SchemaCompileError,
    compile_schema,
    validation_error,
)
from waza_ci.graders.output.json_output import MANY_DOCUMENTS, ZERO_DOCUMENTS, embedded_values
from waza_ci.graders.params import decode_params
from waza_ci.waza.spec import GraderSpec
from waza_ci.waza.spec_schema import ANY, BOOL, STR, MapOf, Struct

PASSED = "Output matches JSON schema"
_SHAPE = Struct({"schema": MapOf(ANY), "schema_file": STR, "extract_json": BOOL})
_GO_MAP = "map[string]interface {}"


@dataclass(frozen=True)
class JsonSchemaConfig:
    name: str
    schema: dict[str, Any] | None
    """The inline schema as YAML gave it; None when absent (then `schema_file` is used)."""
    schema_file: str
    extract_json: bool
    compiled: dict[str, CompiledSchema | GraderError] = field(default_factory=dict, compare=False)
    """The schema compiled for each working directory (its URL is part of every message), or
    the Go error it gives: the same for every run, so worked out once."""


class JsonSchemaGrader(InProcessGrader[JsonSchemaConfig]):
    """waza's `json_schema` grader kind."""

    kind = "json_schema"

    def configure(self, grader: GraderSpec) -> JsonSchemaConfig:
        params = decode_params(grader, "JSONSchemaGraderParameters", _SHAPE)
        schema = params.get("schema")
        schema_file = str(params.get("schema_file") or "")
        if schema is None and not schema_file:
            raise InputError(
                f"json_schema grader {go_quote(grader.name)}: must specify either config.schema "
                "or config.schema_file",
                grader.location,
            )
        return JsonSchemaConfig(
            name=grader.name,
            schema=schema,
            schema_file=schema_file,
            extract_json=bool(params.get("extract_json")),
        )

    def evaluate(self, config: JsonSchemaConfig, job: GraderJob) -> Outcome:
        try:
            value = _parse_output(job.run.final_output, extract=config.extract_json)
        except GoJSONError as err:
            lead = (
                "Output must contain exactly one JSON object or array"
                if config.extract_json
                else "Output is not valid JSON"
            )
            return Outcome(0.0, False, f"{lead}: {err}", {"error": str(err)})
        compiled = _compiled(config, job.setup.working_directory)
        failure = validation_error(compiled, value)
        if failure is None:
            return Outcome(1.0, True, PASSED)
        feedback = f"Schema validation failed: {failure}"
        return Outcome(0.0, False, feedback, {"failures": [feedback]})


def _parse_output(output: str, *, extract: bool) -> Any:
    if not extract:
        return go_unmarshal(output)
    values = embedded_values(output)
    if len(values) != 1:
        raise GoJSONError(ZERO_DOCUMENTS if not values else MANY_DOCUMENTS)
    return values[0]


def _compiled(config: JsonSchemaConfig, working_directory: str) -> CompiledSchema:
    """The compiled schema, or the GraderError waza returns for it (cached per directory)."""
    known = config.compiled.get(working_directory)
    if known is None:
        try:
            known = compile_schema(_schema_value(config, working_directory), working_directory)
        except (GraderError, SchemaCompileError) as err:
            reason = (
                err.message
                if isinstance(err, GraderError)
                else (f"failed to compile JSON schema: {err}")
            )
            known = GraderError(f"json_schema grader '{config.name}': {reason}")
        config.compiled[working_directory] = known
    if isinstance(known, GraderError):
        raise known
    return known


def _schema_value(config: JsonSchemaConfig, working_directory: str) -> Any:
    """The schema as the library receives it: the inline map or the file's object, through
    Go's JSON encoding and back (numbers become float64). Raises GraderError (its message without
    the grader prefix)."""
    schema = config.schema
    if schema is None:
        schema = _schema_file(config, working_directory)
    try:
        return go_round_trip(schema)
    except ValueError as err:
        raise GraderError(f"failed to serialize schema: {err}") from None


def _schema_file(config: JsonSchemaConfig, working_directory: str) -> Any:
    path = config.schema_file
    quoted = go_quote(path)
    try:
        data = go_read_file(os.path.join(working_directory, path), shown=path)
    except GoFileError as err:
        raise GraderError(f"failed to read schema file {quoted}: {err}") from None
    try:
        schema = go_unmarshal(data.decode("utf-8", "replace"))
    except GoJSONError as err:
        raise GraderError(f"failed to parse schema file {quoted}: {err}") from None
    if schema is not None and not isinstance(schema, dict):
        kind = {bool: "bool", str: "string", list: "array"}.get(type(schema), "number")
        raise GraderError(
            f"failed to parse schema file {quoted}: json: cannot unmarshal {kind} into Go value "
            f"of type {_GO_MAP}"
        )
    return schema
