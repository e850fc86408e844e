# waza-ci container action: re-grades saved waza results with every grader that needs no model.
#
# GitHub's runner builds this file on every job that uses the action (build context: this
# folder) with Docker's legacy builder or BuildKit, so it keeps to syntax both accept: no
# heredocs, no COPY --chmod, no RUN --mount. A release publishes a prebuilt image instead
# (.github/workflows/release.yml), which users' jobs pull.
#
# The base image is pinned by digest (the official python:3.12-slim image index), so a moved
# tag cannot change what ships; BASE_IMAGE names another base (a mirror, a local build) at
# build time: docker build --build-arg BASE_IMAGE=... . To update the pin, take the index digest
# that `docker buildx imagetools inspect python:3.12-slim` prints.
ARG BASE_IMAGE=python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea

# Stage 1: build the waza-ci wheel with a hash-pinned build backend, so the
# final image gets neither setuptools nor build leftovers.
FROM ${BASE_IMAGE} AS build

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

COPY requirements/build.txt /build/requirements/build.txt
RUN pip install --require-hashes --only-binary=:all: -r /build/requirements/build.txt

COPY pyproject.toml README.md /build/src/
COPY waza_ci /build/src/waza_ci
RUN pip wheel --no-deps --no-build-isolation --wheel-dir /build/wheels /build/src

# Stage 2: the Copilot CLI for the LLM judge (`--judge`), fetched with npm's client by the script
# CI uses, at the version and sha512 pinned in waza_ci/judge/copilot-cli.env; npm and node stay
# in this stage, only the binary and its licence reach the image.
FROM ${BASE_IMAGE} AS copilot-cli
# npm's own version is not pinned: it only downloads, and what it downloads must match the
# pinned sha512 or the build stops. The base's Debian release decides which npm there is.
# hadolint ignore=DL3008
RUN apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null \
    && rm -rf /var/lib/apt/lists/*
COPY .ci/copilot-cli.sh .ci/npm-file.sh /build/.ci/
COPY waza_ci/judge/copilot-cli.env /build/waza_ci/judge/copilot-cli.env
# A build behind a TLS-inspecting proxy hands its extra CA certificates in here, for npm alone;
# they never reach the image, and the pinned sha512, not the connection, decides what is
# accepted.
ARG EXTRA_CA_CERTS=""
RUN if [ -n "$EXTRA_CA_CERTS" ]; then \
        printf '%s\n' "$EXTRA_CA_CERTS" >/tmp/extra-ca.crt \
        && export NODE_EXTRA_CA_CERTS=/tmp/extra-ca.crt; \
    fi \
    && bash /build/.ci/copilot-cli.sh

# Stage 3: the action image.
FROM ${BASE_IMAGE}

LABEL org.opencontainers.image.title="waza-ci" \
      org.opencontainers.image.description="Re-grade saved waza eval results with every grader that needs no model and report to GitHub" \
      org.opencontainers.image.licenses="MIT"

# PYTHONUNBUFFERED keeps log lines and workflow commands in order with grader output.
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

# The lock first, so this layer is reused until requirements/runtime.txt changes.
# Every package is pinned with ==, and its hashes are enforced.
COPY requirements/runtime.txt /action/requirements/runtime.txt
RUN pip install --require-hashes --only-binary=:all: -r /action/requirements/runtime.txt

# Then the package itself: its dependencies are already installed from the lock.
COPY --from=build /build/wheels /tmp/waza-ci-wheels
RUN pip install --no-deps --no-index /tmp/waza-ci-wheels/*.whl \
    && rm -rf /tmp/waza-ci-wheels

# Bytecode for the standard library and every installed package, made once here rather than on
# every container start: not every base image ships it, and
# PYTHONDONTWRITEBYTECODE stops the action from caching what it compiles. -x skips test data
# that is deliberately not valid Python.
RUN python -m compileall -q -j 0 -x '/(test|tests|idle_test|lib2to3)/' \
    "$(python -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')"

# The judge's CLI, found on PATH (COPILOT_CLI_PATH still names another). Its licence allows
# redistribution inside an application, which this image is.
COPY --from=copilot-cli /build/.ci/.npm/copilot-cli/copilot /usr/local/bin/copilot
COPY --from=copilot-cli /build/.ci/.npm/copilot-cli/LICENSE.md /usr/local/share/doc/copilot-cli/LICENSE.md

COPY LICENSE /action/LICENSE
COPY entrypoint.py /action/entrypoint.py

# No WORKDIR and no USER: the runner mounts the workspace at /github/workspace, makes
# it the working directory, and needs the container's default user (root) to use it.
ENTRYPOINT ["/usr/local/bin/python", "/action/entrypoint.py"]
