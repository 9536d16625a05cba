"""Headless Chromium for the tests that look at a page as a reader's browser shows it.

The distribution's Chromium (`/usr/bin/chromium`, or `chromium` / `chromium-browser` on the
PATH), started fresh for each call (its own profile directory), with nothing that reaches the
network: no background fetches, no component updates, every host name unresolvable. A test
that needs it calls `chromium_or_skip()`, which skips with the reason where it is absent.

Screenshots are artifacts of the test run: they go to `$EVOLVE_TEST_ARTIFACTS` when set (CI
uploads that folder), else to `artifacts/` under pytest's temporary base directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND",  # no host name resolves: no network at all
)
LIMIT_S = 120


def chromium_or_skip() -> str:
    for candidate in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        found = shutil.which(candidate)
        if found:
            return found
    pytest.skip("headless Chromium is not installed (apt-get install chromium)")


def run_chromium(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Open `page` from file:// with `args` (`--dump-dom`, `--screenshot=...`), in a fresh
    profile under `profile`."""
    binary = chromium_or_skip()
    profile.mkdir(parents=True, exist_ok=True)
    argv = [binary, *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()]
    env = {**os.environ, "HOME": str(profile)}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=LIMIT_S, env=env)
    assert done.returncode == 0, f"chromium exited {done.returncode}: {done.stderr[-3000:]}"
    return done


def dump_dom(page: Path, profile: Path) -> str:
    """The page's DOM after load (scripts, had any run, included), serialized."""
    return run_chromium(page, profile, "--dump-dom").stdout


def artifacts_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("EVOLVE_TEST_ARTIFACTS")
    folder = Path(given) if given else tmp_path_factory.getbasetemp() / "artifacts"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def screenshot(page: Path, profile: Path, target: Path, *, width: int, height: int) -> Path:
    run_chromium(page, profile, f"--screenshot={target}", f"--window-size={width},{height}")
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"no PNG at {target}"
    return target
