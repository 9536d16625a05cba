"""`evolve-action run` on an AgentV file that names no skill: it evaluates the model itself.

Like AgentV with a plain LLM target: no skill is installed, no tool is offered, and a
single-turn case costs exactly two calls, the model's answer and one judge call (on OpenAI the
judge's grading comes back as JSON text under a schema, with no tool).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.commands.cli import main
from evolve_action.publish.results.load import load_results
from tests.e2e.local_run import serving
from tests.fakes.llm_script import Reply
from tests.fakes.llm_server import FakeLLM, Request, text
from tests.sample_evals import keyword_eval

EVAL = keyword_eval("a model eval, no skill", 2)


def _script(request: Request) -> Reply:
    if request.body.get("response_format"):
        return text(json.dumps({"reason": "it does", "pass": True, "score": 1.0}))
    prompt = json.dumps(request.body["messages"])
    word = "kw1x" if "kw1x" in prompt else "kw0x"
    return text(f"Echo: {word}.")


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with serving(_script, monkeypatch, ("openai",)) as server:
        yield server


def test_run__a_file_without_a_skill_is_two_plain_calls_per_case(
    tmp_path: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "bench.eval.yaml").write_text(EVAL)
    out_dir = tmp_path / "out"
    model = "openai/gpt-5.4"
    argv = ["run", "--base", "none", "--root", str(root), "--models", model]
    argv += ["--judge-model", model, "--runs", "1", "--results-dir", str(out_dir)]
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "PASS  bench.eval.yaml case-0" in out and "PASS  bench.eval.yaml case-1" in out

    bodies = llm.bodies("openai")
    assert len(bodies) == 4  # two cases x (one answer + one judge call)
    assert all("tools" not in b and "tool_choice" not in b for b in bodies)
    answers = [b for b in bodies if "response_format" not in b]
    judges = [b for b in bodies if "response_format" in b]
    assert len(answers) == 2 and len(judges) == 2
    # The model sees the case's prompt alone: no agent system prompt, no skill listing.
    assert all([m["role"] for m in b["messages"]] == ["user"] for b in answers)
    assert all(b["response_format"]["type"] == "json_schema" for b in judges)

    loaded = load_results(out_dir / "results.json")
    assert sorted((r.case_id, r.score) for r in loaded.runs) == [("case-0", 1.0), ("case-1", 1.0)]
    assert all(r.transcript.tool_calls == [] and r.transcript.turns == 1 for r in loaded.runs)
