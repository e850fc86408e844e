"""The LLM judge of `prompt` graders, re-run through the GitHub Copilot runtime (opt-in:
`--judge`). Everything here but runtime.py is pure and cheap to import; runtime.py alone
imports the Copilot SDK (a dependency), and only when a judgement must be asked for.

providers.py  the providers and the default concurrency: all the parsers need, cheap to import
options.py    what the user asked for (`--judge …`) and where the judge's credential goes
config.py     a `prompt` grader's config, and its rubric file, read as waza reads them
message.py    the message(s) waza sends the judge: exact mode, pairwise, from a transcript
tools.py      the grade tools (their schemas, as waza declares them) and what a call records
verdict.py    a verdict from the recorded calls, as waza computes it; the kept-verdict checks
cache.py      judgements already paid for, keyed on what decides them, in one JSON file
spend.py      the judge's own spend: tokens and premium requests per model
runtime.py    the SDK session wrapper: one CLI process, bounded concurrent sessions
cli_pin.py    the Copilot CLI this release pins (copilot-cli.env, read by the image's build too)
"""
