"""`judge-family` end to end, on the SDK loop against the fake: `other` takes the judge from a
provider none of the models comes from (results.json names it; the comment's footer is
`tests/e2e/test_harness_cli_several_agents.py`'s and `tests/unit/test_agents.py`'s), and
a job with no key of another family stops before any call, saying what to set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.commands.cli import main
from tests.e2e.local_run import GREETER_TURNS, serving, write_tree
from tests.fakes.scripts import agent_and_judge, tool_names
from tests.sample_evals import GREETER_SKILL_MD

EVALS = (
    '{"evals": [{"id": "greet", "prompt": "Greet Ada.",'
    ' "expectations": ["The reply greets Ada by name."]}]}'
)


def repo(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "repo",
        {"skills/greeter/SKILL.md": GREETER_SKILL_MD, "evals/greeter/evals.json": EVALS},
    )


def run(root: Path, *extra: str) -> int:
    argv = ["run", "--base", "none", "--root", str(root), "--models", "anthropic", "--runs", "1"]
    return main([*argv, "--results-dir", str(root.parent / "out"), *extra])


def test_other_family_judges_with_another_provider_and_the_footer_says_which(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    script = agent_and_judge(GREETER_TURNS)
    with serving(script, monkeypatch, ("anthropic", "openai")) as llm:
        code = run(repo(tmp_path), "--judge-family", "other")
    out = capsys.readouterr().out
    assert code == 0, out
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["judge_model"] == "openai/gpt-5.4"
    judged = [r for r in llm.requests if "submit_grading" in tool_names(r)]
    assert judged and {r.api for r in judged} == {"openai"}, {r.api for r in judged}
    acted = [r for r in llm.requests if "submit_grading" not in tool_names(r)]
    assert acted and {r.api for r in acted} == {"anthropic"}


def test_other_family_without_a_key_of_another_provider_stops_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with serving(agent_and_judge(GREETER_TURNS), monkeypatch, ("anthropic",)) as llm:
        code = run(repo(tmp_path), "--judge-family", "other")
    captured = capsys.readouterr()
    said = captured.out + captured.err
    assert code == 2, said
    assert "judge-family: other asks for a judge from a provider none of the models" in said
    assert "set one of openai-api-key" in said
    assert not llm.requests
