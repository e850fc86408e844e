#!/usr/bin/env bash
# The GitHub Copilot CLI for the judge's tests (tests/judge/): the npm platform package
# @github/copilot-linux-x64 (or -linux-arm64), pinned in waza_ci/judge/copilot-cli.env (the one
# pin: the image's build stage runs this script too), fetched with npm and never committed. Its
# binary and licence are unpacked into .ci/.npm/copilot-cli/ (git-ignored); the tarball's sha512
# must be the pinned one. The Python SDK (a runtime dependency) drives it.
#
# Usage: bash .ci/copilot-cli.sh   (does nothing when that version is there; prints the binary)
# The tests look there, or at the binary COPILOT_CLI_PATH names (.ci/unprivileged.sh sets it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
pin=waza_ci/judge/copilot-cli.env
field() { sed -n "s/^$1=//p" "$pin"; }
version=$(field version)
case "$(uname -m)" in
  x86_64 | amd64) read -r package integrity <<<"$(field x86_64)" ;;
  aarch64 | arm64) read -r package integrity <<<"$(field aarch64)" ;;
  *)
    echo "no Copilot CLI package for $(uname -m)" >&2
    exit 1
    ;;
esac
if [ -z "$version" ] || [ -z "$package" ] || [ -z "$integrity" ]; then
  echo "$pin does not pin the Copilot CLI for $(uname -m)" >&2
  exit 1
fi
dest=.ci/.npm/copilot-cli

if [ -x "$dest/copilot" ] && [ -f "$dest/version" ] && [ "$(cat "$dest/version")" = "$package@$version" ]; then
  echo "$PWD/$dest/copilot"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "npm and node are needed to fetch $package@$version (the Copilot CLI)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=.ci/npm-file.sh
source .ci/npm-file.sh
tarball=$(npm_tarball "$package" "$version" "$integrity" "$work")
tar -xzf "$tarball" -C "$work" package/copilot package/LICENSE.md
rm -rf "$dest"
mkdir -p "$dest"
mv "$work/package/copilot" "$work/package/LICENSE.md" "$dest/"
chmod a+rx "$dest/copilot"
echo "$package@$version" >"$dest/version"
echo "$PWD/$dest/copilot"
