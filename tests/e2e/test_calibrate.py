"""`evolve-action calibrate` on an unchanged tree, against the loopback LLM fake: two
independent sides through the one verdict, no false alarm, each eval's spread and the runs a
complete break would need, and nothing taken from (or left in) the run cache."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from evolve_action.commands.cli import main
from tests.e2e.local_run import commit_sides, greeter_repo
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.fakes.scripts import grading, tool_names, user_text
from tests.sample_evals import GREETER_SKILL
from tests.sample_evals import greeter_case as case

SKILL = GREETER_SKILL.format(body="Write `Hello, Ada!`.")
SCHEMA = Path(__file__).resolve().parents[1] / "data/skill_creator_benchmark.schema.json"
RUNS = 4


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    evals = [case("steady", "^Hello, Ada!$"), case("coin", "^Hello, Ada!$"), case("never", "Bob")]
    return commit_sides(greeter_repo(tmp_path / "repo", SKILL, json.dumps({"evals": evals})))


class Agent:
    """Greets Ada as the skill says; on the `coin` eval every other run writes nonsense instead
    (runs are one at a time here, so each side sees the same alternation: 2 of 4)."""

    def __init__(self) -> None:
        self.coins = 0
        self.conversations = 0
        self.lock = threading.Lock()

    def __call__(self, request: Request) -> Answer:
        if "submit_grading" in tool_names(request):
            return grading(request)
        if request.turn == 0:
            with self.lock:
                self.conversations += 1
                if "(coin)" in user_text(request):
                    self.coins += 1
            return call("Skill", skill="greeter")
        if request.turn == 1:
            fails = "(coin)" in user_text(request) and self.coins % 2 == 0
            return call("Write", file_path="hello.txt", content="?\n" if fails else "Hello, Ada!\n")
        return text("Done.")


@pytest.fixture
def agent(monkeypatch: pytest.MonkeyPatch) -> Iterator[Agent]:
    script = Agent()
    with FakeLLM(script) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
        yield script
        assert not server.script_errors, server.script_errors


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def test_calibrate__unchanged_tree_no_false_alarm_spreads_and_fresh_runs(
    repo: Path, agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache, out = tmp_path / "cache", tmp_path / "out"
    common = ["--root", str(repo), "--models", "anthropic", "--judge-model", "anthropic"]
    common += ["--runs", str(RUNS), "--max-concurrency", "1", "--cache-dir", str(cache)]
    # A plain run first fills the cache with every run of this tree.
    assert main(["run", *common, "--results-dir", str(tmp_path / "plain")]) == 1  # never fails
    capsys.readouterr()
    cached, before = _files(cache), agent.conversations
    assert len(cached) == 2 * 3 * RUNS  # each run, and its pointer by task (re-grading)

    code = main(["calibrate", *common, "--results-dir", str(out)])
    printed = capsys.readouterr().out

    assert code == 0, printed
    # Both sides ran afresh: nothing from the cache, though it held every run, nothing added.
    assert agent.conversations - before == 2 * 3 * RUNS
    assert "(cached)" not in printed and _files(cache) == cached
    assert "[A] evals/greeter/evals.json coin" in printed and "[B] evals/greeter" in printed
    assert "evolve calibration: no false alarm; flip rate 0%" in printed
    assert "**Flip rate 0%**: 0 of 3 evals changed their" in printed

    doc = json.loads((out / "calibration/calibration.json").read_text())
    assert doc["conclusion"] == "success" and doc["false_alarms"] == 0
    assert doc["flip_rate"] == 0 and doc["compared"] == 3
    rows = {r["case_id"]: r for r in doc["rows"]}
    assert (rows["steady"]["a_passed"], rows["steady"]["b_passed"]) == (RUNS, RUNS)
    assert (rows["coin"]["a_passed"], rows["coin"]["b_passed"]) == (2, 2)
    assert rows["steady"]["spread"] == 0 and rows["coin"]["spread"] == pytest.approx(0.25)
    # Alone, 3/3 → 0/3 is significant at 0.05 (p = 1/20); next to `coin`, whose runs vary
    # and so spend part of alpha, the verdict needs 4 (1/70). At 50% it takes 8 (4 of 8 → 0).
    assert rows["steady"]["runs_needed"] == 4 and rows["coin"]["runs_needed"] == 8
    assert rows["never"]["pass_rate"] == 0 and rows["never"]["runs_needed"] is None
    assert not any(r["flagged"] or r["moved"] or r["flipped"] for r in doc["rows"])
    assert "| `Greet Ada (coin).`" not in printed  # names are cells, not code
    assert "| ±25 pts | 8 |" in printed and "| — (never passes) |" in printed

    results = json.loads((out / "results.json").read_text())
    assert {r["side"] for r in results["runs"]} == {"base", "head"}
    assert not any(r["cached"] for r in results["runs"])
    (bench_path,) = (out / "calibration").rglob("benchmark.json")
    bench = json.loads(bench_path.read_text())
    jsonschema.validate(bench, json.loads(SCHEMA.read_text()))
    assert bench["metadata"]["calibration"] == {"side_a": "without_skill", "side_b": "with_skill"}
    assert len(bench["runs"]) == 2 * 3 * RUNS
    assert bench["run_summary"]["delta"]["pass_rate"] == "+0.00"
