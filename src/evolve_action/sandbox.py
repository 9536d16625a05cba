"""Confinement for every command the agent (`Bash`) or a check runs (DESIGN §6, §10).

Eval files, skills and fixtures come from the PR, so whatever they make us run is untrusted:

- the environment is an allowlist (`scrubbed_env`): no API key, token, `GITHUB_*`, `INPUT_*`
  or `ACTIONS_*` value ever reaches a command, and HOME/TMPDIR live inside the workspace;
- where bubblewrap works, the command runs in fresh namespaces with the root filesystem
  read-only, a private /tmp, known credential locations masked, no network unless asked, and
  the workspace bound read-write at `/workspace`. That fixed mount point keeps the requests we
  send to models free of temporary paths (record/replay stays deterministic);
- where it does not, commands run directly (scrubbed env, cwd, timeouts and group kills still
  apply) and one log line says why. Output never shows the real workspace path either way: it
  is rewritten to `/workspace`, so the model sees one stable name.
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from evolve_action.outcomes import CommandResult
from evolve_action.sandbox_exec import spawn

log = logging.getLogger(__name__)

SANDBOX_ROOT = "/workspace"  # where commands (and the model) see the workspace
HOME_DIR = ".home"
TMP_DIR = ".tmp"
_PR_SET_DUMPABLE = 4
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# Variables passed through unchanged: locale, time zone, terminal, search path, CA bundles.
_ALLOWED = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TERM",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
)
# Git works in the workspace repository without any host config and with a fixed identity.
_FIXED = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_AUTHOR_NAME": "evolve",
    "GIT_AUTHOR_EMAIL": "evolve@workspace.invalid",
    "GIT_COMMITTER_NAME": "evolve",
    "GIT_COMMITTER_EMAIL": "evolve@workspace.invalid",
    "USER": "evolve",
    "LOGNAME": "evolve",
    "SHELL": "/bin/sh",
}
_SECRET_PREFIXES = ("GITHUB_", "INPUT_", "ACTIONS_", "RUNNER_", "ANTHROPIC_", "OPENAI_", "AWS_")
_SECRET_WORDS = frozenset(
    {"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "PAT"}
    | {"CREDENTIAL", "CREDENTIALS", "AUTH", "COOKIE", "PRIVATE", "SESSION"}
)
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


def resolved(path: Path) -> Path | None:
    """`path` with every symlink resolved, or None when that is impossible (a symlink loop,
    an unreadable directory): such a path is never inside anything we allow."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def is_secret_name(name: str) -> bool:
    """Whether an environment variable name looks like it carries a credential."""
    upper = name.upper()
    if upper.startswith(_SECRET_PREFIXES):
        return True
    words = re.split(r"[^A-Z0-9]+", upper)
    return any(w in _SECRET_WORDS or w.endswith(("KEY", "TOKEN", "SECRET")) for w in words)


def scrubbed_env(
    workspace: Path, extra: Mapping[str, str] | None = None, *, seen_as: str | None = None
) -> dict[str, str]:
    """The environment of a confined command: an allowlist, never a credential.

    HOME and TMPDIR are created in the workspace; `seen_as` is the path under which the
    command sees the workspace (`/workspace` inside bubblewrap). Raises ValueError when
    `extra` names a secret-looking variable: the caller asked for something we never pass.
    """
    root = seen_as or str(workspace)
    for sub in (HOME_DIR, TMP_DIR):
        (workspace / sub).mkdir(parents=True, exist_ok=True)
    env = {k: os.environ[k] for k in _ALLOWED if k in os.environ}
    env.setdefault("PATH", DEFAULT_PATH)
    env.setdefault("LANG", "C.UTF-8")
    env.update(_FIXED)
    env["HOME"] = f"{root}/{HOME_DIR}"
    env["TMPDIR"] = f"{root}/{TMP_DIR}"
    for name, value in (extra or {}).items():
        if is_secret_name(name):
            raise ValueError(
                f"refusing to pass {name!r} to a confined command: it looks like a credential, "
                "and commands from a PR never receive credentials; rename the variable"
            )
        env[name] = value
    return env


class SandboxMode(StrEnum):
    AUTO = "auto"  # bubblewrap when it works, else direct with one warning
    BWRAP = "bwrap"  # bubblewrap or an error (never run unconfined)
    NONE = "none"  # direct, on purpose


@dataclass(frozen=True)
class BwrapStatus:
    works: bool
    reason: str = ""  # why it does not work


def default_hidden() -> tuple[Path, ...]:
    """Host paths masked inside the sandbox: the Actions mounts and credential files."""
    home = Path(os.environ.get("HOME") or "/nonexistent")
    candidates = [Path("/github"), Path("/run/secrets"), *(home / s for s in _HOME_SECRETS)]
    return tuple(p for p in candidates if p.exists())


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
            if entry.name in ("proc", "dev", "tmp", SANDBOX_ROOT.strip("/")):
                continue
            if entry.is_symlink():
                args += ["--symlink", str(Path(entry.path).readlink()), f"/{entry.name}"]
            else:
                args += ["--ro-bind-try", entry.path, f"/{entry.name}"]
    args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for path in hidden:
        real = resolved(path)
        if real is None:
            continue
        if real.is_dir():
            args += ["--tmpfs", str(real)]
        elif real.exists():
            args += ["--ro-bind", "/dev/null", str(real)]
    args += ["--bind", str(workspace), SANDBOX_ROOT, "--chdir", chdir, "--", *argv]
    return args


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


@functools.cache
def _warn_unsandboxed(reason: str) -> None:
    log.warning(
        "commands run WITHOUT an OS sandbox (%s); the environment is still scrubbed and "
        "time-limited, but a command can write outside its workspace; install bubblewrap "
        "and allow user namespaces to confine them",
        reason,
    )


@functools.cache
def harden_process() -> bool:
    """Make this process non-dumpable, so that an unsandboxed command cannot read our
    `/proc/<pid>/environ` (which still holds the API keys and tokens we were started with)
    unless it has CAP_SYS_PTRACE, which containers do not grant by default. Linux only;
    returns whether it took effect."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


@dataclass(frozen=True)
class Confinement:
    """Runs commands for one workspace; pass `confinement.run` as a `checks.CommandRunner`."""

    workspace: Path
    network: bool = False
    output_cap: int = 1_000_000
    mode: SandboxMode = SandboxMode.AUTO
    hidden: tuple[Path, ...] = field(default_factory=default_hidden)
    kill_grace_s: float = 2.0

    @property
    def sandboxed(self) -> bool:
        return self.mode is not SandboxMode.NONE and probe_bwrap().works

    def note(self) -> str:
        """A line for the run's notes when commands are not in an OS sandbox, else ""."""
        if self.sandboxed or self.mode is SandboxMode.NONE:
            return ""
        return f"sandbox off: {probe_bwrap().reason}"

    async def run(
        self,
        command: str | Sequence[str],
        *,
        cwd: Path | None = None,
        timeout_s: float,
        stdin: str | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        argv = ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
        if not argv:
            return CommandResult(-1, "", "", error="empty command: nothing to run")
        root = self.workspace.resolve()
        where = _inside(root, cwd)
        if isinstance(where, str):
            return CommandResult(-1, "", "", error=where)
        status = BwrapStatus(False)
        if self.mode is not SandboxMode.NONE:
            # The first probe runs bwrap once; keep the event loop free while it does.
            status = await asyncio.to_thread(probe_bwrap)
        if self.mode is SandboxMode.BWRAP and not status.works:
            return CommandResult(
                -1, "", "", error=f"the sandbox is required but bubblewrap fails: {status.reason}"
            )
        try:
            env = scrubbed_env(root, extra_env, seen_as=SANDBOX_ROOT if status.works else None)
        except ValueError as exc:
            return CommandResult(-1, "", "", error=str(exc))
        if status.works:
            rel = where.relative_to(root).as_posix()
            chdir = SANDBOX_ROOT if rel == "." else f"{SANDBOX_ROOT}/{rel}"
            argv = bwrap_argv(root, chdir, argv, network=self.network, hidden=self.hidden)
            where = root
        else:
            harden_process()
            if self.mode is SandboxMode.AUTO:
                _warn_unsandboxed(status.reason)
        result = await spawn(
            argv,
            cwd=where,
            env=env,
            timeout_s=timeout_s,
            stdin=stdin,
            output_cap=self.output_cap,
            kill_grace_s=self.kill_grace_s,
        )
        return self.mask(result)

    def mask(self, result: CommandResult) -> CommandResult:
        """Show the workspace as `/workspace` in output, whatever its real location."""
        real = sorted({str(self.workspace), str(self.workspace.resolve())}, key=len, reverse=True)
        # Only whole path components: `/tmp/ws1` must not turn `/tmp/ws10` into `/workspace0`.
        pattern = re.compile("|".join(re.escape(p) for p in real) + r"(?![\w.-])")

        def fix(text: str) -> str:
            return pattern.sub(SANDBOX_ROOT, text)

        return replace(result, stdout=fix(result.stdout), stderr=fix(result.stderr))


def _inside(root: Path, cwd: Path | None) -> Path | str:
    """The resolved working directory, or a message when it is not a directory in `root`."""
    if cwd is None:
        return root
    if cwd.is_absolute() and cwd.parts[:2] == ("/", SANDBOX_ROOT.strip("/")):
        cwd = Path(*cwd.parts[2:]) if len(cwd.parts) > 2 else Path()
    target = resolved(root / cwd)
    if target is None:
        return f"working directory {cwd.as_posix()!r} cannot be resolved (a symlink loop?)"
    if not target.is_relative_to(root):
        return f"working directory {cwd.as_posix()!r} is outside the workspace; use a path in it"
    if not target.is_dir():
        shown = target.relative_to(root).as_posix()
        return f"working directory {shown!r} does not exist in the workspace"
    return target
