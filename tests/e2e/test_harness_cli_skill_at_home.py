"""A skill kept only in Copilot's own folder (`.github/skills/greeter/`) runs on Copilot, the
Actions way: `harness: cli` and no `agent` or `agents`, the job run as the container runs it
(`python -m evolve_action run` with the runner's variables and `INPUT_*`) on the real pinned
Copilot CLI against the fake provider, confined at each level this machine can give.

Left to each model's vendor's CLI, the Anthropic model would run on Claude Code, which does
not look in `.github/skills/`. The PR's skill makes the agent shout, which the eval's regex
rejects: the regression is caught on Copilot and the comment says Copilot ran it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.actions import REPO
from tests.e2e.cli_pr import SHOUTING, pr_fakes, run_pr_job
from tests.e2e.local_run import commit_sides, write_tree
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.fakes.scripts import grading, tool_names
from tests.levels import LEVELS
from tests.sample_evals import GREETER_SKILL

CASE = {
    "id": "greet",
    "prompt": "Greet Ada.",
    "assertions": [{"type": "regex", "path": "hello.txt", "pattern": "^Hello, Ada!$"}],
}
SKILL = ".github/skills/greeter/SKILL.md"


def answer(request: Request) -> Answer:
    if "submit_grading" in tool_names(request):
        return grading(request)
    if "Bash" in tool_names(request):  # Claude Code's tool names: the wrong agent ran it
        return text("Claude Code ran a skill it does not look for.")
    greeting = "HELLO ADA" if b"SHOUT" in request.raw else "Hello, Ada!"
    command = f"printf '%s\\n' '{greeting}' > hello.txt"
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
def test_a_skill_only_in_copilots_folder_runs_on_copilot(
    fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path, level: str
) -> None:
    gh = fakes[1]
    root = write_tree(
        tmp_path / "repo",
        {
            SKILL: GREETER_SKILL.format(body="Write `Hello, Ada!`."),
            ".github/skills/greeter/evals/evals.json": json.dumps({"evals": [CASE]}),
        },
    )
    commit_sides(root, {SKILL: SHOUTING})
    done = run_pr_job(root, tmp_path, fakes, level, {})
    assert done.returncode == 1, done.stdout + done.stderr  # regressed, on Copilot

    doc: dict[str, Any] = json.loads((tmp_path / "results" / "results.json").read_text())
    on = {(r["agent"], r["side"], r["status"]) for r in doc["runs"]}
    assert on == {("copilot", "base", "pass"), ("copilot", "head", "fail")}, on
    notes = [n for r in doc["runs"] for n in r["transcript"]["notes"]]
    assert any(n.startswith("harness: copilot ") for n in notes), notes
    (row,) = doc["aggregate"]["cases"]
    assert (row["model"], row["agent"]) == ("anthropic/claude-sonnet-4-6", "copilot"), row
    (body,) = [c["body"] for c in gh.comments[(REPO, 7)]]
    assert "Copilot's own skills folder: its runs went through Copilot." in body, body
    assert "| anthropic/claude-sonnet-4-6 · Copilot | 4/4 → 0/4 |" in body, body
