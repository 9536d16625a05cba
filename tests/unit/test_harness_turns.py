"""`harness: cli` gives a CLI one user message per run: a conversation of several user turns
(Vally `turns`) becomes an error run that says so and what to do, never one prompt that the
CLI answers once and is graded as if it had answered every turn."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

import pytest

from evolve_action.execute.agent import AgentError
from evolve_action.execute.harness.run import CliHarness
from evolve_action.model.evals import Case, Format, Origin, Skill, Suite
from evolve_action.model.outcomes import ErrorKind, Side
from evolve_action.plan.planning import RunSpec


@pytest.mark.parametrize("model", ["anthropic/claude-sonnet-4-6", "openai/gpt-5.4"])
def test_a_conversation_is_an_error_run_through_a_cli(tmp_path: Path, model: str) -> None:
    case = Case("two", "Launch the agent", Origin("eval.yaml"), follow_ups=("Now review",))
    suite = Suite(Format.VALLY, tmp_path / "eval.yaml", "eval.yaml", Skill("s", None), (case,))
    harness = CliHarness(proxy=cast(Any, None), binaries={})
    spec = RunSpec(suite, case, model, Side.HEAD, 1)
    with pytest.raises(AgentError) as raised:
        asyncio.run(harness.run(spec, tmp_path, max_turns=5, timeout_s=5, network=False))
    assert raised.value.kind is ErrorKind.HARNESS
    assert "several user turns" in raised.value.message
    assert "run it with `harness: sdk`" in raised.value.message
