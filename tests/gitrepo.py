"""Real git repositories for tests: an isolated git configuration and two small helpers.

The host's git config (global and system) never applies, and commits have a fixed author, so
tests behave the same on every machine and in CI.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "PATH": "/usr/bin:/bin",
}


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` with the isolated configuration; its stdout, stripped."""
    out = subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True)
    return out.stdout.decode().strip()


def put(repo: Path, rel: str, content: str) -> None:
    """Write `content` at `rel` in `repo`, creating folders as needed."""
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)


def commit_base(repo: Path, branch: str = "feature") -> str:
    """Make `repo` a repository on `main` whose one commit (the base) holds everything in it,
    then check out `branch` for the head's edits. The base commit's sha."""
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", branch)
    return base
