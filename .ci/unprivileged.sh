#!/usr/bin/env bash
# The test suite again, the way users and contributors run it: in a copy of the
# repository alone in a fresh temporary folder (nothing beside it: no ../shared, no caches), as
# an unprivileged user like GitHub's runners (uid 1001), with a virtual environment that user
# owns. Container tests are included when Docker is reachable: the user gets the Docker socket's
# group, as the runner user has on GitHub-hosted runners, and uses the image the first pass
# built (WAZA_CI_IMAGE) rather than building its own.
#
# Usage: bash .ci/unprivileged.sh [PYTEST ARGS]   (.ci/run runs it last, with its -n workers)
# Env:   WAZA_CI_UID (default 1001), WAZA_CI_IMAGE (default waza-ci:test), PYTHON (from python.sh)
# Needs npm unless .ci/openapi.sh and .ci/mermaid.sh already installed what they fetch.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
uid="${WAZA_CI_UID:-1001}"
image="${WAZA_CI_IMAGE:-waza-ci:test}"

sandbox=$(mktemp -d)
home=$(mktemp -d)
trap 'rm -rf "$sandbox" "$home"' EXIT
repo="$sandbox/waza-ci"
mkdir "$repo"
# Tracked and new (not ignored) files, as a fresh clone of this checkout would have them.
git ls-files -z --cached --others --exclude-standard |
  tar --null --files-from=- --ignore-failed-read -cf - | tar -xf - -C "$repo"

# How to become the unprivileged user; when this script already runs unprivileged, stay as is.
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  groups="$uid"
  socket="${DOCKER_SOCKET:-/var/run/docker.sock}"
  if [ -S "$socket" ] && docker info >/dev/null 2>&1; then
    groups="$uid,$(stat -c %g "$socket")"
  fi
  as_user=(setpriv --reuid="$uid" --regid="$uid" --groups="$groups" --inh-caps=-all --)
fi

# The first pass's interpreter, so both passes test the same Python. When the user cannot run
# it (an install under root's home, such as ~root/.pyenv), its installation is copied into a
# folder of its own; only when that fails is another Python >= 3.11 on PATH taken.
source .ci/python.sh
runs() { "${as_user[@]}" "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }
base=""
if runs "$PYTHON"; then
  base="$PYTHON"
else
  prefix=$("$PYTHON" -c 'import sys; print(sys.base_prefix)')
  name=$("$PYTHON" -c 'import sys, os; print(os.path.basename(sys.executable))')
  interpreter=$(mktemp -d)
  trap 'rm -rf "$sandbox" "$home" "$interpreter"' EXIT
  cp -a "$prefix/." "$interpreter/"
  chmod -R a+rX "$interpreter"
  # A shared-library build finds libpython through an absolute RUNPATH into the old prefix:
  # point it at the copy's own lib folder ($ORIGIN/../lib, a shorter string, NUL-padded).
  "$PYTHON" - "$interpreter/bin/$name" "$prefix/lib" <<'PY'
import sys
binary, old = sys.argv[1], sys.argv[2].encode() + b"\0"
data = open(binary, "rb").read()
if data.count(old) == 1:
    new = b"$ORIGIN/../lib"
    open(binary, "wb").write(data.replace(old, new + b"\0" * (len(old) - len(new))))
PY
  if runs "$interpreter/bin/$name"; then
    base="$interpreter/bin/$name"
  fi
fi
if [ -z "$base" ]; then
  for candidate in $(type -aP python3.12 python3.11 python3 | awk '!seen[$0]++'); do
    if runs "$candidate"; then
      base="$candidate"
      break
    fi
  done
fi
if [ -z "$base" ]; then
  echo "no Python >= 3.11 that uid $uid can run" >&2
  exit 1
fi
echo "unprivileged pass: uid $uid, $("$base" --version), in $repo"

# Installed as the invoking user (it can reach the package index), then handed over.
"$base" -m venv "$repo/.venv"
"$repo/.venv/bin/python" -m pip install -q --disable-pip-version-check -e "${repo}[test,judge]"
# GitHub's REST description (git-ignored, so not in the copy): installed if need be, then copied
# with the extract the first pass cached beside it into the user's home, named by
# WAZA_CI_GITHUB_OPENAPI (tests/github_description.py). Without it the pass fails, as CI is set.
description=$(bash .ci/openapi.sh)
cp -pR "$(dirname "$(dirname "$description")")" "$home/octokit-openapi"
description="$home/octokit-openapi/generated/$(basename "$description")"
# The Copilot CLI (git-ignored too), copied the same way, named by COPILOT_CLI_PATH.
cli=$(bash .ci/copilot-cli.sh)
mkdir -p "$home/copilot-cli"
cp -p "$cli" "$home/copilot-cli/copilot"
# mermaid's browser build (git-ignored too), named by WAZA_CI_MERMAID (tests/report/mermaid.py).
mermaid=$(bash .ci/mermaid.sh)
cp -pR "$(dirname "$(dirname "$mermaid")")" "$home/mermaid"
mermaid="$home/mermaid/dist/$(basename "$mermaid")"
if [ "$(id -u)" -eq 0 ]; then
  chown -R "$uid:$uid" "$sandbox" "$home"
fi

# PATH: the user's venv, then the invoking PATH without folders the user cannot enter.
path="$repo/.venv/bin"
IFS=: read -ra folders <<<"$PATH"
for folder in "${folders[@]}"; do
  if [ -n "$folder" ] && "${as_user[@]}" test -x "$folder"; then
    path="$path:$folder"
  fi
done

cd "$repo"
# WAZA_CI_CORPUS=none: nothing is beside this copy, so the corpus tests skip here, saying why
# (tests/conftest.py, require_shared); the first pass ran them.
"${as_user[@]}" env -i HOME="$home" PATH="$path" CI="${CI:-true}" LANG=C.UTF-8 \
  WAZA_CI_IMAGE="$image" TMPDIR="$home" WAZA_CI_GITHUB_OPENAPI="$description" WAZA_CI_CORPUS=none \
  COPILOT_CLI_PATH="$home/copilot-cli/copilot" \
  WAZA_CI_MERMAID="$mermaid" \
  .venv/bin/pytest -q -p no:cacheprovider "$@"
