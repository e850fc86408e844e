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

# shellcheck source=.ci/npm-file.sh
source .ci/npm-file.sh
npm_file "mermaid" "$version" "$integrity" "$dest" "$file" "the summary chart's parser"
