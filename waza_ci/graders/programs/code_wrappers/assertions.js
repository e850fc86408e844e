// waza-ci's runner of a `code` grader's JavaScript assertions, run by the user's own Node.
//
// It behaves as waza's embedded JavaScript runner does, so that assertions pass, fail and
// fail with the same messages as under `waza grade`:
//
// * stdin holds one JSON document: output, outcome, transcript, tool_calls, duration_ms,
//   assertions, debug (when true, the document is echoed to stderr);
// * each assertion runs in one shared `vm` context (a global it assigns is seen by the next
//   ones), at most 5 seconds each, with the run's values and a few safe globals in scope;
// * the result of an assertion is "" when its value is truthy, "fail" when it is not, and
//   String(error) when it threw;
// * stdout receives {"results":[...]}, one result per assertion, nothing else.
//
// `errors` lists the transcript events whose type contains "error", or whose content does.

const vm = require("node:vm");
const fs = require("node:fs");

const ASSERTION_TIMEOUT_MS = 5000;

function mentionsError(value) {
  return Boolean(value) && String(value).includes("error");
}

function assertionScope(run) {
  const transcript = run.transcript;
  return {
    output: run.output,
    outcome: run.outcome,
    transcript,
    tool_calls: run.tool_calls,
    errors: transcript.filter((event) => mentionsError(event.type) || mentionsError(event.content)),
    duration_ms: run.duration_ms || 0,
    Array,
    Object,
    String,
    Number,
    Boolean,
    Math,
    JSON,
    RegExp,
    parseInt,
    parseFloat,
    isNaN,
    isFinite,
    undefined,
    NaN,
    Infinity,
    True: true,
    False: false,
  };
}

function check(assertion, context) {
  try {
    const value = vm.runInContext(assertion, context, { timeout: ASSERTION_TIMEOUT_MS });
    return value ? "" : "fail";
  } catch (error) {
    return String(error);
  }
}

const document = fs.readFileSync(0, "utf-8");
const run = JSON.parse(document);
if (run.debug) {
  process.stderr.write(document + "\n");
}
const context = vm.createContext(assertionScope(run));
const results = (run.assertions || []).map((assertion) => check(assertion, context));
process.stdout.write(JSON.stringify({ results }));
