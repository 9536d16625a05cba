"""Cost before spending, end to end on a real repository and the loopback LLM fake: the
projection is printed before the first provider request, `--dry-run` calls nothing,
`max-cost-usd` below the projection cuts runs before any call and names them, and the
projection lands within ±25% of the spend, from the prior and from the cache's records."""

from __future__ import annotations

import io
import json
import time
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
CASES = ("greet", "wave", "bow")


def greeter_evals(ids: tuple[str, ...]) -> str:
    return json.dumps({"evals": [case(case_id, "Ada") for case_id in ids]}, indent=2)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """`main` has the greeter and three cases; the branch `pr` rewords the skill."""
    root = greeter_repo(
        tmp_path / "repo", SKILL.format(body="Write `Hello, Ada!`."), greeter_evals(CASES)
    )
    return commit_sides(
        root, {"skills/greeter/SKILL.md": SKILL.format(body="Write `Hello, Ada!` now.")}
    )


def agent(request: Request) -> Answer:
    """Loads the skill, writes the greeting, says so: the prior's three turns."""
    if "submit_grading" in tool_names(request):
        return grading(request)
    if request.turn == 0:
        return call("Skill", skill="greeter")
    if request.turn == 1:
        return call("Write", file_path="hello.txt", content="Hello, Ada!\n")
    return text("I greeted Ada in hello.txt.")


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    with serving(agent, monkeypatch) as server:
        yield server


class Stamped(io.StringIO):
    """stdout that remembers when each line containing `needle` was written."""

    def __init__(self, needle: str) -> None:
        super().__init__()
        self.needle, self.stamps = needle, list[float]()
        self.code = -1  # the command's exit code

    def write(self, s: str) -> int:
        if self.needle in s:
            self.stamps.append(time.monotonic())
        return super().write(s)


def run(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> Stamped:
    out = Stamped("Projected cost:")
    monkeypatch.setattr("sys.stdout", out)
    out.code = main([
        "run", "--root", str(repo), "--base", "main", "--models", "anthropic/claude-sonnet-4-6",
        "--judge-model", "anthropic/claude-sonnet-4-6", "--cache-dir", str(tmp_path / "cache"),
        "--results-dir", str(tmp_path / "out"), *extra,
    ])  # fmt: skip
    return out


def spent(tmp_path: Path) -> float:
    doc = json.loads((tmp_path / "out/results.json").read_text())
    return sum(r["cost_usd"] or 0.0 for r in doc["runs"] if not r["cached"])


def projected(out: str) -> float:
    line = next(x for x in out.splitlines() if "Projected cost:" in x)
    return float(line.split("Projected cost: $", 1)[1].split(" ", 1)[0])


def test_projection_is_printed_before_the_first_request_and_is_within_a_quarter(
    repo: Path, llm: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = run(repo, tmp_path, monkeypatch, "--runs", "2")
    text_out = out.getvalue()
    assert out.stamps and llm.requests
    assert out.stamps[0] < min(r.received for r in llm.requests)
    assert "from the prior of" in text_out
    ratio = spent(tmp_path) / projected(text_out)
    assert 0.75 <= ratio <= 1.25, (ratio, text_out)


def test_a_case_seen_before_is_projected_from_the_cache_within_a_quarter(
    repo: Path, llm: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(repo, tmp_path, monkeypatch, "--runs", "1")
    # The head changes again: its runs miss the cache, and are projected from the records.
    (repo / "skills/greeter/SKILL.md").write_text(SKILL.format(body="Write `Hello, Ada!` today."))
    git(repo, "commit", "-q", "-am", "head again")
    out = run(repo, tmp_path, monkeypatch, "--runs", "2").getvalue()
    assert "from the cache's records of their cases" in out
    assert "from the prior" not in out
    ratio = spent(tmp_path) / projected(out)
    assert 0.75 <= ratio <= 1.25, (ratio, out)


def test_dry_run_prints_the_plan_and_projection_and_calls_nothing(
    repo: Path, llm: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = run(repo, tmp_path, monkeypatch, "--runs", "3", "--dry-run")
    out = done.getvalue()
    assert done.code == 0
    assert llm.requests == []
    assert "Dry run: 18 runs planned; nothing is called." in out
    assert "evals/greeter/evals.json · greet on anthropic/claude-sonnet-4-6: head 3, base 3" in out
    assert "Projected cost: $" in out
    assert not (tmp_path / "out/results.json").exists()


def test_a_budget_below_the_projection_cuts_runs_before_any_call_and_names_them(
    repo: Path, llm: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = projected(
        run(repo, tmp_path / "probe", monkeypatch, "--runs", "3", "--dry-run", "true").getvalue()
    )
    per_run = whole / 18
    # Room for 8 runs: 3 per side of greet cut to 2, wave and bow to 1, then bow dropped.
    budget = per_run * 8.5
    out = run(repo, tmp_path, monkeypatch, "--runs", "3", "--max-cost-usd", f"{budget:.6f}")
    text_out = out.getvalue()
    doc = json.loads((tmp_path / "out/results.json").read_text())
    made = {(r["case_id"], r["side"], r["repetition"]) for r in doc["runs"]}
    agent_requests = [r for r in llm.requests if "submit_grading" not in tool_names(r)]
    assert len(agent_requests) == 3 * len(made)  # three turns per run made, nothing beyond
    assert len(made) <= 9
    # Never half a pair: every repetition made on base is made on head.
    assert {(c, n) for c, s, n in made if s == "base"} == {
        (c, n) for c, s, n in made if s == "head"
    }
    assert "max-cost-usd ($" in text_out and "cut before any call" in text_out
    assert "Cut by max-cost-usd: evals/greeter/evals.json · " in text_out  # named in the comment
    assert "### ⚠️ evolve: incomplete: " in text_out  # neutral: never success over cut runs
    assert "max-cost-usd cut" in text_out
    assert doc["settings"]["incomplete"] is True


def slow_agent(request: Request) -> Answer:
    """The head's skill says "twice": the agent then reads the file back three times before
    answering, doubling its turns (3 → 6); the base's takes the prior's three."""
    if "submit_grading" in tool_names(request):
        return grading(request)
    twice = any("twice" in result for result in request.tool_results)
    if request.turn == 0:
        return call("Skill", skill="greeter")
    if request.turn == 1:
        return call("Write", file_path="hello.txt", content="Hello, Ada!\n")
    if twice and request.turn < 5:
        return call("Read", file_path="hello.txt")
    return text("I greeted Ada in hello.txt.")


def test_a_head_that_doubles_its_turns_fails_max_cost_increase(
    repo: Path, llm: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "skills/greeter/SKILL.md").write_text(SKILL.format(body="Write `Hello, Ada!` twice."))
    git(repo, "commit", "-q", "-am", "head reads back")
    llm.script = slow_agent
    done = run(repo, tmp_path, monkeypatch, "--runs", "2", "--max-cost-increase", "1.5")
    out = done.getvalue()
    assert done.code == 1
    doc = json.loads((tmp_path / "out/results.json").read_text())
    turns = {(r["side"], r["transcript"]["turns"]) for r in doc["runs"]}
    assert turns == {("base", 3), ("head", 6)}
    assert all(r["status"] == "pass" for r in doc["runs"])  # every run passes: cost alone fails
    assert "3 evals cost more than 1.5× per passing run" in out
    assert "Cost and behaviour, base → head" in out
    assert "⚠️ marks a row over `max-cost-increase`" in out and "\n| ⚠️ " in out
    assert "| 3 → 6 +100% |" in out
    assert "Bring down the cost per passing run of the rows marked ⚠️" in out
    assert "max-cost-increase 1.5: an eval fails when head's cost per passing run" in out


def test_without_max_cost_increase_the_same_head_only_shows_its_cost(
    repo: Path, llm: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "skills/greeter/SKILL.md").write_text(SKILL.format(body="Write `Hello, Ada!` twice."))
    git(repo, "commit", "-q", "-am", "head reads back")
    llm.script = slow_agent
    done = run(repo, tmp_path, monkeypatch, "--runs", "2")
    out = done.getvalue()
    assert done.code == 0
    assert "cost more than" not in out and "over max-cost-increase" not in out
    assert "| 3 → 6 +100% |" in out


def test_a_model_with_no_price_says_so_and_an_evolve_yaml_price_is_used(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLM(agent) as server:
        for key in ("ANTHROPIC", "OPENAI"):
            monkeypatch.setenv(f"{key}_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
        unpriced = "openai/gpt-5.3-codex-spark"  # runs, but the price table does not list it
        model = ("--models", unpriced, "--judge-model", unpriced)
        out = run(repo, tmp_path, monkeypatch, "--runs", "1", *model)
        assert out.code == 0, out.getvalue()
        text_out = out.getvalue()
        assert "Projected cost: price unknown for 6 runs" in text_out
        assert "💸 price unknown" in text_out and "$0.00" not in text_out
        (repo / ".evolve.yaml").write_text(
            "providers:\n  openai:\n    models:\n"
            "      - {id: gpt-5.3-codex-spark, input_per_mtok: 0.4, output_per_mtok: 1.6}\n"
        )
        priced = run(repo, tmp_path / "again", monkeypatch, "--runs", "1", *model).getvalue()
    assert "Projected cost: $0.0" in priced and "priced by .evolve.yaml" in priced
    doc = json.loads((tmp_path / "again/out/results.json").read_text())
    assert all(r["cost_usd"] and r["cost_usd"] > 0 for r in doc["runs"])
