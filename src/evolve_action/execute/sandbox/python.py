"""The Python interpreter our own launchers start inside the confinement (the CLI harness's
relay, standard library only), chosen for the level commands run at.

Ours is not always within reach: bubblewrap replaces /tmp, so a checkout there (its venv's
link) is out of sight; a sandbox user cannot enter /root, where a pyenv build lives, nor the
directories closed to it (`sandbox_shared`). The real file behind a venv's link, or a
system interpreter, may be.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

from evolve_action.execute.sandbox import confine as sandbox
from evolve_action.execute.sandbox import user as sandbox_user
from evolve_action.execute.sandbox.bwrap import default_hidden, masked


@functools.cache
def python_for_commands() -> str | None:
    """Ours where the confinement shows it, else the real file behind a venv's link, else a
    system one; None when none is within reach (the harness then says so before any run)."""
    ours = sys.executable
    chosen = sandbox.job_level()
    if chosen.level is sandbox.Level.NONE:
        return ours
    library = Path(sys.base_prefix, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}")
    candidates = [(ours, library / "os.py"), (os.path.realpath(ours), library / "os.py")]
    for system in ("/usr/local/bin/python3", "/usr/bin/python3"):
        candidates.append((system, Path(system).resolve().parent.parent / "lib"))
    for program, needs in candidates:
        if Path(program).exists() and _startable(chosen.level, Path(program), needs):
            return program
    return None


def _startable(level: sandbox.Level, program: Path, needs: Path) -> bool:
    if level is sandbox.Level.BWRAP:
        hidden = default_hidden()
        return masked(program, hidden) is None and masked(needs, hidden) is None
    uid = sandbox_user.POOL_FIRST  # every pool user has the same rights on shared files
    real = Path(os.path.realpath(program))
    return sandbox_user.allows(uid, real, os.X_OK) and sandbox_user.allows(uid, needs, os.R_OK)
