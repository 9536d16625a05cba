"""POSIX access control lists: what a user may do to a path, and closing a directory to a group.

The unprivileged-user level (`sandbox_user`) closes the world-writable directories (`/tmp`,
`/var/tmp`, `/dev/shm`, ...) to the sandbox users, without taking them from anyone else: one
ACL entry, `group:<sandbox group>:---`, which every pool user's process matches (it is their
one supplementary group) and no other process does. The kernel then refuses them even search
permission, whatever the "other" bits say. Other users, and root, see no change.

Whether a user may reach a path must then be read from the ACL too, not from the mode bits
alone (`grants`), or a closed `/tmp` would look open. The ACL is the `system.posix_acl_access`
extended attribute, in the kernel's binary form: a version word, then (tag, perm, id)
entries sorted by tag and id (linux/posix_acl_xattr.h, acl(5) for the access check).
"""

from __future__ import annotations

import errno
import os
import stat
import struct
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

_XATTR = "system.posix_acl_access"
_VERSION = 2
_HEADER = struct.Struct("<I")
_ENTRY = struct.Struct("<HHI")
_NO_ID = 0xFFFFFFFF
USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20


@dataclass(frozen=True, order=True)
class Entry:
    tag: int
    ident: int
    perm: int  # rwx as 4|2|1


def read(path: Path, *, follow_symlinks: bool = False) -> tuple[Entry, ...]:
    """The access ACL of `path` (of a last symlink itself, unless `follow_symlinks`), or ()
    when it has none beyond its mode bits, or the filesystem keeps none."""
    try:
        raw = os.getxattr(path, _XATTR, follow_symlinks=follow_symlinks)
    except OSError:
        return ()
    return _decode(raw)


def _decode(raw: bytes) -> tuple[Entry, ...]:
    if len(raw) < _HEADER.size or _HEADER.unpack_from(raw)[0] != _VERSION:
        return ()
    body = raw[_HEADER.size :]
    count = len(body) // _ENTRY.size
    return tuple(
        Entry(tag, ident, perm & 7)
        for tag, perm, ident in (_ENTRY.unpack_from(body, n * _ENTRY.size) for n in range(count))
    )


def _encode(entries: Collection[Entry]) -> bytes:
    ordered = sorted(entries, key=lambda e: (e.tag, e.ident))
    return _HEADER.pack(_VERSION) + b"".join(_ENTRY.pack(e.tag, e.perm, e.ident) for e in ordered)


def grants(info: os.stat_result, acl: tuple[Entry, ...], uid: int, gids: Collection[int],
           want: int) -> bool:  # fmt: skip
    """Whether a process of `uid` with groups `gids` (no capabilities) gets `want` (a mask of
    `os.R_OK | os.W_OK | os.X_OK`) on a file with this stat and ACL: the check of acl(5)."""
    if not acl:
        shift = 6 if info.st_uid == uid else 3 if info.st_gid in gids else 0
        return (info.st_mode >> shift) & want == want
    if info.st_uid == uid:
        return (info.st_mode >> 6) & want == want
    mask = next((e.perm for e in acl if e.tag == MASK), 7)
    named = [e.perm for e in acl if e.tag == USER and e.ident == uid]
    if named:
        return named[0] & mask & want == want
    groups = [
        e.perm
        for e in acl
        if (e.tag == GROUP_OBJ and info.st_gid in gids) or (e.tag == GROUP and e.ident in gids)
    ]
    if groups:
        return any(perm & mask & want == want for perm in groups)
    other = next((e.perm for e in acl if e.tag == OTHER), info.st_mode & 7)
    return other & want == want


def deny_group(path: Path, gid: int) -> str | None:
    """Add `group:<gid>:---` to `path`'s access ACL (idempotent; the mode's permission bits,
    sticky bit included, stay as they are). Returns why it could not be done, or None."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        return exc.strerror or str(exc)
    if not stat.S_ISDIR(info.st_mode):
        return "not a directory"
    entries = {(e.tag, e.ident): e for e in read(path)}
    if not entries:
        mode = info.st_mode
        entries = {
            (USER_OBJ, _NO_ID): Entry(USER_OBJ, _NO_ID, (mode >> 6) & 7),
            (GROUP_OBJ, _NO_ID): Entry(GROUP_OBJ, _NO_ID, (mode >> 3) & 7),
            (OTHER, _NO_ID): Entry(OTHER, _NO_ID, mode & 7),
        }
    if entries.get((GROUP, gid)) == Entry(GROUP, gid, 0):
        return None
    entries[(GROUP, gid)] = Entry(GROUP, gid, 0)
    if (MASK, _NO_ID) not in entries:
        # The mask bounds the group class; the owning group's bits keep their meaning.
        entries[(MASK, _NO_ID)] = Entry(MASK, _NO_ID, entries[(GROUP_OBJ, _NO_ID)].perm)
    try:
        os.setxattr(path, _XATTR, _encode(entries.values()), follow_symlinks=False)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.ENOTSUP):
            return "the filesystem keeps no access control lists"
        return exc.strerror or str(exc)
    return None
