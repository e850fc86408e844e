#!/usr/bin/env bash
# GitHub's REST API description for the tests (tests/github_description.py): the npm package
# @octokit/openapi, pinned below, fetched with npm at CI time and never committed. Only what the
# tests read is unpacked, into .ci/.npm/octokit-openapi/ (git-ignored): package.json, LICENSE and
# generated/api.github.com.deref.json (api.github.com, every $ref resolved in place; 73 MB of the
# package's 400). The tarball's sha512 must be the one pinned here.
#
# Usage: bash .ci/openapi.sh   (does nothing when that version is there; prints the file's path)
# The tests look there, or at the file WAZA_CI_GITHUB_OPENAPI names (.ci/unprivileged.sh sets it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
version=23.0.2
integrity=sha512-pV8M7L9GY23AybNvTmo2nyjmpmnt6+2sRE/tqr0ZLQcPS4lnw7u5eZGNmwRNkBC3D7gZXbFx5AHzLUVRBXGDhg==
dest=.ci/.npm/octokit-openapi
file=generated/api.github.com.deref.json

if [ -f "$dest/$file" ] && [ -f "$dest/package.json" ] &&
  grep -q "\"version\": \"$version\"" "$dest/package.json"; then
  echo "$PWD/$dest/$file"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "npm and node are needed to fetch @octokit/openapi@$version (GitHub's REST description)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# `npm pack` downloads the published tarball through npm's client and cache, without installing.
npm pack --silent --pack-destination "$work" "@octokit/openapi@$version" >/dev/null
tarball=$(find "$work" -maxdepth 1 -name '*.tgz' -print -quit)
actual=$(node -e '
  const data = require("fs").readFileSync(process.argv[1]);
  process.stdout.write("sha512-" + require("crypto").createHash("sha512").update(data).digest("base64"));
' "$tarball")
if [ "$actual" != "$integrity" ]; then
  echo "@octokit/openapi@$version: the tarball's $actual is not the pinned $integrity" >&2
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
