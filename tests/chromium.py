"""Headless Chromium from the distribution's packages, for tests that look at rendered pages.

`CHROMIUM` is None where no browser is installed; a test that needs one skips with
`SKIP_REASON`. Every launch gets its own profile directory under the test's tmp dir and no
network beyond what the page names (our pages name nothing), so nothing leaves the machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _find() -> str | None:
    explicit = os.environ.get("EVOLVE_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).is_file() else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


CHROMIUM = _find()
SKIP_REASON = (
    "no headless Chromium on this machine (install the distribution's `chromium` package,"
    " or set EVOLVE_CHROMIUM to its path)"
)
TIMEOUT = 120


def _command(profile: Path, width: int, height: int, *extra: str) -> list[str]:
    assert CHROMIUM is not None, SKIP_REASON
    return [
        CHROMIUM,
        "--headless",
        "--no-sandbox",  # tests may run as root in a container, where its sandbox cannot start
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
        *extra,
    ]


def dump_dom(page: Path, profile: Path, *, width: int, height: int = 2000) -> str:
    """The page's DOM after its scripts ran, serialized."""
    done = subprocess.run(
        [*_command(profile, width, height, "--dump-dom"), page.as_uri()],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
    )
    return done.stdout


def screenshot(page: Path, out: Path, profile: Path, *, width: int, height: int) -> Path:
    """A PNG of the page at `width` × `height` CSS pixels."""
    subprocess.run(
        [*_command(profile, width, height, f"--screenshot={out}"), page.as_uri()],
        capture_output=True,
        timeout=TIMEOUT,
        check=True,
    )
    return out
