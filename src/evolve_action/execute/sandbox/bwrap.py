"""Confinement with namespaces: the bubblewrap command line, and whether it works here.

The command runs in fresh namespaces with the root filesystem read-only, a private /tmp, no
network unless asked, and the workspace bound read-write at `/workspace`. That fixed mount
point keeps the requests we send to models free of temporary paths (record/replay stays
deterministic). Masked on top (`default_hidden`): known credential files of the host's HOME,
the container daemons' sockets, everything the Actions runner mounts (`/github`) and the
runner's checkout, so PR code sees none of them.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evolve_action.execute.sandbox.user import daemon_sockets

SANDBOX_ROOT = "/workspace"  # where commands (and the model) see the workspace
# Entries of / the sandbox does not take from the host: it makes its own.
_OWN_ENTRIES = ("proc", "dev", "tmp", SANDBOX_ROOT.strip("/"))
# Credential files and directories masked inside the sandbox, relative to the host's HOME.
_HOME_SECRETS = (
    ".netrc",
    ".git-credentials",
    ".ssh",
    ".aws",
    ".docker",
    ".claude",
    ".codex",
    ".config/gh",
    ".config/gcloud",
    ".pypirc",
    ".npmrc",
)


@dataclass(frozen=True)
class BwrapStatus:
    works: bool
    reason: str = ""  # why it does not work


def resolved(path: Path) -> Path | None:
    """`path` with every symlink resolved, or None when that is impossible (a symlink loop,
    an unreadable directory): such a path is never inside anything we allow."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def default_hidden(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """Host paths masked inside the sandbox: credentials, daemon sockets, the runner's mounts
    and checkout. Only paths that exist are named (bubblewrap needs a target to mask)."""
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or "/nonexistent")
    candidates = [Path("/github"), Path("/run/secrets"), *(home / s for s in _HOME_SECRETS)]
    candidates += daemon_sockets(env)
    checkout = env.get("GITHUB_WORKSPACE", "")
    if checkout.startswith("/") and Path(checkout) != Path("/"):
        candidates.append(Path(checkout))
    return tuple(dict.fromkeys(p for p in candidates if p.exists()))


def bwrap_argv(
    workspace: Path,
    chdir: str,
    argv: Sequence[str],
    *,
    network: bool,
    hidden: Sequence[Path] = (),
) -> list[str]:
    """The bubblewrap command line that runs `argv` with only the workspace writable."""
    args = [shutil.which("bwrap") or "bwrap", "--die-with-parent", "--new-session", "--unshare-all"]
    if network:
        args.append("--share-net")
    # The root is rebuilt entry by entry (not `--ro-bind / /`) so that /workspace can be
    # created as a mount point on bubblewrap's own writable tmpfs root.
    with os.scandir("/") as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.name in _OWN_ENTRIES:
                continue
            if entry.is_symlink():
                args += ["--symlink", str(Path(entry.path).readlink()), f"/{entry.name}"]
            else:
                args += ["--ro-bind-try", entry.path, f"/{entry.name}"]
    args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", *_masks(hidden)]
    args += ["--bind", str(workspace), SANDBOX_ROOT, "--chdir", chdir, "--", *argv]
    return args


def masked(path: Path, hidden: Sequence[Path]) -> Path | None:
    """The directory that keeps `path` from being seen as it is inside the sandbox, as written
    or once resolved: one of `hidden`, or an entry of / the sandbox makes its own (a private
    /tmp); else None."""
    real = resolved(path)
    if real is None:
        return path
    tops = [t for t in (resolved(m) for m in hidden) if t is not None and t != Path("/")]
    for candidate in dict.fromkeys((path.absolute(), real)):
        if len(candidate.parts) > 1 and candidate.parts[1] in _OWN_ENTRIES:
            return Path("/", candidate.parts[1])
        for top in tops:
            if candidate.is_relative_to(top):
                return top
    return None


def _masks(hidden: Sequence[Path]) -> list[str]:
    """An empty read-only directory over each hidden directory, /dev/null over each file.
    Parents come first, so a hidden path inside another still finds its mount point; the
    directories become read-only last, once every mount point in them exists."""
    dirs, files = set(), set()
    for path in hidden:
        real = resolved(path)
        if real is None or real == Path("/"):
            continue
        if real.is_dir():
            dirs.add(real)
        elif real.exists():
            files.add(real)
    args = [arg for d in sorted(dirs) for arg in ("--tmpfs", str(d))]
    args += [arg for f in sorted(files) for arg in ("--ro-bind", "/dev/null", str(f))]
    return args + [arg for d in sorted(dirs, reverse=True) for arg in ("--remount-ro", str(d))]


@functools.cache
def probe_bwrap() -> BwrapStatus:
    """Whether bubblewrap exists and can build our sandbox here; asked once per process."""
    if shutil.which("bwrap") is None:
        return BwrapStatus(False, "bwrap is not installed")
    with tempfile.TemporaryDirectory(prefix="evolve-probe-") as tmp:
        argv = bwrap_argv(Path(tmp), SANDBOX_ROOT, ["/bin/sh", "-c", ": > probe"], network=False)
        try:
            done = subprocess.run(argv, capture_output=True, timeout=20, check=False, env={})
        except (OSError, subprocess.TimeoutExpired) as exc:
            return BwrapStatus(False, f"bwrap failed to run: {exc}")
        if done.returncode != 0 or not (Path(tmp) / "probe").exists():
            detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
            why = detail[0] if detail else f"exit {done.returncode}"
            return BwrapStatus(False, f"bwrap cannot create its namespaces here ({why})")
    return BwrapStatus(True)
