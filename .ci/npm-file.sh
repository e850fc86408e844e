#!/usr/bin/env bash
# A pinned npm package, fetched with npm's client at CI time (never committed), its tarball's
# sha512 checked against the pin: npm_tarball. npm_file then unpacks only package.json, LICENSE
# and one file into DEST (git-ignored), doing nothing when that version is there already, and
# prints the file's absolute path. Sourced by .ci/mermaid.sh and .ci/openapi.sh (npm_file) and by
# .ci/copilot-cli.sh (npm_tarball), which hold the pins and say what they are for.
#
# Usage: npm_file PACKAGE VERSION INTEGRITY DEST FILE WHAT   (cwd: the repository root)
#        npm_tarball PACKAGE VERSION INTEGRITY DIR   (prints the verified tarball's path)

# The published tarball, downloaded into DIR through npm's client and cache without installing,
# and refused unless its sha512 is the pinned one; .ci/copilot-cli.sh uses it too.
npm_tarball() {
  local package=$1 version=$2 integrity=$3 dir=$4 tarball actual
  npm pack --silent --pack-destination "$dir" "$package@$version" >/dev/null
  tarball=$(find "$dir" -maxdepth 1 -name '*.tgz' -print -quit)
  actual=$(node -e '
    const data = require("fs").readFileSync(process.argv[1]);
    process.stdout.write("sha512-" + require("crypto").createHash("sha512").update(data).digest("base64"));
  ' "$tarball")
  if [ "$actual" != "$integrity" ]; then
    echo "$package@$version: the tarball's $actual is not the pinned $integrity" >&2
    return 1
  fi
  echo "$tarball"
}

npm_file() {
  local package=$1 version=$2 integrity=$3 dest=$4 file=$5 what=$6
  if [ -f "$dest/$file" ] && [ -f "$dest/package.json" ] &&
    grep -q "\"version\": \"$version\"" "$dest/package.json"; then
    echo "$PWD/$dest/$file"
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    echo "npm and node are needed to fetch $package@$version ($what)" >&2
    return 1
  fi
  local work tarball
  work=$(mktemp -d)
  # shellcheck disable=SC2064 # expand now: $work is local to this function
  trap "rm -rf '$work'" EXIT
  tarball=$(npm_tarball "$package" "$version" "$integrity" "$work") || return 1
  mkdir -p "$work/unpacked" "$(dirname "$dest")"
  tar -xzf "$tarball" -C "$work/unpacked" package/package.json package/LICENSE "package/$file"
  chmod -R a+rX "$work/unpacked/package"
  rm -rf "$dest.partial"
  mv "$work/unpacked/package" "$dest.partial"
  rm -rf "$dest"
  mv "$dest.partial" "$dest"
  echo "$PWD/$dest/$file"
}
