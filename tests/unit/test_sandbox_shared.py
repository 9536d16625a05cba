"""The shared directories closed to the sandbox users (issue 22): the ACL entry, how access is
judged with it, and which directories the scan finds. The user-level behaviour itself (a
pool user's writes refused) is in tests/integration/test_confinement_user.py."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from evolve_action.execute.sandbox import acl as sandbox_acl
from evolve_action.execute.sandbox.acl import GROUP, MASK, Entry
from evolve_action.execute.sandbox.drop import SANDBOX_GID
from evolve_action.execute.sandbox.shared import close_shared_dirs, world_writable

POOL_UID = 50_000
OTHER_UID = 1234


def _shared(path: Path) -> Path:
    path.mkdir(parents=True)
    path.chmod(0o1777)
    return path


def _acl_or_skip(path: Path) -> tuple[Entry, ...]:
    why = sandbox_acl.deny_group(path, SANDBOX_GID)
    if why is not None:
        pytest.skip(f"no ACLs on this filesystem: {why}")
    return sandbox_acl.read(path)


def test_the_entry_refuses_the_sandbox_group_and_nobody_else(tmp_path: Path) -> None:
    shared = _shared(tmp_path / "shared")
    acl = _acl_or_skip(shared)
    info = shared.stat()
    assert Entry(GROUP, SANDBOX_GID, 0) in acl
    assert stat.S_IMODE(info.st_mode) == 0o1777  # the mode, sticky bit included, is kept
    for want in (os.R_OK, os.W_OK, os.X_OK):
        assert not sandbox_acl.grants(info, acl, POOL_UID, (POOL_UID, SANDBOX_GID), want)
        assert sandbox_acl.grants(info, acl, OTHER_UID, (OTHER_UID,), want)


def test_adding_it_twice_changes_nothing(tmp_path: Path) -> None:
    shared = _shared(tmp_path / "shared")
    first = _acl_or_skip(shared)
    assert sandbox_acl.deny_group(shared, SANDBOX_GID) is None
    assert sandbox_acl.read(shared) == first
    assert [e.tag for e in first].count(MASK) == 1


def test_mode_bits_alone_decide_without_an_acl(tmp_path: Path) -> None:
    info = _shared(tmp_path / "open").stat()
    assert sandbox_acl.grants(info, (), POOL_UID, (POOL_UID, SANDBOX_GID), os.W_OK)
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    assert not sandbox_acl.grants(closed.stat(), (), POOL_UID, (POOL_UID,), os.X_OK)


def test_a_named_user_entry_wins_over_the_groups(tmp_path: Path) -> None:
    info = _shared(tmp_path / "d").stat()
    acl = (
        Entry(sandbox_acl.USER_OBJ, 0xFFFFFFFF, 7),
        Entry(sandbox_acl.USER, POOL_UID, 5),
        Entry(sandbox_acl.GROUP_OBJ, 0xFFFFFFFF, 7),
        Entry(GROUP, SANDBOX_GID, 0),
        Entry(MASK, 0xFFFFFFFF, 7),
        Entry(sandbox_acl.OTHER, 0xFFFFFFFF, 7),
    )
    groups = (POOL_UID, SANDBOX_GID)
    assert sandbox_acl.grants(info, acl, POOL_UID, groups, os.R_OK | os.X_OK)
    assert not sandbox_acl.grants(info, acl, POOL_UID, groups, os.W_OK)
    assert not sandbox_acl.grants(info, acl, POOL_UID + 1, (POOL_UID + 1, SANDBOX_GID), os.X_OK)


def test_a_file_is_not_a_place_to_close(tmp_path: Path) -> None:
    plain = tmp_path / "file"
    plain.write_text("x")
    assert sandbox_acl.deny_group(plain, SANDBOX_GID) == "not a directory"


def test_the_scan_finds_world_writable_directories_and_not_what_is_below_them(
    tmp_path: Path,
) -> None:
    top = tmp_path / "root"
    found = _shared(top / "var" / "spool")
    _shared(found / "inner")  # closed with its parent: no need to look
    (top / "usr" / "lib").mkdir(parents=True)
    deep = _shared(top / "a" / "b" / "c" / "d")  # beyond the depth looked at
    for directory in (top, top / "var", top / "usr", top / "a", top / "a" / "b"):
        directory.chmod(0o755)
    assert world_writable(known=(), top=top) == [found]
    assert world_writable(known=(str(deep),), top=top) == [deep, found]


def test_a_directory_behind_a_closed_one_is_not_looked_at(tmp_path: Path) -> None:
    top = tmp_path / "root"
    private = top / "root"
    _shared(private / "scratch")
    private.chmod(0o700)  # no pool user could get to scratch
    top.chmod(0o755)
    assert world_writable(known=(), top=top) == []


def test_what_cannot_be_closed_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import evolve_action.execute.sandbox.shared as shared

    monkeypatch.setattr(shared, "in_own_container", lambda: False)
    monkeypatch.setattr(sandbox_acl, "deny_group", lambda path, gid: "no ACLs here")
    directory = _shared(tmp_path / "shared")
    assert close_shared_dirs([directory]) == [
        f"{directory} is writable by every user and cannot be closed to the sandbox users "
        "(no ACLs here), so runs could share files through it"
    ]
    monkeypatch.setattr(shared, "in_own_container", lambda: True)
    assert close_shared_dirs([directory]) == []  # in our own container: "other" bits cleared
    assert stat.S_IMODE(directory.stat().st_mode) == 0o1770


def test_a_link_to_a_closed_directory_is_closed_too() -> None:
    """The kernel checks the directory a link leads to, with its ACL: so must we."""
    from evolve_action.execute.sandbox.user import unreachable_parent
    from tests.conftest import reachable_place

    with reachable_place("evolve-acl-link-", 0o755) as place:
        closed = _shared(place / "closed")
        _acl_or_skip(closed)
        (closed / "ws").mkdir()
        (place / "link").symlink_to(closed)
        if unreachable_parent(place, POOL_UID) is not None:
            pytest.skip("the temporary directory's parents are closed to other users here")
        assert unreachable_parent(place / "link" / "ws", POOL_UID) == place / "link"
        assert unreachable_parent(closed / "ws", POOL_UID) == closed
