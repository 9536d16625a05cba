"""The confinement levels this machine can give, for tests that must hold at each of them.

GitHub's container gets the unprivileged-user level (Docker's seccomp refuses bubblewrap's
namespaces), so every confinement-dependent test runs there too, with bubblewrap hidden,
whether or not the machine has it; and with bubblewrap where it works. A level the machine
cannot give (the user level needs root) skips and says why.

In-process, bubblewrap is hidden by answering its probe as a machine without it would;
for a subprocess (the CLI run as GitHub runs it), by a PATH without `bwrap`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from evolve_action.execute.sandbox import confine as sandbox
from evolve_action.execute.sandbox import python as sandbox_python
from evolve_action.execute.sandbox.confine import (
    BwrapStatus,
    Level,
    SandboxMode,
    probe_bwrap,
    probe_user,
)

needs_bwrap = pytest.mark.skipif(
    not probe_bwrap().works, reason=f"bubblewrap unusable: {probe_bwrap().reason}"
)
needs_user = pytest.mark.skipif(
    not probe_user().works, reason=f"no unprivileged user: {probe_user().reason}"
)
BWRAP, USER = "bwrap", "user"
LEVELS = [pytest.param(BWRAP, marks=needs_bwrap), pytest.param(USER, marks=needs_user)]
# The sandbox modes a tool or command can be given, each where this machine has it.
MODES = [
    SandboxMode.NONE,
    pytest.param(SandboxMode.USER, marks=needs_user),
    pytest.param(SandboxMode.BWRAP, marks=needs_bwrap),
]
_HIDDEN = BwrapStatus(False, "bwrap is not installed (hidden by the test)")


@contextmanager
def at_level(level: str) -> Iterator[Level]:
    """Within: this process confines commands at `level` (bubblewrap hidden for USER)."""
    with pytest.MonkeyPatch.context() as patch:
        if level == USER:
            patch.setattr(sandbox, "probe_bwrap", lambda: _HIDDEN)
        sandbox_python.python_for_commands.cache_clear()
        try:
            chosen = sandbox.job_level().level
            assert chosen.value == level, f"asked for {level}, got {chosen}"
            yield chosen
        finally:
            sandbox_python.python_for_commands.cache_clear()


def path_without_bwrap(scratch: Path, path: str | None = None) -> str:
    """PATH with every directory that holds bwrap replaced by a copy of links without it."""
    dirs = []
    for n, entry in enumerate((path or os.environ.get("PATH", "")).split(os.pathsep)):
        directory = Path(entry)
        if not (directory / "bwrap").exists():
            dirs.append(entry)
            continue
        shadow = scratch / f"path{n}"
        shadow.mkdir(parents=True, exist_ok=True)
        for tool in directory.iterdir():
            if tool.name != "bwrap" and not (shadow / tool.name).exists():
                (shadow / tool.name).symlink_to(tool)
        dirs.append(str(shadow))
    return os.pathsep.join(dirs)


def env_at_level(level: str, env: dict[str, str], scratch: Path) -> dict[str, str]:
    """`env` for a subprocess that must confine at `level`."""
    if level == USER:
        return {**env, "PATH": path_without_bwrap(scratch, env.get("PATH"))}
    return env
