"""Putting the CLIs where the confinement can start them (`harness/stage.py`), without root.

At the bubblewrap level a CLI under a masked directory (the checkout, /github) or under /tmp
(the sandbox has a private one) is invisible to the sandboxed CLI: it is copied, once, into
the staging directory. The user level, which needs root, is in
tests/integration/test_harness_stage_user.py.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from evolve_action.execute.harness import install
from evolve_action.execute.harness.claude import ClaudeCode
from evolve_action.execute.harness.codex import Codex
from evolve_action.execute.harness.install import CliBinary, installed
from evolve_action.execute.harness.stage import obstacle, place, stage_dir
from evolve_action.execute.sandbox.bwrap import masked
from evolve_action.execute.sandbox.confine import Confinement, Level, SandboxMode, probe_bwrap

CLAUDE, CODEX = ClaudeCode.cli, Codex.cli


def fake_install(directory: Path) -> dict[str, CliBinary]:
    """Both pinned CLIs as tiny scripts, laid out as the installer lays out the real ones."""
    for spec in (CLAUDE, CODEX):
        package, binary = spec.native(*install.this_platform())
        path = directory / package / binary
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"#!/bin/sh\necho {spec.name} ran as $(id -u)\n")
        path.chmod(0o755)
        (directory / package / "README.md").write_text("docs\n")
    codex = installed_path(directory, CODEX).parent.parent / "codex-path"
    codex.mkdir()
    (codex / "rg").write_text("#!/bin/sh\necho rg\n")
    (codex / "rg").chmod(0o755)
    (directory / install.STAMP).write_text(install.lock_digest())
    found = {s.name: installed(s, directory) for s in (CLAUDE, CODEX)}
    assert all(found.values()), found
    return {name: b for name, b in found.items() if b is not None}


def installed_path(directory: Path, spec: install.CliSpec) -> Path:
    package, binary = spec.native(*install.this_platform())
    return directory / package / binary


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A directory bubblewrap shows as it is: not under /tmp, which it makes its own."""
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("/var/tmp is not writable here")
    path = Path(tempfile.mkdtemp(prefix="evolve-stage-test-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_the_sandbox_hides_its_own_tmp_and_the_masked_directories(tmp_path: Path) -> None:
    hidden = [tmp_path / "github"]
    (tmp_path / "github" / "workspace").mkdir(parents=True)
    assert masked(Path("/usr/bin/env"), hidden) is None
    assert masked(Path("/tmp/x"), []) == Path("/tmp")
    assert masked(Path("/proc/self"), []) == Path("/proc")
    assert masked(tmp_path / "github" / "workspace", hidden) is not None
    # a link in /tmp to a visible place is still not there: the CLI is started by its path
    link = tmp_path / "link"
    link.symlink_to("/usr/bin")
    assert masked(link / "env", []) == Path("/tmp")


def test_the_staging_directory_is_roots_own_or_the_users_cache() -> None:
    assert stage_dir({"EVOLVE_CLI_STAGE_DIR": "/srv/x"}) == Path("/srv/x")
    expected = (
        Path("/var/lib/evolve-action/clis")
        if os.geteuid() == 0
        else Path("/home/u/.cache/evolve-action/staged-clis")
    )
    assert stage_dir({"HOME": "/home/u"}) == expected


def test_nothing_is_copied_where_the_cli_is_visible_or_nothing_confines(
    outside_tmp: Path, tmp_path: Path
) -> None:
    visible = fake_install(outside_tmp / "clis")
    root = outside_tmp / "stage"
    assert place(visible, level=Level.BWRAP, hidden=[], root=root) == (visible, {})
    anywhere = fake_install(tmp_path / "clis")
    assert place(anywhere, level=Level.NONE, hidden=[tmp_path], root=root) == (anywhere, {})
    assert not root.exists()


def test_a_masked_install_is_copied_once_where_the_sandbox_sees_it(outside_tmp: Path) -> None:
    checkout = outside_tmp / "checkout"
    binaries = fake_install(checkout / ".evolve-cache" / "clis")
    hidden = [checkout]
    assert obstacle(binaries["claude"], Level.BWRAP, hidden) == (
        f"is not visible inside the sandbox: {binaries['claude'].path} is under {checkout}, "
        "which bubblewrap replaces with a directory of its own"
    )
    root = outside_tmp / "stage"
    old = os.umask(0)  # whatever the umask, the copy is writable by its owner alone
    try:
        staged, unavailable = place(binaries, level=Level.BWRAP, hidden=hidden, root=root)
    finally:
        os.umask(old)
    assert unavailable == {}
    home = root / install.lock_digest()[:16]
    for name, binary in staged.items():
        assert binary.path.is_relative_to(home) and binary.version == binaries[name].version
        assert binary.source == str(home) and binary.copied_from == binaries[name].source
        assert binary.where() == f"{home}, copied from {binaries[name].source}"
        assert obstacle(binary, Level.BWRAP, hidden) is None
    assert staged["codex"].path_dirs == (staged["codex"].path.parent.parent / "codex-path",)
    for current, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            mode = stat.S_IMODE(Path(current, name).lstat().st_mode)
            assert not mode & 0o022, (current, name, oct(mode))
    assert stat.S_IMODE(staged["claude"].path.stat().st_mode) == 0o755
    assert [p.name for p in home.iterdir() if p.name.startswith(".stage-")] == []

    # A later job reuses the copy: the same files, not copied again.
    inode = staged["claude"].path.stat().st_ino
    again, _ = place(binaries, level=Level.BWRAP, hidden=hidden, root=root)
    assert again["claude"].path.stat().st_ino == inode


def test_a_copy_that_cannot_be_made_says_what_happened_why_and_what_to_do(
    outside_tmp: Path,
) -> None:
    checkout = outside_tmp / "checkout"
    binaries = fake_install(checkout / "clis")
    (outside_tmp / "full").write_text("a file where the staging directory should be")
    root = outside_tmp / "full" / "stage"
    staged, unavailable = place(binaries, level=Level.BWRAP, hidden=[checkout], root=root)
    assert staged == {}
    why = unavailable["claude"]
    assert why.startswith(f"claude in {checkout / 'clis'} is not visible inside the sandbox")
    assert f"could not be copied to {root}/" in why and "Not a directory" in why
    assert "it needs 0 MiB there" in why and "set EVOLVE_CLI_STAGE_DIR" in why


def test_a_copy_the_sandbox_could_not_see_either_is_refused(tmp_path: Path) -> None:
    binaries = fake_install(tmp_path / "checkout" / "clis")
    root = tmp_path / "stage"  # under /tmp, which the sandbox makes its own
    _, unavailable = place(binaries, level=Level.BWRAP, hidden=[tmp_path / "checkout"], root=root)
    assert "its copy in" in unavailable["codex"]
    assert "which bubblewrap replaces with a directory of its own" in unavailable["codex"]


def test_a_cli_on_path_is_never_copied(outside_tmp: Path) -> None:
    binaries = fake_install(outside_tmp / "home" / "clis")
    on_path = {"claude": replace(binaries["claude"], source="PATH")}
    hidden = [outside_tmp / "home"]
    staged, unavailable = place(on_path, level=Level.BWRAP, hidden=hidden, root=outside_tmp / "s")
    assert staged == {}
    assert unavailable["claude"].startswith(f"claude on PATH ({binaries['claude'].path})")
    assert "take it off PATH" in unavailable["claude"]
    assert not (outside_tmp / "s").exists()


@pytest.mark.skipif(not probe_bwrap().works, reason=f"bubblewrap unusable: {probe_bwrap().reason}")
async def test_the_staged_cli_starts_inside_bubblewrap_and_the_masked_one_does_not(
    outside_tmp: Path,
) -> None:
    checkout = outside_tmp / "checkout"
    binaries = fake_install(checkout / "clis")
    workspace = outside_tmp / "ws"
    workspace.mkdir()
    confinement = Confinement(workspace, mode=SandboxMode.BWRAP, hidden=(checkout,))
    masked_run = await confinement.run([str(binaries["claude"].path)], timeout_s=20)
    assert masked_run.exit_code != 0 and "No such file" in masked_run.stderr
    staged, _ = place(binaries, level=Level.BWRAP, hidden=[checkout], root=outside_tmp / "s")
    for name, binary in staged.items():
        done = await confinement.run([str(binary.path)], timeout_s=20)
        assert done.exit_code == 0 and done.stdout.startswith(f"{name} ran as"), done


def test_a_relative_cache_directory_gives_absolute_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cache-dir: .evolve-cache` is relative to the checkout; the CLI starts elsewhere."""
    fake_install(tmp_path / ".evolve-cache" / "clis")
    monkeypatch.chdir(tmp_path)
    found = install.locate(["claude"], environ={"PATH": ""}, directory=Path(".evolve-cache/clis"))
    assert found["claude"].path.is_absolute() and found["claude"].path.is_file()
    assert found["claude"].source == str(tmp_path / ".evolve-cache" / "clis")


def test_links_in_the_install_are_copied_as_links_never_followed(outside_tmp: Path) -> None:
    """We copy as root: a link planted in a cache must not turn into a readable copy of what
    it names, nor have that file's mode changed."""
    checkout = outside_tmp / "checkout"
    binaries = fake_install(checkout / "clis")
    secret = outside_tmp / "secret"
    secret.write_text("root's own\n")
    secret.chmod(0o600)
    package = binaries["claude"].path.parent
    (package / "environ").symlink_to(secret)
    staged, _ = place(binaries, level=Level.BWRAP, hidden=[checkout], root=outside_tmp / "s")
    copied = staged["claude"].path.parent / "environ"
    assert copied.is_symlink() and os.readlink(copied) == str(secret)
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
