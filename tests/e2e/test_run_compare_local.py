"""`evolve-action run --base main` on a real repository: base vs head, labels, the cache."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.commands.cli import main
from tests.e2e.local_run import commit_sides, greeter_repo, serving
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.fakes.scripts import grading, tool_names
from tests.gitrepo import git
from tests.sample_evals import GREETER_SKILL
from tests.sample_evals import greeter_case as case

SKILL = GREETER_SKILL


def write_evals(repo: Path, cases: list[dict[str, object]]) -> None:
    path = repo / "evals/greeter/evals.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"evals": cases}, indent=2))


def evals(*cases: dict[str, object]) -> str:
    return json.dumps({"evals": list(cases)}, indent=2)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = greeter_repo(
        tmp_path / "repo",
        SKILL.format(body="Write `Hello, Ada!`."),
        evals(case("greet", "^Hello, Ada!$"), case("old", "Ada")),
    )
    return commit_sides(root, {
        "skills/greeter/SKILL.md": SKILL.format(body="SHOUT: write `HELLO ADA`."),
        "evals/greeter/evals.json": evals(case("greet", "^Hello, Ada!$"), case("new", "ADA")),
    })  # fmt: skip


def agent(request: Request) -> Answer:
    """Follows the skill it loaded: the head version shouts, the base version does not."""
    if "submit_grading" in tool_names(request):
        return grading(request)
    if request.turn == 0:
        return call("Skill", skill="greeter")
    if request.turn == 1:
        shout = any("SHOUT" in result for result in request.tool_results)
        return call(
            "Write", file_path="hello.txt", content="HELLO ADA\n" if shout else "Hello, Ada!\n"
        )
    return text("Done.")


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with serving(agent, monkeypatch) as server:
        yield server


def test_compare_with_base__regression_new_removed_and_a_second_run_from_cache(
    repo: Path, llm: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "run", "--root", str(repo), "--base", "main", "--models", "anthropic", "--runs", "4",
        "--cache-dir", str(tmp_path / "cache"), "--results-dir", str(tmp_path / "out"),
    ]  # fmt: skip
    assert main(argv) == 1
    first = capsys.readouterr().out
    assert (
        "16 runs: 12 passed, 4 failed" in first
    )  # only head greet fails: base greet, old, new pass
    doc = json.loads((tmp_path / "out/results.json").read_text())
    labels = {c["case_id"]: c["label"] for c in doc["aggregate"]["cases"]}
    assert labels == {"greet": "regressed", "old": "removed", "new": "new"}
    calls_after_first = len(llm.requests)

    assert main(argv) == 1
    second = capsys.readouterr().out
    assert len(llm.requests) == calls_after_first  # nothing re-run: base and head from cache
    assert "16 runs: 12 passed, 4 failed" in second


def test_compare_with_base__only_affected_suites_run(
    repo: Path, llm: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "skills/other").mkdir()
    (repo / "skills/other/SKILL.md").write_text(SKILL.format(body="Other."))
    write_evals_other = repo / "evals/other/evals.json"
    write_evals_other.parent.mkdir(parents=True)
    write_evals_other.write_text(json.dumps({"evals": [case("x", "y")]}))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "add other on pr")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "pr")  # main now has both; the working tree edits only greeter
    (repo / "skills/greeter/SKILL.md").write_text(SKILL.format(body="Write `Hello, Ada!`."))
    code = main([
        "run", "--root", str(repo), "--base", "main", "--models", "anthropic", "--runs", "1",
        "--results-dir", str(tmp_path / "out"),
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert "evals/other" not in out
    assert "evals/greeter/evals.json greet" in out
    assert code in (0, 1)
