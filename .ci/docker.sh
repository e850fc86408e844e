#!/usr/bin/env bash
# Build the action's image as waza-ci:test from the committed Dockerfile; idempotent.
# On this project's machines: starts the Docker engine and builds the local python:3.12-slim
# stand-in (no registry is reachable) with the helpers in ../shared/tools. Elsewhere (a GitHub
# runner) Docker is already up and the base image is pulled from its registry.
# The Dockerfile pins its base by digest, which no local stand-in can carry, so the build names
# the local base through BASE_IMAGE (the runner's own build of the action, in the dogfood job,
# uses the pinned digest).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="$root/../shared/tools"
base=python:3.12-slim
image=${WAZA_CI_IMAGE:-waza-ci:test}
start=$SECONDS
step() { printf '\n== docker: %s (%ss)\n' "$1" "$((SECONDS - start))"; }

step "engine"
if docker info >/dev/null 2>&1; then
  echo "docker engine already up"
elif [ -f "$tools/start-dockerd.sh" ]; then
  bash "$tools/start-dockerd.sh"
else
  echo "no usable Docker engine and no $tools/start-dockerd.sh" >&2
  exit 1
fi

step "base image $base"
if docker image inspect "$base" >/dev/null 2>&1; then
  echo "$base present"
elif [ -f "$tools/make-python-standin.sh" ]; then
  t0=$SECONDS
  bash "$tools/make-python-standin.sh" docker "$base"
  echo "stand-in built in $((SECONDS - t0))s"
else
  docker pull "$base"
fi

step "build $image"
t0=$SECONDS
# The Dockerfile as committed; no --pull, so the local base image is the one used.
# The machine's own CA certificates (Debian's place for them), for the build stage that fetches
# the Copilot CLI with npm through this machine's TLS-inspecting proxy; none elsewhere.
extra_ca=""
for cert in /usr/local/share/ca-certificates/*.crt; do
  [ -f "$cert" ] && extra_ca+="$(cat "$cert")"$'\n'
done
docker build --build-arg BASE_IMAGE="$base" --build-arg EXTRA_CA_CERTS="$extra_ca" -t "$image" "$root"
echo "built $image in $((SECONDS - t0))s ($(docker image inspect --format '{{.Size}}' "$image") bytes)"

step "done"
