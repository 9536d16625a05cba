"""Finding and installing the pinned agent CLIs, without the network.

The npm path (`npm ci` against the shipped lock) is what `./dev test` itself runs, so every
test run with the real CLIs exercises it. Here: the lock pins what the issue asks for, an
install is recognised only when it matches the lock, and the no-npm path fetches this
platform's package from a registry (a loopback one), refusing any that fails its sha512.
"""

from __future__ import annotations

import base64
import hashlib
import io
import tarfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from evolve_action.execute.harness import install
from evolve_action.execute.harness.claude import ClaudeCode
from evolve_action.execute.harness.codex import Codex
from evolve_action.execute.harness.install import (
    InstallError,
    clis,
    default_dir,
    installed,
    lock_packages,
    pinned_version,
)

CLAUDE, CODEX = ClaudeCode.cli, Codex.cli


def test_the_lock_pins_the_versions_the_harness_was_tested_with() -> None:
    assert pinned_version(CLAUDE) == "2.1.330"
    assert pinned_version(CODEX) == "0.169.0"
    for key, entry in lock_packages().items():
        if key:
            assert entry["integrity"].startswith("sha512-"), key
    system, arch, libc = install.this_platform()
    if (system, arch) in (("linux", "x64"), ("linux", "arm64"), ("darwin", "arm64")):
        for spec in clis().values():
            assert spec.native(system, arch, libc)[0] in lock_packages()


def test_the_install_directory_follows_the_cache_directory(tmp_path: Path) -> None:
    assert default_dir({}, tmp_path) == tmp_path / "clis"
    assert default_dir({"EVOLVE_CLI_DIR": "/x"}, tmp_path) == Path("/x")
    assert default_dir({"HOME": "/home/u"}, None) == Path("/home/u/.cache/evolve-action/clis")


def fake_install(directory: Path, stamp: str) -> Path:
    package, binary = CLAUDE.native(*install.this_platform())
    path = directory / package / binary
    path.parent.mkdir(parents=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    (directory / ".evolve-clis").write_text(stamp)
    return path


def test_an_install_counts_only_when_it_matches_the_current_lock(tmp_path: Path) -> None:
    path = fake_install(tmp_path, install.lock_digest())
    found = installed(CLAUDE, tmp_path)
    assert found is not None and found.path == path and found.version == "2.1.330"
    (tmp_path / ".evolve-clis").write_text("an older lock")
    assert installed(CLAUDE, tmp_path) is None
    assert installed(CODEX, tmp_path) is None  # nothing there


def tarball(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o755
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


@pytest.fixture
def registry() -> Iterator[tuple[str, dict[str, bytes], list[str]]]:
    """A loopback npm registry: url path → tarball bytes; the paths asked, in order."""
    served: dict[str, bytes] = {}
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:
            pass

        def do_GET(self) -> None:
            asked.append(self.path)
            data = served.get(self.path)
            self.send_response(200 if data is not None else 404)
            self.send_header("content-length", str(len(data or b"")))
            self.end_headers()
            self.wfile.write(data or b"")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", served, asked
    server.shutdown()
    server.server_close()


def packages_for(tarballs: dict[str, bytes]) -> dict[str, Any]:
    """Lock entries for this platform's two packages, pinned to the given tarballs."""
    out = {}
    for spec in clis().values():
        key, _ = spec.native(*install.this_platform())
        out[key] = {"version": "1.0.0", "integrity": integrity(tarballs[spec.name])}
    return out


def test_without_npm_the_platform_packages_are_fetched_and_checked(
    registry: tuple[str, dict[str, bytes], list[str]], tmp_path: Path
) -> None:
    url, served, asked = registry
    tarballs = {}
    for spec in clis().values():
        key, binary = spec.native(*install.this_platform())
        files = {f"package/{binary}": b"#!/bin/sh\necho hi\n", "package/../escape": b"x"}
        tarballs[spec.name] = tarball(files)
        name = key.removeprefix("node_modules/")
        served[f"/{name}/-/{name.rsplit('/', 1)[-1]}-1.0.0.tgz"] = tarballs[spec.name]
    install._fetch_platform_packages(tmp_path, url, packages_for(tarballs))
    assert len(asked) == len(clis())
    for spec in clis().values():
        key, binary = spec.native(*install.this_platform())
        assert (tmp_path / key / binary).read_bytes() == b"#!/bin/sh\necho hi\n"
        assert (tmp_path / key / binary).stat().st_mode & 0o111
    assert not (tmp_path / "node_modules" / "escape").exists()
    assert not list(tmp_path.rglob("escape"))


def test_a_tarball_that_fails_its_sha512_is_refused(
    registry: tuple[str, dict[str, bytes], list[str]], tmp_path: Path
) -> None:
    url, served, _ = registry
    tarballs = {spec.name: tarball({"package/x": b"pinned"}) for spec in clis().values()}
    packages = packages_for(tarballs)
    for key in packages:
        name = key.removeprefix("node_modules/")
        served[f"/{name}/-/{name.rsplit('/', 1)[-1]}-1.0.0.tgz"] = tarball({"package/x": b"evil"})
    with pytest.raises(InstallError, match="does not match the pinned sha512"):
        install._fetch_platform_packages(tmp_path, url, packages)
    assert not (tmp_path / "node_modules").exists()


def test_an_unreachable_registry_without_npm_is_a_clear_error(tmp_path: Path) -> None:
    environ = {"PATH": str(tmp_path), "npm_config_registry": "http://127.0.0.1:9"}
    with pytest.raises(InstallError) as caught:
        install.locate(["claude"], environ=environ, directory=tmp_path / "clis")
    assert "cannot download http://127.0.0.1:9/" in str(caught.value)
    assert "put claude, codex, copilot, opencode and gemini on PATH" in str(caught.value)
    assert not (tmp_path / "clis" / ".evolve-clis").exists()
