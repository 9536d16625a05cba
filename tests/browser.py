"""Headless Chromium for the tests that look at a page as a reader's browser shows it.

The distribution's Chromium (`$EVOLVE_CHROMIUM` when set, else `/usr/bin/chromium`,
`chromium`, `chromium-browser` or Google Chrome on the PATH), started fresh for each call
(its own profile directory), with nothing that reaches the network: no background fetches,
no component updates, every host name unresolvable. `CHROMIUM` is None where none is
installed; a test that needs it calls `chromium_or_skip()` or marks itself with `needs_chromium`,
which skip with `SKIP_REASON`.

Screenshots are artifacts of the test run: `artifacts_dir` is `$EVOLVE_TEST_ARTIFACTS` when
set (CI uploads that folder), else `artifacts/` under pytest's temporary base directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CANDIDATES = (
    "/usr/bin/chromium",
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
)
FLAGS = (
    "--headless",
    "--no-sandbox",  # tests may run as root in a container, where its sandbox cannot start
    "--disable-gpu",
    "--no-first-run",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--host-resolver-rules=MAP * ~NOTFOUND",  # no host name resolves: no network at all
)
LIMIT_S = 120
SKIP_REASON = (
    "no headless Chromium on this machine (install the distribution's `chromium` package,"
    " or set EVOLVE_CHROMIUM to its path)"
)


def _find() -> str | None:
    explicit = os.environ.get("EVOLVE_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).is_file() else None
    for candidate in CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


CHROMIUM = _find()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON)


def chromium_or_skip() -> str:
    if CHROMIUM is None:
        pytest.skip(SKIP_REASON)
    return CHROMIUM


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


def dump_dom(page: Path, profile: Path, *, width: int | None = None, height: int = 2000) -> str:
    """The page's DOM after load (scripts, had any run, included), serialized; at `width` ×
    `height` CSS pixels when a layout is measured."""
    size = () if width is None else (f"--window-size={width},{height}",)
    return run_chromium(page, profile, "--dump-dom", *size).stdout


def artifacts_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("EVOLVE_TEST_ARTIFACTS")
    folder = Path(given) if given else tmp_path_factory.getbasetemp() / "artifacts"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def screenshot(page: Path, profile: Path, target: Path, *, width: int, height: int) -> Path:
    """A PNG of the page at `width` × `height` CSS pixels."""
    run_chromium(page, profile, f"--screenshot={target}", f"--window-size={width},{height}")
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"no PNG at {target}"
    return target
