# The image behind `uses: bitwise-media-group/evolve@v1`. GitHub builds it at the start of a
# job (action.yml `image: Dockerfile`) or pulls the copy release.yml publishes to GHCR.
#
# Python 3.11 because requirements/runtime.lock is compiled for it (`./dev lock`); a newer
# interpreter could resolve different environment markers than the lock was checked against.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# git: base/head worktrees and each run's workspace repository. bubblewrap: confinement of the
# agent's commands (sandbox.py falls back, and says so, where the runner's container may not
# create namespaces). safe.directory: actions/checkout trusts the workspace only in the runner
# user's global config, and the container's root user has another HOME, so without it git
# refuses /github/workspace as "dubious ownership".
RUN apt-get update \
    && apt-get install -y --no-install-recommends git bubblewrap ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && git config --system --add safe.directory '*'

WORKDIR /opt/evolve-action

# Dependencies first, from the hashed lock alone, so a change to the source reuses this layer.
COPY requirements/runtime.lock requirements/runtime.lock
RUN python -m pip install --require-hashes -r requirements/runtime.lock

# Then the package itself; --no-deps keeps the lock the only source of third-party code. The
# source is removed once installed: Python imports the copy in site-packages.
COPY pyproject.toml README.md ./
COPY src ./src
RUN python -m pip install --no-deps . \
    && rm -rf build src

# No USER: GitHub runs container actions as root and mounts /github/workspace and
# /github/file_commands owned by the runner user; its docs ask actions not to set USER, because
# a non-root user cannot write outputs, the job summary or results into the workspace.
#
# Exec form, console script directly: Python is PID 1, so no shell sits between the runner and
# the process that holds the API keys, and signals reach Python. action.yml passes `run`.
ENTRYPOINT ["evolve-action"]
