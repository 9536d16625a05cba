"""Finding the agent CLIs, and installing the pinned ones into the cache directory when absent.

The registered CLIs (`registry.HARNESSES`: `claude`, `codex`, `copilot`, `opencode`,
`gemini`) on PATH win (a runner that already has them saves the download). Else the pinned
versions in `npm/package-lock.json` are used from the install directory, which lives in the cache
directory so that a cached job does not download them again. When they are not there yet
they are installed: with `npm ci --ignore-scripts` when npm is present (npm checks every
tarball against the lock's sha512), else by fetching just this platform's package from the
npm registry and checking the same sha512 here. All but one ship native binaries; Gemini CLI
is a Node.js script (its "binary" is its entry script, which `node` runs: the image carries
Node.js for it). Neither path needs npm at run time, and the action's image has none.

    python -m evolve_action.execute.harness.install DIR    # what `./dev test` runs, once
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import IO, Any

from evolve_action.execute.harness.contract import CliSpec

REGISTRY = "https://registry.npmjs.org"
STAMP = ".evolve-clis"
_DOWNLOAD_TIMEOUT_S = 300
_LOCK_FILES = ("package.json", "package-lock.json")  # the pinned set, as `npm ci` reads it
_CPUS = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}  # npm's words


class InstallError(Exception):
    """A CLI is neither on PATH nor installable; the message says what to do."""


@dataclass(frozen=True, slots=True)
class CliBinary:
    name: str
    path: Path
    version: str
    source: str  # "PATH" or the install directory
    path_dirs: tuple[Path, ...] = ()  # helpers the CLI expects on PATH (Codex's `rg`)
    copied_from: str = ""  # the install directory, when `source` is a copy of it (`stage`)

    def where(self) -> str:
        """Where it runs from, for a run's notes."""
        return f"{self.source}, copied from {self.copied_from}" if self.copied_from else self.source


def clis() -> dict[str, CliSpec]:
    """Every registered harness's CLI by command name (`registry.HARNESSES`)."""
    from evolve_action.execute.harness.registry import HARNESSES

    return {h.cli.name: h.cli for h in HARNESSES.values()}


def _names() -> str:
    names = list(clis())
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def lock_packages() -> dict[str, Any]:
    """The lock's `packages`: path in node_modules → version, integrity, os, cpu, libc."""
    text = resources.files(__package__ or "").joinpath("npm/package-lock.json").read_text()
    packages: dict[str, Any] = json.loads(text)["packages"]
    return packages


def _lock_bytes() -> bytes:
    files = resources.files(__package__ or "").joinpath("npm")
    return b"".join(files.joinpath(name).read_bytes() for name in _LOCK_FILES)


def pinned_version(spec: CliSpec) -> str:
    """The locked version: of the package, else (OpenCode pins only its platform builds) of
    this platform's native package."""
    packages = lock_packages()
    entry = packages.get(f"node_modules/{spec.package}")
    if not isinstance(entry, dict):
        entry = packages.get(spec.native(*this_platform())[0])
    if not isinstance(entry, dict):
        raise InstallError(
            f"{spec.name} ({spec.package}) is not pinned for "
            f"{'-'.join(filter(None, this_platform()))} in npm/package-lock.json"
        )
    return str(entry["version"])


def this_platform() -> tuple[str, str, str]:
    """(os, cpu, libc) in npm's words: ("linux", "x64", "glibc")."""
    system = {"linux": "linux", "darwin": "darwin"}.get(sys.platform, sys.platform)
    machine = platform.machine().lower()
    arch = _CPUS.get(machine, machine)
    libc = ""
    if system == "linux":
        libc = "glibc" if platform.libc_ver()[0] == "glibc" else "musl"
    return system, arch, libc


def default_dir(environ: Mapping[str, str], cache_dir: Path | None) -> Path:
    """`EVOLVE_CLI_DIR`, else `<cache-dir>/clis`, else the user's cache directory."""
    if environ.get("EVOLVE_CLI_DIR"):
        return Path(environ["EVOLVE_CLI_DIR"])
    if cache_dir is not None:
        return cache_dir / "clis"
    return user_cache(environ) / "clis"


def user_cache(environ: Mapping[str, str]) -> Path:
    """Our folder in the user's cache directory (`XDG_CACHE_HOME`, else `~/.cache`)."""
    base = environ.get("XDG_CACHE_HOME") or str(Path(environ.get("HOME") or "/tmp") / ".cache")
    return Path(base) / "evolve-action"


def installed(spec: CliSpec, directory: Path) -> CliBinary | None:
    """The pinned CLI in `directory`, if a complete install of the current lock is there."""
    stamp = directory / STAMP
    if not stamp.is_file() or stamp.read_text().strip() != lock_digest():
        return None
    package, binary = spec.native(*this_platform())
    path = directory / package / binary
    if not os.access(path, os.X_OK):
        return None
    helpers = (path.parent.parent / name for name in spec.helper_dirs)
    extra = tuple(p for p in helpers if p.is_dir())
    return CliBinary(spec.name, path, pinned_version(spec), str(directory), extra)


def on_path(spec: CliSpec, environ: Mapping[str, str]) -> CliBinary | None:
    found = shutil.which(spec.name, path=environ.get("PATH") or os.defpath)
    if found is None:
        return None
    try:
        done = subprocess.run(
            [found, "--version"], capture_output=True, text=True, timeout=60, check=False
        )
        words = done.stdout.split()
    except (OSError, subprocess.TimeoutExpired):
        words = []
    version = next((w for w in words if w[:1].isdigit()), "unknown")
    return CliBinary(spec.name, Path(found), version, "PATH")


def locate(
    names: list[str], *, environ: Mapping[str, str], directory: Path
) -> dict[str, CliBinary]:
    """Each CLI from PATH, else from `directory`, installing the pinned set there if needed."""
    # The CLI starts in the run's workspace: a relative `cache-dir` must not follow it there.
    directory = directory.absolute()
    found: dict[str, CliBinary] = {}
    for name in names:
        binary = on_path(clis()[name], environ) or installed(clis()[name], directory)
        if binary is not None:
            found[name] = binary
    missing = [n for n in names if n not in found]
    if missing:
        install(directory, environ=environ)
        for name in missing:
            binary = installed(clis()[name], directory)
            if binary is None:
                raise InstallError(
                    f"{name} was installed into {directory} but its binary for "
                    f"{'-'.join(filter(None, this_platform()))} is missing; this platform "
                    "may not be supported by the pinned release"
                )
            found[name] = binary
    return found


def install(directory: Path, *, environ: Mapping[str, str]) -> None:
    """Install the pinned CLIs into `directory` (a no-op when already there)."""
    directory = directory.absolute()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InstallError(
            f"cannot create the CLI install directory {directory}: {exc.strerror}; "
            "set cache-dir (or EVOLVE_CLI_DIR) to a writable place"
        ) from exc
    with locked(directory):
        stamp = directory / STAMP
        if stamp.is_file() and stamp.read_text().strip() == lock_digest():
            return
        npm = shutil.which("npm", path=environ.get("PATH") or os.defpath)
        registry = environ.get("npm_config_registry") or REGISTRY
        work = Path(tempfile.mkdtemp(prefix=".install-", dir=directory))
        try:
            if npm is not None:
                _npm_ci(npm, work, environ)
            else:
                _fetch_platform_packages(work, registry.rstrip("/"))
            for name in ("node_modules", *_LOCK_FILES):
                target = directory / name
                if target.is_dir():
                    shutil.rmtree(target)
                if (work / name).exists():
                    (work / name).replace(target)
            (directory / STAMP).write_text(lock_digest() + "\n")
        finally:
            shutil.rmtree(work, ignore_errors=True)


def lock_digest() -> str:
    """The pinned set's identity: a new lock is a new install (and a new staged copy)."""
    return hashlib.sha256(_lock_bytes()).hexdigest()


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Two jobs sharing a directory must not install (or stage) over each other. The lock
    file is the owner's alone, whatever the umask: nobody else may write where CLIs live."""
    handle = os.open(directory / ".lock", os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing drops the lock


def _npm_ci(npm: str, work: Path, environ: Mapping[str, str]) -> None:
    files = resources.files(__package__ or "").joinpath("npm")
    for name in _LOCK_FILES:
        (work / name).write_bytes(files.joinpath(name).read_bytes())
    argv = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
    try:
        done = subprocess.run(
            [*argv, "--prefix", str(work)],
            cwd=work,
            env=dict(environ),
            capture_output=True,
            text=True,
            timeout=_DOWNLOAD_TIMEOUT_S * 2,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise InstallError("npm ci took too long installing the agent CLIs") from exc
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise InstallError(
            f"npm could not install the pinned agent CLIs (exit {done.returncode}): {tail}; "
            f"check that the npm registry is reachable, or put {_names()} on PATH"
        )


def _fetch_platform_packages(
    work: Path, registry: str, packages: Mapping[str, Any] | None = None
) -> None:
    """Without npm: this platform's native packages only, each checked against the lock."""
    system, arch, libc = this_platform()
    packages = lock_packages() if packages is None else packages
    for spec in clis().values():
        key, _ = spec.native(system, arch, libc)
        entry = packages.get(key)
        if not isinstance(entry, dict):
            raise InstallError(
                f"{spec.name} {pinned_version(spec)} has no build for "
                f"{system}-{arch}{'-' + libc if libc else ''}; run on linux or macOS, x64 or arm64"
            )
        name = str(entry.get("name") or key.removeprefix("node_modules/"))
        url = f"{registry}/{name}/-/{name.rsplit('/', 1)[-1]}-{entry['version']}.tgz"
        with tempfile.TemporaryFile(dir=work) as tarball:
            digest = _download(url, tarball)
            _check_integrity(digest, str(entry["integrity"]), url)
            tarball.seek(0)
            _extract(tarball, work / key)


def _download(url: str, into: IO[bytes]) -> bytes:
    """Stream `url` into a file (a package is a few hundred MB); its sha512."""
    digest = hashlib.sha512()
    try:
        with urllib.request.urlopen(url, timeout=_DOWNLOAD_TIMEOUT_S) as response:
            while chunk := response.read(1 << 20):
                digest.update(chunk)
                into.write(chunk)
    except OSError as exc:
        raise InstallError(
            f"cannot download {url}: {exc}; without npm the CLIs come straight from the npm "
            f"registry, so it must be reachable (or put {_names()} on PATH)"
        ) from exc
    return digest.digest()


def _check_integrity(digest: bytes, integrity: str, url: str) -> None:
    algorithm, _, expected = integrity.partition("-")
    if algorithm != "sha512":
        raise InstallError(f"unsupported integrity {algorithm!r} in the lock for {url}")
    if base64.b64encode(digest).decode() != expected:
        raise InstallError(
            f"{url} does not match the pinned sha512 in the lock; refusing to install it"
        )


def _extract(tarball: IO[bytes], target: Path) -> None:
    """Unpack an npm tarball (`package/...`) into `target`: files and directories only, and
    nothing that would land outside it."""
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=tarball, mode="r:gz") as archive:
        for member in archive:
            path = PurePosixPath(member.name)
            parts = path.parts[1:]  # drop the `package/` prefix
            if not parts or ".." in parts or path.is_absolute():
                continue
            dest = target.joinpath(*parts)
            if member.isdir():
                dest.mkdir(parents=True, exist_ok=True)
            elif member.isfile():
                source = archive.extractfile(member)
                if source is None:
                    continue
                dest.parent.mkdir(parents=True, exist_ok=True)
                with dest.open("wb") as out:
                    shutil.copyfileobj(source, out)
                dest.chmod(0o755 if member.mode & 0o111 else 0o644)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m evolve_action.execute.harness.install DIR", file=sys.stderr)
        return 2
    directory = Path(args[0])
    try:
        install(directory, environ=os.environ)
    except InstallError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 1
    for spec in clis().values():
        binary = installed(spec, directory)
        print(f"{spec.name} {pinned_version(spec)}: {binary.path if binary else 'missing'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
