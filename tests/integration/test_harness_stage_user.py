"""The CLIs at the unprivileged-user level (GitHub's container): an install the sandbox user
cannot reach (under a root-only directory, as the cache directory is under /github) is copied
where it can start the CLI and cannot change it, and the pool user then runs it.

These need root (to switch users); elsewhere they skip. `scripts/image_check.py` (variant
`unusable-cli`) does the same with the real CLIs in the built image.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.execute.harness import install
from evolve_action.execute.harness.install import CliBinary
from evolve_action.execute.harness.stage import obstacle, place
from evolve_action.execute.sandbox.confine import Confinement, Level, SandboxMode, probe_user
from evolve_action.execute.sandbox.user import POOL_FIRST
from tests.conftest import reachable_place
from tests.unit.test_harness_stage import fake_install

pytestmark = pytest.mark.skipif(
    not probe_user().works, reason=f"no unprivileged user: {probe_user().reason}"
)


@pytest.fixture
def place_dir() -> Iterator[Path]:
    """Root's own, searchable by all (as /tmp's children we make): workspaces, stage, install."""
    with reachable_place("evolve-stage-user-", 0o755) as path:
        yield path


@pytest.fixture
def closed_install(place_dir: Path) -> dict[str, CliBinary]:
    """The CLIs in a cache directory under a root-only parent, like /github in the container."""
    github = place_dir / "github"
    github.mkdir(mode=0o700)
    github.chmod(0o700)
    return fake_install(github / "workspace" / ".evolve-cache" / "clis")


@pytest.fixture
def conf(place_dir: Path) -> Iterator[Confinement]:
    workspace = place_dir / "run" / "workspace"
    workspace.mkdir(parents=True)
    confinement = Confinement(workspace, mode=SandboxMode.USER, kill_grace_s=0.5)
    yield confinement
    confinement.release()


async def test_a_closed_install_is_staged_and_the_pool_user_runs_it(
    closed_install: dict[str, CliBinary], conf: Confinement, place_dir: Path
) -> None:
    claude = closed_install["claude"]
    before = await conf.run([str(claude.path)], timeout_s=20)
    assert "cannot be run by the sandbox user" in (before.error or "")
    assert obstacle(claude, Level.USER, []) == (
        f"cannot be started by the sandbox users: {place_dir / 'github'} is closed to other users"
    )

    staged, unavailable = place(closed_install, level=Level.USER, hidden=[], root=place_dir / "s")
    assert unavailable == {}
    for name, binary in staged.items():
        assert obstacle(binary, Level.USER, []) is None  # the copy, checked again
        done = await conf.run([str(binary.path)], timeout_s=20)
        assert not done.error and done.stdout == f"{name} ran as {conf.user}\n"
    rg = await conf.run(
        ["rg"], timeout_s=20, extra_env={"PATH": f"{staged['codex'].path_dirs[0]}:/usr/bin:/bin"}
    )
    assert rg.stdout == "rg\n"


async def test_the_pool_user_cannot_change_the_staged_cli(
    closed_install: dict[str, CliBinary], conf: Confinement, place_dir: Path
) -> None:
    staged, _ = place(closed_install, level=Level.USER, hidden=[], root=place_dir / "s")
    binary = staged["claude"].path
    package = binary.parent
    attack = (
        f"echo 'echo owned' >> {binary}; rm -f {binary}; mv {package} {package}.x; "
        f"touch {package}/planted; chmod 777 {binary}; mkdir {place_dir / 's'}/x"
    )
    done = await conf.run(attack, timeout_s=20)
    assert done.stderr.count("Permission denied") == 5
    assert done.stderr.count("Operation not permitted") == 1  # chmod
    assert binary.read_text().endswith("ran as $(id -u)\n")
    assert not (package / "planted").exists()
    assert stat.S_IMODE(binary.stat().st_mode) == 0o755


def test_a_staged_copy_a_sandbox_user_could_change_is_refused(
    closed_install: dict[str, CliBinary], place_dir: Path
) -> None:
    root = place_dir / "s"
    staged, _ = place(closed_install, level=Level.USER, hidden=[], root=root)
    staged["claude"].path.chmod(0o757)  # as if someone had loosened the copy
    again, unavailable = place(closed_install, level=Level.USER, hidden=[], root=root)
    assert "claude" not in again and "codex" in again
    why = unavailable["claude"]
    assert why.startswith(
        f"claude in {closed_install['claude'].source} cannot be started by the sandbox users"
    )
    assert (
        f"its copy in {root / install.lock_digest()[:16]} could be changed by the commands" in why
    )
    assert f"{staged['claude'].path} is writable by the sandbox users" in why
    assert "set EVOLVE_CLI_STAGE_DIR" in why


def test_a_staging_directory_a_pool_user_owns_is_refused(
    closed_install: dict[str, CliBinary], place_dir: Path
) -> None:
    root = place_dir / "s"
    root.mkdir()
    os.chown(root, POOL_FIRST + 7, POOL_FIRST + 7)  # made by a run, waiting for a CLI
    _, unavailable = place(closed_install, level=Level.USER, hidden=[], root=root)
    assert f"{root} is writable by the sandbox users" in unavailable["codex"]


def test_an_install_the_pool_user_can_reach_and_not_change_is_used_as_it_is(
    place_dir: Path,
) -> None:
    binaries = fake_install(place_dir / "open" / "clis")
    assert place(binaries, level=Level.USER, hidden=[], root=place_dir / "s") == (binaries, {})
    assert not (place_dir / "s").exists()
