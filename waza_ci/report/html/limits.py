"""The HTML report's default size bound, alone in a module with no imports: the command line's
`--html-max-text-kib` default and the engine read it without loading the report, which is only
imported when `--html` asks for it."""

DEFAULT_MAX_TEXT_KIB = 8
"""The most one text keeps, in KiB; every other bound follows from it (data.py's Bounds)."""
