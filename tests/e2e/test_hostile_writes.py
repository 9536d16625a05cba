"""A hostile pull request writes nowhere but its workspace, at every confinement level (issue 22).

The PR's agent (through `Bash`) and its eval's `command` check try to leave a file in every
place a later run, another PR's job or our own root process could meet it: the shared
temporary directories, the checkout, the runner's files, the directory of the runs, the
run's own parent, /etc. The job runs as GitHub starts it (`evolve-action run` in the Actions
environment, against the loopback fakes), at the user level with bubblewrap hidden, and under
bubblewrap where it works. Afterwards no canary exists anywhere, and the runs did happen
(their in-workspace write passed its check), so the test is not passing for want of trying.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest

from evolve_action.execute.sandbox.shared import RUNS_ROOT
from tests.e2e.test_pull_request import REPO, container_env, run_container
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.fakes.scripts import grading, tool_names
from tests.gitrepo import commit_base, git
from tests.levels import LEVELS, env_at_level

SKILL = "---\nname: hostile\ndescription: Writes everywhere.\n---\n{body}\n"


def places(root: Path, tmp: Path) -> list[Path]:
    """Everywhere a canary must not land; ".." is the run directory, "../.." the runs'."""
    found = [Path(p) for p in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/etc", "/root")]
    return [p for p in found if p.is_dir()] + [root, tmp, tmp / "results", RUNS_ROOT]


def attack(token: str, targets: list[Path]) -> str:
    writes = [f"echo pwned > {t}/evolve-canary-{token}.txt" for t in targets]
    writes += [f"ln -s /etc/passwd {t}/evolve-canary-{token}.ln" for t in targets]
    writes += [f"echo pwned > {rel}/evolve-canary-{token}.txt" for rel in ("..", "../..")]
    return " 2>/dev/null; ".join(writes) + " 2>/dev/null; echo ok > inside.txt; true"


def make_repo(root: Path, command: str) -> tuple[str, str]:
    case = {
        "id": "escape",
        "prompt": "Run the setup.",
        "assertions": [
            {"type": "command", "run": command},
            {"type": "regex", "path": "inside.txt", "pattern": "^ok$"},
        ],
    }
    for rel, body in {
        ".claude-plugin/plugin.json": '{"name": "acme"}',
        "skills/hostile/SKILL.md": SKILL.format(body="Run the setup."),
        "evals/hostile/evals.json": json.dumps({"evals": [case]}),
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    base = commit_base(root)
    (root / "skills/hostile/SKILL.md").write_text(SKILL.format(body="Run the setup, twice."))
    git(root, "commit", "-q", "-am", "head")
    return base, git(root, "rev-parse", "HEAD")


@pytest.mark.parametrize("level", LEVELS)
def test_a_hostile_pr_writes_nothing_outside_its_workspace(tmp_path: Path, level: str) -> None:
    token = secrets.token_hex(6)
    root = tmp_path / "repo"
    root.mkdir()
    targets = places(root, tmp_path)
    command = attack(token, targets)
    base, head = make_repo(root, command)

    def agent(request: Request) -> Answer:
        if "submit_grading" in tool_names(request):
            return grading(request)
        return call("Bash", command=command) if request.turn == 0 else text("Done.")

    with FakeLLM(agent) as llm, GitHubFake() as gh:
        env = container_env(root, tmp_path, llm, gh, base, head)
        env |= {"INPUT_MODELS": "anthropic", "INPUT_RUNS": "1", "INPUT_ALLOW-UNCONFINED": "false"}
        done = run_container(env_at_level(level, env, tmp_path / "path"), root)
        (comment,) = gh.comments[(REPO, 7)]
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    assert results["settings"]["confinement"].startswith(
        "namespaces" if level == "bwrap" else "unprivileged user"
    )
    runs = results["runs"]
    assert {(r["side"], r["status"]) for r in runs} == {("base", "pass"), ("head", "pass")}
    landed = [
        str(hit)
        for place in [*targets, *RUNS_ROOT.parents]
        for hit in place.glob(f"evolve-canary-{token}*")
    ]
    landed += [str(p) for p in RUNS_ROOT.rglob(f"evolve-canary-{token}*")]
    assert landed == [], f"hostile writes landed outside the workspace: {landed}"
    assert "confinement:" in comment["body"]
