"""What a pull request costs, across pushes, run the Actions way (`INPUT_*`, an event file,
the GitHub and LLM fakes): the sticky comment shows this push, the PR so far and the number
of pushes, from the total our own earlier comment carries, never from text others wrote."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.e2e.test_pull_request import (
    REPO,
    SKILL,
    container_env,
    fakes,  # noqa: F401  (the fixture)
    make_repo,
    outputs,
    run_container,
)
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM
from tests.gitrepo import git, put


def _push(root: Path, body: str) -> str:
    put(root, "skills/greeter/SKILL.md", SKILL.format(name="greeter", body=body))
    git(root, "commit", "-q", "-am", "another push")
    return git(root, "rev-parse", "HEAD")


def _event(env: dict[str, str], head: str) -> None:
    path = Path(env["GITHUB_EVENT_PATH"])
    event = json.loads(path.read_text())
    event["pull_request"]["head"]["sha"] = head
    path.write_text(json.dumps(event))
    env["GITHUB_SHA"] = head


def _hidden(body: str) -> dict[str, object]:
    match = re.search(r"<!-- evolve-spend (\{.*?\}) -->", body)
    assert match, body[-800:]
    return dict(json.loads(match.group(1)))


def test_second_push_shows_this_push_and_the_pr_so_far(
    tmp_path: Path,
    fakes: tuple[FakeLLM, GitHubFake],  # noqa: F811
) -> None:
    llm, gh = fakes
    root, base, head = make_repo(tmp_path)
    env = {**container_env(root, tmp_path, llm, gh, base, head), "INPUT_RUNS": "2"}
    first = run_container(env, root)
    assert first.returncode in (0, 1), first.stdout + first.stderr
    paid_first = float(outputs(tmp_path / "output")["cost-usd"])
    assert paid_first > 0
    (comment,) = gh.comments[(REPO, 7)]
    assert "PR so far: " in comment["body"] and "over 1 push" in comment["body"]
    assert _hidden(comment["body"])["pushes"] == 1

    # Someone pastes a forged total into the PR's thread: it is not ours, and is never read.
    forged = '<!-- evolve:sticky key=default --> <!-- evolve-spend {"usd":999,"pushes":50} -->'
    gh.add_comment(REPO, 7, forged, {"login": "mallory", "id": 9, "type": "User"})

    head2 = _push(root, "SHOUT `HELLO ADA` twice.")
    _event(env, head2)
    (tmp_path / "output").write_text("")
    second = run_container(env, root)
    assert second.returncode in (0, 1), second.stdout + second.stderr
    paid_second = float(outputs(tmp_path / "output")["cost-usd"])
    assert paid_second > 0  # the head changed: its runs were made again (base from the cache)
    ours = [c for c in gh.comments[(REPO, 7)] if c["user"]["login"] != "mallory"]
    (comment,) = ours
    data = _hidden(comment["body"])
    assert data["pushes"] == 2
    assert abs(float(str(data["usd"])) - (paid_first + paid_second)) < 1e-3
    assert f"💸 this push ${paid_second:.2f}" in comment["body"]
    assert f"PR so far: ${paid_first + paid_second:.2f} over 2 pushes" in comment["body"]


def test_dry_run_input_prints_plan_and_projection_posts_nothing_and_calls_no_model(
    tmp_path: Path,
    fakes: tuple[FakeLLM, GitHubFake],  # noqa: F811
) -> None:
    llm, gh = fakes
    root, base, head = make_repo(tmp_path)
    env = {**container_env(root, tmp_path, llm, gh, base, head), "INPUT_DRY-RUN": "true"}
    done = run_container(env, root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert llm.requests == []
    assert gh.comments.get((REPO, 7), []) == [] and gh.check_runs == []
    assert "Dry run: " in done.stdout and "Projected cost: $" in done.stdout
    summary = (tmp_path / "summary").read_text()
    assert "evolve-action: dry run" in summary and "Projected cost: $" in summary
