#!/usr/bin/env bash
# Mermaid for the tests (tests/report/mermaid.py): the npm package `mermaid`, pinned below,
# fetched with npm at CI time and never committed. The tests load its browser build into the
# Chromium the HTML report's tests use and ask mermaid's own parser and renderer about the job
# summary's `xychart-beta` chart. Only what they read is unpacked, into .ci/.npm/mermaid/
# (git-ignored): package.json, LICENSE and dist/mermaid.min.js. The tarball's sha512 must be
# the one pinned here.
#
# Usage: bash .ci/mermaid.sh   (does nothing when that version is there; prints the file's path)
# The tests look there, or at the file WAZA_CI_MERMAID names (.ci/unprivileged.sh sets it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
version=12.4.0
integrity=sha512-j2gvsGUFeS/53WdYLl9H5G2YtMZX9G/PlCvV3E5Pf4j5XSnK19DwazU6wki7OTcKeYKed7+qujRDLhy8NV2zBg==
dest=.ci/.npm/mermaid
file=dist/mermaid.min.js

if [ -f "$dest/$file" ] && [ -f "$dest/package.json" ] &&
  grep -q "\"version\": \"$version\"" "$dest/package.json"; then
  echo "$PWD/$dest/$file"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "npm and node are needed to fetch mermaid@$version (the summary chart's parser)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# `npm pack` downloads the published tarball through npm's client and cache, without installing.
npm pack --silent --pack-destination "$work" "mermaid@$version" >/dev/null
tarball=$(find "$work" -maxdepth 1 -name '*.tgz' -print -quit)
actual=$(node -e '
  const data = require("fs").readFileSync(process.argv[1]);
  process.stdout.write("sha512-" + require("crypto").createHash("sha512").update(data).digest("base64"));
' "$tarball")
if [ "$actual" != "$integrity" ]; then
  echo "mermaid@$version: the tarball's $actual is not the pinned $integrity" >&2
  exit 1
fi

mkdir -p "$work/unpacked" .ci/.npm
tar -xzf "$tarball" -C "$work/unpacked" package/package.json package/LICENSE "package/$file"
chmod -R a+rX "$work/unpacked/package"
rm -rf "$dest.partial"
mv "$work/unpacked/package" "$dest.partial"
rm -rf "$dest"
mv "$dest.partial" "$dest"
echo "$PWD/$dest/$file"
