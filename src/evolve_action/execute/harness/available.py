"""Which agent CLIs can run on this job: found or installed, where the confinement can start
them, with the programs their tools need, and no machine-wide configuration they would read.
`run.open_cli_harness` asks once per job; each CLI that cannot run gets its reason."""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from evolve_action.execute.harness import registry, stage
from evolve_action.execute.harness.install import CliBinary, InstallError, default_dir, locate
from evolve_action.execute.sandbox.python import python_for_commands

log = logging.getLogger(__name__)

NO_RELAY_PYTHON = (
    "no Python interpreter is within the confinement's reach to start the relay that connects "
    "the CLI to the credential proxy (ours is hidden by it: a checkout under /tmp, or a build "
    "under /root); install python3 in /usr/bin, or run from a checkout outside /tmp"
)


async def binaries(
    names: list[str], environ: Mapping[str, str], cache_dir: Path | None
) -> tuple[dict[str, CliBinary], dict[str, str]]:
    """The CLIs found or installed, each where the confinement can start it, and why each
    of the others cannot run."""
    found: dict[str, CliBinary] = {}
    unavailable: dict[str, str] = {}
    directory = default_dir(environ, cache_dir)
    try:
        found = await asyncio.to_thread(locate, names, environ=environ, directory=directory)
    except InstallError as exc:
        for name in names:
            unavailable[name] = f"{name} is not on PATH and could not be installed: {exc}"
            log.error("harness cli: %s", unavailable[name])
    # The install directory may be out of the confined CLI's reach (under /github, say).
    found, blocked = await asyncio.to_thread(stage.for_confinement, found, environ)
    for name, why in blocked.items():
        unavailable[name] = why
        log.error("harness cli: %s", why)
    if found and await asyncio.to_thread(python_for_commands) is None:
        unavailable.update(dict.fromkeys(found, NO_RELAY_PYTHON))
        log.error("harness cli: %s", NO_RELAY_PYTHON)
        return {}, unavailable
    return found, unavailable


def missing_helpers(names: Sequence[str], path: str) -> dict[str, str]:
    """Why each CLI whose tools need a program the job's PATH lacks cannot run."""
    missing = {}
    for name in names:
        harness = registry.HARNESSES[name]
        found = {p: shutil.which(p, path=path) for p in harness.needs_on_path}
        absent = [p for p, where in found.items() if where is None]
        if absent:
            missing[name] = (
                f"{name} needs {', '.join(absent)} on PATH (it runs it) and this job's PATH "
                "has none; install it (ripgrep is `apt-get install ripgrep`, Node.js 20+ "
                "is the `nodejs` package of Debian trixie or nodejs.org's build)"
            )
        elif (why := harness.unusable({p: w for p, w in found.items() if w})) is not None:
            missing[name] = why
    return missing


def machine_config(names: Sequence[str], root: Path = Path("/")) -> dict[str, str]:
    """Why each CLI that would read machine-wide configuration no flag turns off cannot run:
    the operator's MCP servers, hooks or settings there would reach the runs."""
    found = {}
    for name in names:
        present = [
            p for p in registry.HARNESSES[name].machine_config
            if (root / p.lstrip("/")).exists()
        ]  # fmt: skip
        if present:
            found[name] = (
                f"{name} reads {', '.join(present)} in every session whatever it is told, so "
                "MCP servers, hooks or settings of this machine would reach the runs; run on a "
                "machine without it, or with `harness: sdk`"
            )
    return found
