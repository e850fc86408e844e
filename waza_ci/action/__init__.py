"""The GitHub Action, a thin shell over the engine (`entrypoint.py` calls `main.main`).

settings.py  the step's inputs -> ActionSettings, one error per input
parsers.py   strict parsers for input values
main.py      inputs -> engine.grade_and_publish -> step outputs and exit code
"""
