"""Helpers for tests that run Copilot CLI, Gemini CLI and OpenCode against the fake LLM server.

Each run gets a home, a workspace and a temporary directory of its own under one root
(`Place`), the skill staged where that agent looks, and an environment built from nothing
but the launch facts (`execute/harness/*_launch.py`), PATH, HOME and TMPDIR: the real keys
this process holds (`REAL`) must reach neither the CLI nor the fake. `run(..., trace=True)`
runs the CLI under strace and lists every file it created or changed outside that root, and
every network address it tried to connect to (a machine without strace skips those tests).

The CLIs are the pinned releases `./dev test` installs into `.cache/clis` (or
`EVOLVE_CLI_DIR`); a test whose CLI is not there skips and says why.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes.llm_server import Answer, FakeLLM, Request, Script

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = "evolve-dummy-5b1c0e7d9a3f4e21"
REAL = {
    "ANTHROPIC_API_KEY": "sk-ant-real-0123456789abcdef",
    "OPENAI_API_KEY": "sk-openai-real-fedcba9876543210",
    "GEMINI_API_KEY": "AIza-real-gemini-0123456789",
    "GITHUB_TOKEN": "ghs_job_token_never_in_the_cli",
}
SKILL = (
    "---\nname: greeter\ndescription: Greets a person by name. Use when asked to say hello "
    'to someone.\n---\nWhen greeting, write "Hello, NAME!" to hello.txt.\n'
)
PROMPT = "Say hello to Ada."
SHELL = "echo made > out.txt && cat out.txt"
ENV_PROBE = "env; echo probed"
_TIMEOUT_S = 300


def serving(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    """A started fake, with the real keys in our own environment as in a workflow's job."""
    for name, value in REAL.items():
        monkeypatch.setenv(name, value)
    with FakeLLM() as server:
        yield server
    assert not server.script_errors, server.script_errors


def scripted(turns: Sequence[Answer]) -> Script:
    """Answer by the number of model turns in the request; past the end, the last again."""

    def answer(request: Request) -> Answer:
        return turns[min(request.turn, len(turns) - 1)]

    return answer


def cli_dir() -> Path:
    return Path(os.environ.get("EVOLVE_CLI_DIR") or ROOT / ".cache" / "clis")


def require(package: str, inside: str) -> Path:
    """The installed file `inside` the lock entry `package`, or a skip saying what is missing."""
    path = cli_dir() / package / inside
    if not path.is_file() or not os.access(path, os.X_OK | os.R_OK):
        pytest.skip(
            f"{path} is not installed: `./dev test` installs the pinned agent CLIs with npm, "
            "and npm is missing or the install failed"
        )
    return path


def require_tool(name: str, why: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not on PATH: {why}")
    return found


@dataclass(frozen=True)
class Place:
    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"


def place(root: Path, skills_dir: str, home_files: dict[str, str]) -> Place:
    """A fresh home, workspace and TMPDIR under `root`, the skill in `skills_dir`."""
    where = Place(root)
    for directory in (where.home, where.workspace, where.tmp):
        directory.mkdir(parents=True)
    skill = where.workspace / skills_dir / "greeter" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL)
    for relative, content in home_files.items():
        target = where.home / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    return where


SKILL_FOLDERS = [".claude/skills", ".agents/skills", ".github/skills", ".gemini/skills"]
SKILL_FOLDERS += [".opencode/skills"]


def stage_everywhere(workspace: Path) -> dict[str, str]:
    """A skill in each agent's folder, each with a description naming its folder; returns
    folder → description, to find in what the CLI sent the model."""
    staged = {}
    for index, folder in enumerate(SKILL_FOLDERS):
        description = f"Marker skill number {index} for the folder {folder}."
        skill = workspace / folder / f"marker-{index}" / "SKILL.md"
        skill.parent.mkdir(parents=True, exist_ok=True)
        skill.write_text(f"---\nname: marker-{index}\ndescription: {description}\n---\nBody.\n")
        staged[folder] = description
    return staged


def folders_listed(staged: dict[str, str], sent: str) -> list[str]:
    return [folder for folder, description in staged.items() if description in sent]


@dataclass(frozen=True)
class Ran:
    stdout: str
    stderr: str
    exit_code: int
    env: dict[str, str]
    outside: tuple[str, ...] = ()  # files written outside the place (with trace=True)
    connected: tuple[str, ...] = ()  # "host:port" of every network connection it tried


def run(argv: list[str], launch_env: dict[str, str], where: Place, *, trace: bool = False) -> Ran:
    """`argv` in the workspace with the prompt on stdin and only the given environment."""
    path_dirs = [str(Path(argv[0]).parent), "/usr/local/bin", "/usr/bin", "/bin"]
    env = {
        "PATH": os.pathsep.join(dict.fromkeys(path_dirs)),
        "HOME": str(where.home),
        "TMPDIR": str(where.tmp),
        **launch_env,
    }
    log = where.root / "strace.log"
    if trace:
        strace = require_tool("strace", "it lists what the CLI writes")
        argv = [strace, "-f", "-qq", "-y", "-o", str(log), "-e", f"trace={_WRITES}", *argv]
    done = subprocess.run(
        argv,
        input=PROMPT,
        env=env,
        cwd=where.workspace,
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        check=False,
    )
    traced = log.read_text(errors="replace") if trace else ""
    return Ran(
        done.stdout, done.stderr, done.returncode, env, _outside(traced, where), _peers(traced)
    )


_WRITES = (
    "open,openat,openat2,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,"
    "link,linkat,symlink,symlinkat,truncate,connect"
)
_CALL = re.compile(r"^\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+)")
_ARG_PATH = re.compile(r'(?:(\d+)<([^>]*)>, )?"((?:[^"\\]|\\.)*)"')
_READ_ONLY = re.compile(r"\bO_RDONLY\b")
_WRITE_FLAGS = re.compile(r"\b(O_WRONLY|O_RDWR|O_CREAT|O_TRUNC)\b")


_PEER = re.compile(r'sin6?_port=htons\((\d+)\).*?(?:inet_addr\("([^"]+)"\)|"([0-9a-f:.]+)")')


def _peers(log: str) -> tuple[str, ...]:
    """The IP addresses and ports the traced processes tried to connect to (Unix sockets,
    which stay on the machine, are left out)."""
    found = set()
    for line in log.splitlines():  # an unfinished call (`<unfinished ...>`) counts too
        peer = _PEER.search(line) if " connect(" in line else None
        if peer is not None:
            found.add(f"{peer[2] or peer[3]}:{peer[1]}")
    return tuple(sorted(found))


def _outside(log: str, where: Place) -> tuple[str, ...]:
    """Paths the traced processes wrote, created, renamed or removed outside `where`."""
    found: set[str] = set()
    for line in log.splitlines():
        match = _CALL.match(line)
        if match is None or int(match[3]) < 0:
            continue
        name, args = match[1], match[2]
        if name == "connect":
            continue
        if name.startswith("open") and (_READ_ONLY.search(args) and not _WRITE_FLAGS.search(args)):
            continue
        for dirfd_path, path in ((m[2], m[3]) for m in _ARG_PATH.finditer(args)):
            full = path if path.startswith("/") else os.path.join(dirfd_path or "", path)
            if full and not _allowed(os.path.normpath(full), where):
                found.add(os.path.normpath(full))
    return tuple(sorted(found))


def _allowed(path: str, where: Place) -> bool:
    if not path.startswith("/"):
        return True  # relative to the working directory: the workspace
    root = str(where.root)
    return path == root or path.startswith(root + "/") or path.startswith(("/dev/", "/proc/"))
