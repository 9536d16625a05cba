"""Confinement end to end: a prepared workspace, the agent's tools and the command runner
against planted secrets, escapes, runaway loops and floods (docs/design.md §Trust).

Every test runs without confinement; the unprivileged-user and bubblewrap variants run too
where they work here (root; bubblewrap able to create its namespaces).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.execute.sandbox.confine import Confinement, SandboxMode
from evolve_action.execute.tools.run import WorkspaceTools
from evolve_action.execute.workspace import Workspace, WorkspaceError, prepare
from evolve_action.model.evals import Case, Fixture, Format, Origin, Skill, Suite
from evolve_action.model.provider import ToolResultPart
from tests.levels import MODES, needs_bwrap, needs_user

PLANTED = {
    "ANTHROPIC_API_KEY": "sk-ant-PLANTED-A",
    "OPENAI_API_KEY": "sk-PLANTED-O",
    "GITHUB_TOKEN": "ghp_PLANTED-G",
    "INPUT_GITHUB-TOKEN": "ghp_PLANTED-I",
    "ACTIONS_RUNTIME_TOKEN": "PLANTED-R",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "PLANTED-T",
}
NETRC_SECRET = "PLANTED-NETRC"
ORIGIN = Origin("evals/demo/evals.json", 1)


@pytest.fixture
def host_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A host HOME with a ~/.netrc, and API keys and tokens in the environment.

    It lives outside /tmp when possible: the sandbox's private /tmp would hide it anyway, and
    the masking test would pass for the wrong reason.
    """
    try:
        home = Path(tempfile.mkdtemp(prefix="evolve-home-", dir="/var/tmp"))
    except OSError:
        home = tmp_path / "home"
        home.mkdir()
    (home / ".netrc").write_text(f"machine github.com login x password {NETRC_SECRET}\n")
    monkeypatch.setenv("HOME", str(home))
    for name, value in PLANTED.items():
        monkeypatch.setenv(name, value)
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    skill = root / "skills" / "demo"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo\ndescription: Demo.\n---\nDo it.\n")
    files = root / "evals" / "demo" / "files"
    files.mkdir(parents=True)
    (files / "input.txt").write_text("data\n")
    return root


@pytest.fixture
def workspace(repo: Path, host_home: Path) -> Iterator[Workspace]:
    # In the default temporary directory, whose parents a sandbox user may search.
    with prepare(_suite(repo), _case(repo, "files/input.txt")) as ws:
        yield ws


def _suite(repo: Path) -> Suite:
    rel = "evals/demo/evals.json"
    return Suite(Format.EVOLVE, repo / rel, rel, Skill("demo", repo / "skills" / "demo"), ())


def _case(repo: Path, *sources: str) -> Case:
    fixtures = tuple(Fixture(repo / "evals" / "demo" / s, Path(s).name, ORIGIN) for s in sources)
    return Case("1", "task", ORIGIN, files=fixtures)


def _tools(ws: Workspace, mode: SandboxMode, **kwargs: object) -> WorkspaceTools:
    confinement = Confinement(ws.root, mode=mode, kill_grace_s=0.5, **kwargs)  # type: ignore[arg-type]
    return WorkspaceTools(ws.root, confinement, ws.skills)


async def _bash(tools: WorkspaceTools, command: str, timeout_ms: int = 20_000) -> ToolResultPart:
    return await tools.call("Bash", json.dumps({"command": command, "timeout": timeout_ms}))


def _leaks(text: str) -> list[str]:
    return [s for s in (*PLANTED.values(), NETRC_SECRET) if s in text]


@pytest.mark.parametrize("mode", MODES)
async def test_no_secret_reaches_a_command(workspace: Workspace, mode: SandboxMode) -> None:
    tools = _tools(workspace, mode)
    for command in ("env", "cat /proc/self/environ", "cat ~/.netrc", "echo $HOME"):
        result = await _bash(tools, command)
        assert _leaks(result.content) == [], command
    home = await _bash(tools, "echo $HOME")
    assert home.content == "/workspace/.home"


@needs_bwrap
async def test_bwrap_masks_host_credentials_even_by_absolute_path(
    workspace: Workspace, host_home: Path
) -> None:
    if host_home.is_relative_to("/tmp"):
        pytest.skip("the host HOME is under /tmp, which the sandbox hides wholesale")
    tools = _tools(workspace, SandboxMode.BWRAP)
    unmasked = _tools(workspace, SandboxMode.BWRAP, hidden=())
    command = f"cat {host_home}/.netrc"
    assert _leaks((await _bash(unmasked, command)).content) == [NETRC_SECRET]  # the control
    assert _leaks((await _bash(tools, command)).content) == []


@pytest.mark.parametrize("mode", MODES)
async def test_file_tools_cannot_write_outside(
    workspace: Workspace, tmp_path: Path, mode: SandboxMode
) -> None:
    tools = _tools(workspace, mode)
    victim = tmp_path / "victim.txt"
    victim.write_text("original")
    before = sorted(p.name for p in tmp_path.iterdir())
    write = await tools.call(
        "Write", json.dumps({"file_path": "../../outside", "content": "pwned"})
    )
    edit = await tools.call(
        "Edit",
        json.dumps({"file_path": str(victim), "old_string": "original", "new_string": "x"}),
    )
    climb = await tools.call(
        "Edit",
        json.dumps({"file_path": "../../victim.txt", "old_string": "original", "new_string": "x"}),
    )
    for result in (write, edit, climb):
        assert result.is_error and "outside the workspace" in result.content
    assert victim.read_text() == "original"
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert not (workspace.run_dir / "outside").exists()


@pytest.mark.parametrize(
    "mode",
    [
        pytest.param(SandboxMode.USER, marks=needs_user),
        pytest.param(SandboxMode.BWRAP, marks=needs_bwrap),
    ],
)
async def test_commands_cannot_write_outside_even_by_absolute_path(
    workspace: Workspace, tmp_path: Path, mode: SandboxMode
) -> None:
    tools = _tools(workspace, mode)
    target = tmp_path / "escaped.txt"
    result = await _bash(
        tools, f"echo pwned > {target}; echo pwned > {workspace.run_dir}/x; touch /etc/evil"
    )
    assert result.is_error
    assert not target.exists() and not (workspace.run_dir / "x").exists()
    assert not Path("/etc/evil").exists()
    # Only bubblewrap can show the workspace at /workspace; without namespaces it keeps its
    # real path (which the output masks), so the model is best served by relative paths.
    absolute = "/workspace/ok.txt" if mode is SandboxMode.BWRAP else "$PWD/ok.txt"
    inside = await _bash(tools, f"echo fine > {absolute} && echo fine > rel.txt")
    assert not inside.is_error, inside.content
    assert workspace.changed_files() == ["ok.txt", "rel.txt"]


def test_symlinked_fixtures_and_skill_files_pointing_outside_are_not_followed(
    repo: Path, tmp_path: Path, host_home: Path
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (repo / "evals" / "demo" / "files" / "netrc").symlink_to(host_home / ".netrc")
    with pytest.raises(WorkspaceError, match="symlink"):
        prepare(_suite(repo), _case(repo, "files/netrc"), base_dir=runs)
    (repo / "skills" / "demo" / "creds").symlink_to(host_home / ".netrc")
    with prepare(_suite(repo), _case(repo), base_dir=runs) as ws:
        copied = [
            p.read_text() for p in ws.root.rglob("*") if p.is_file() and ".git" not in p.parts
        ]
        assert not any(NETRC_SECRET in text for text in copied)
        assert not (ws.root / ".claude" / "skills" / "demo" / "creds").exists()


@pytest.mark.parametrize("mode", MODES)
async def test_a_busy_loop_ends_at_its_timeout_with_its_group_killed(
    workspace: Workspace, mode: SandboxMode
) -> None:
    tools = _tools(workspace, mode)
    marker = f"evolve-loop-{os.getpid()}-{mode.value}"
    started = time.monotonic()
    result = await _bash(
        tools, f": {marker}; (while true; do :; done) & while true; do :; done", 1000
    )
    assert time.monotonic() - started < 15
    assert result.is_error and "timed out after 1 s" in result.content
    assert _processes_with(marker) == []


@pytest.mark.parametrize("mode", MODES)
async def test_a_100_mb_flood_is_capped_fast_and_memory_bounded(
    workspace: Workspace, mode: SandboxMode
) -> None:
    tools = _tools(workspace, mode)
    tracemalloc.start()
    try:
        started = time.monotonic()
        result = await _bash(tools, "head -c 100000000 /dev/zero | tr '\\0' y")
        elapsed = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert elapsed < 15
    assert peak < 20_000_000, f"peak {peak} bytes while reading a 100 MB flood"
    assert result.content.endswith("characters shown]")  # the tool's own 30,000-char cap
    assert not result.is_error
    again = await _bash(tools, "echo still alive")
    assert again.content == "still alive"


@pytest.mark.parametrize("mode", MODES)
async def test_yes_flood_until_timeout_does_not_hang(
    workspace: Workspace, mode: SandboxMode
) -> None:
    confinement = Confinement(workspace.root, mode=mode, output_cap=10_000, kill_grace_s=0.5)
    started = time.monotonic()
    done = await confinement.run("yes", timeout_s=1)
    assert time.monotonic() - started < 15
    assert done.timed_out and done.truncated
    assert done.stdout.startswith("y\ny\n")
    assert "[output truncated after 10000 bytes" in done.stdout


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found
