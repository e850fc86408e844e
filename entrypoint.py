#!/usr/bin/env python3
"""The container's entry point: run the waza-ci action with the runner's environment."""

from waza_ci.action import run

if __name__ == "__main__":
    raise SystemExit(run())
