"""`agents: claude-code,copilot` on a pull request, the Actions way: the job runs as the
container runs it (`python -m evolve_action run` with the runner's variables and `INPUT_*`),
each case on the real pinned Claude Code and Copilot CLIs against the fake provider, and posts
to the fake GitHub one comment with a column group per agent and the line where they disagree.

The skill's new text makes the agent shout, which the eval's regex rejects. Claude Code follows
its skill; Copilot, in this script, writes the greeting as asked whatever the skill says: the
PR hurts on Claude Code and has no effect on Copilot, and the comment says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.actions import REPO
from tests.e2e.cli_pr import pr_fakes, run_pr_job, shouting_pr
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.fakes.scripts import grading, tool_names
from tests.levels import BWRAP, LEVELS, USER

CASE = {
    "id": "greet",
    "prompt": "Greet Ada.",
    "assertions": [{"type": "regex", "path": "hello.txt", "pattern": "^Hello, Ada!$"}],
}
CONFINED = {BWRAP: "namespaces", USER: "unprivileged user"}


def answer(request: Request) -> Answer:
    if "submit_grading" in tool_names(request):
        return grading(request)
    claude = "Bash" in tool_names(request)  # Claude Code's tool names; Copilot's are lower case
    shouts = claude and b"SHOUT" in request.raw
    greeting = "HELLO ADA" if shouts else "Hello, Ada!"
    command = f"printf '%s\\n' '{greeting}' > hello.txt"
    if claude:
        turns = [call("Skill", skill="greeter"), call("Bash", command=command), text("Done.")]
    else:
        turns = [
            call("skill", skill="greeter"),
            call("bash", command=command, description="greet"),
            text("Done."),
        ]
    return turns[min(request.turn, len(turns) - 1)]


@pytest.fixture
def fakes() -> Iterator[tuple[FakeLLM, GitHubFake]]:
    yield from pr_fakes(answer)


@pytest.mark.parametrize("level", LEVELS)
def test_two_agents_show_a_column_group_each_and_where_they_disagree(
    fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path, level: str
) -> None:
    gh = fakes[1]
    root = shouting_pr(tmp_path / "repo", CASE)
    done = run_pr_job(root, tmp_path, fakes, level, {"INPUT_AGENTS": "claude-code, copilot"})
    assert done.returncode == 1, done.stdout + done.stderr  # regressed on Claude Code

    (body,) = [c["body"] for c in gh.comments[(REPO, 7)]]
    assert "| skill | model | Claude Code | verdict | Copilot | verdict |" in body, body
    assert "`greet`: hurts on Claude Code, no effect on Copilot." in body, body
    assert "judge `anthropic/claude-sonnet-4-6` (anthropic family)" in body
    doc: dict[str, Any] = json.loads((tmp_path / "results" / "results.json").read_text())
    on = {(r["agent"], r["side"], r["status"]) for r in doc["runs"]}
    assert on == {
        ("claude", "base", "pass"),
        ("claude", "head", "fail"),
        ("copilot", "base", "pass"),
        ("copilot", "head", "pass"),
    }, on
    assert {r["model"] for r in doc["runs"]} == {"anthropic/claude-sonnet-4-6"}
    assert doc["settings"]["confinement"].startswith(CONFINED[level]), doc["settings"]
    rows = {(c["model"], c["agent"], c["label"]) for c in doc["aggregate"]["cases"]}
    assert {(m, a) for m, a, _ in rows} == {
        ("anthropic/claude-sonnet-4-6", "claude"),
        ("anthropic/claude-sonnet-4-6", "copilot"),
    }, rows
    notes = {r["agent"]: r["transcript"]["notes"] for r in doc["runs"]}
    assert any(n.startswith("harness: claude ") for n in notes["claude"]), notes
    assert any(n.startswith("harness: copilot ") for n in notes["copilot"]), notes
