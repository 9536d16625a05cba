"""The Dockerfile's install step, done without Docker: no engine runs on the development machine.

From exactly the files the image's build context keeps (.dockerignore), into a clean virtual
environment: the hashed runtime lock, then the package with `--no-deps`, then the image's
ENTRYPOINT (the `entrypoint` script, which execs the console script). It proves the lock is
complete (every import the program makes resolves, `pip check` agrees) and that the package
installs from the context alone. CI's `image` job builds the real image as well, and
scripts/image_check.py starts it as GitHub does.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import venv
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from evolve_action import __version__

ROOT = Path(__file__).resolve().parents[2]
# Third-party modules the program imports; an entry missing from the lock fails here.
IMPORTS = (
    "anthropic, openai, github, jsonschema, yaml, json5, jinja2, re2,"
    " evolve_action.pipeline.plan_and_run"
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(150)]


def _index_reachable() -> str | None:
    """None when the package index answers, else why not (the test then skips)."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "config", "get", "global.index-url"],
        capture_output=True,
        text=True,
        check=False,
    )
    url = os.environ.get("PIP_INDEX_URL") or done.stdout.strip() or "https://pypi.org/simple"
    parts = urlsplit(url)
    host, port = parts.hostname or "pypi.org", parts.port or 443
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError as exc:
        return f"package index {host}:{port} is unreachable ({exc})"
    return None


def _context(dest: Path) -> Path:
    """Copy what .dockerignore lets into the build context, and nothing else."""
    ignore = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    for entry in (line[1:].rstrip("/") for line in ignore if line.startswith("!")):
        source = ROOT / entry
        if source.is_dir():
            shutil.copytree(source, dest / entry, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (dest / entry).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / entry)
    return dest


def _entrypoint(context: Path) -> list[str]:
    """The image's ENTRYPOINT, its program taken from the build context it is copied from."""
    lines = (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines()
    entry = next((ln for ln in lines if ln.startswith("ENTRYPOINT ")), None)
    assert entry is not None, "Dockerfile has no ENTRYPOINT"
    argv: list[str] = json.loads(entry.removeprefix("ENTRYPOINT "))
    copied = {ln.split()[-1]: ln.split()[1] for ln in lines if ln.startswith("COPY ")}
    assert argv[0] in copied, f"the ENTRYPOINT {argv[0]} is not copied from the context"
    return [str(context / copied[argv[0]]), *argv[1:]]


def _run(argv: list[str], cwd: Path, path: str | None = None) -> str:
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("VIRTUAL_ENV", None)
    if path is not None:
        env["PATH"] = f"{path}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{' '.join(argv)}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_runtime_lock_and_package_install_into_a_clean_venv(tmp_path: Path) -> None:
    reason = _index_reachable()
    if reason:
        pytest.skip(reason)
    context = _context(tmp_path / "context")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = str(env_dir / "bin" / "python")

    # The same two steps, in the same order, as the Dockerfile.
    _run([python, "-m", "pip", "install", "-q", "--require-hashes", "-r",
          "requirements/runtime.lock"], context)  # fmt: skip
    _run([python, "-m", "pip", "install", "-q", "--no-deps", "."], context)

    _run([python, "-m", "pip", "check"], tmp_path)
    _run([python, "-c", f"import {IMPORTS}"], tmp_path)
    # The entrypoint script finds the console script on PATH, as in the image.
    out = _run([*_entrypoint(context), "--version"], tmp_path, path=str(env_dir / "bin"))
    assert out.strip() == f"evolve-action {__version__}"
    # Package data the image needs with no source tree beside it: the results schema (report,
    # workflow_run) and the comment template.
    probe = (
        "from evolve_action.publish.results.load import schema_path; "
        "assert schema_path().is_file();"
        "from evolve_action.publish.render.comment import environment; "
        "environment().get_template('comment.md.j2')"
    )
    _run([python, "-c", probe], tmp_path)
