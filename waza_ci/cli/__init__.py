"""The `waza-ci` command, a thin shell over the engine.

arguments.py  the commands' flags and their checks (cheap to import)
main.py       `grade` and `merge`: arguments -> engine.evaluate -> stdout JSON, stderr, exit code
gate.py       `gate`: waza's regression gate as a command, with waza's flags and exit codes
"""
