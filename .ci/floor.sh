#!/usr/bin/env bash
# The fast, Docker-free part of the suite (tests/waza, tests/graders, tests/report: the pure
# stages, where a patch release of Python can differ, as 3.11.2's regex engine did) once more on
# the oldest interpreter pyproject.toml allows: requires-python's floor, its lowest patch release
# on this machine (Debian 12's /usr/bin/python3 is 3.11.2). Fails when there is none: CI's
# workflow installs one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
floor=$(sed -n 's/^requires-python = ">=\([0-9]*\.[0-9]*\)"$/\1/p' pyproject.toml)
[[ -n $floor ]] || { echo "requires-python in pyproject.toml is not \">=MAJOR.MINOR\"" >&2; exit 1; }
pyenv_root=$(pyenv root 2>/dev/null || true)
found=()
for candidate in /usr/bin/python3 "python$floor" ${pyenv_root:+"$pyenv_root"/versions/"$floor".*/bin/python3}; do
  version=$("$candidate" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null) ||
    continue
  if [[ $version == "$floor".* ]]; then
    found+=("$version $(command -v "$candidate")")
  fi
done
((${#found[@]})) || { echo "no Python $floor.x found (requires-python's floor)" >&2; exit 1; }
read -r best_version best < <(printf '%s\n' "${found[@]}" | sort -V | head -n1)
echo "Python $best_version ($best)"
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
"$best" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -e '.[test]' \
  2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2)
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/waza tests/graders tests/report
