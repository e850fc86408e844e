"""The history's numbers, in one place: its schema, its bounds, and the defaults of the flags and
inputs that size it (the action's defaults and the docs are checked against these)."""

from __future__ import annotations

from waza_ci.files import MIB

SCHEMA_VERSION = 1
"""The version of the record this waza-ci writes; a line of a newer one is refused, by line."""

DEFAULT_KEEP = 200
"""Records kept per eval (`--history-keep`, input `history-keep`): the oldest go first."""

DEFAULT_WINDOW = 10
"""Records of the default branch the gate pools (`--history-window`, input `history-window`)."""

MIN_FLAKY_RUNS = 5
"""A task's pooled runs in the window before it can be called flaky: with fewer, one failed run
among four says little about a band."""

MAX_HISTORY_BYTES = 64 * MIB
"""The largest history file read; 200 records of an eval of 500 tasks take about 20 MiB."""

MAX_LINE_BYTES = 4 * MIB
"""The largest record (one line): a line past it is refused, naming it."""

MAX_TASKS_PER_RECORD = 100_000
"""Tasks one record may list; a larger one is refused, naming its line."""

TRENDS_LISTED = 20
"""Tasks whose trend the job summary draws as text (the rest are counted)."""
