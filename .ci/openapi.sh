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

# shellcheck source=.ci/npm-file.sh
source .ci/npm-file.sh
npm_file "@octokit/openapi" "$version" "$integrity" "$dest" "$file" "GitHub's REST description"
