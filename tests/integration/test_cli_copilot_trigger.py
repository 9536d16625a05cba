"""The real Copilot CLI in a trigger case, as `copilot.Copilot` starts it: the model is
offered the skill tool and the file viewer only (Claude Code's trigger runs: `Skill`, `Read`).
"""

from __future__ import annotations

from pathlib import Path

from evolve_action.execute.harness.contract import Invocation
from evolve_action.execute.harness.copilot import TRIGGER_TOOLS, Copilot
from evolve_action.execute.harness.copilot import events as copilot_events
from evolve_action.execute.harness.copilot import launch as copilot_launch
from evolve_action.execute.harness.install import this_platform
from tests.fakes.cli_runs import PLACEHOLDER, PROMPT, place, require, run, scripted
from tests.fakes.llm_server import FakeLLM, call, text
from tests.fakes.scripts import tool_names


def test_a_trigger_case_offers_copilot_only_the_skill_and_view_tools(
    fake: FakeLLM, tmp_path: Path
) -> None:
    binary = require(*copilot_launch.native(*this_platform()))
    fake.script = scripted([call("skill", skill="greeter"), text("Done.")])
    where = place(tmp_path, Copilot.skills_dir, {})
    invocation = Invocation(
        binary=str(binary), provider="anthropic", model="claude-sonnet-4-6", prompt=PROMPT,
        max_turns=5, trigger=True, sandboxed=False, base_url=fake.url, token=PLACEHOLDER,
    )  # fmt: skip
    command = Copilot().command(invocation)
    # The fake answers Anthropic at its origin: the proxy's route is not in between here.
    env = {**command.env, "COPILOT_PROVIDER_BASE_URL": fake.anthropic_base_url}
    ran = run(command.argv, {**copilot_launch.ENV, **env}, where)

    out = copilot_events.parse(ran.stdout, exit_code=ran.exit_code, stderr=ran.stderr)
    assert not out.error, (out.error, ran.stderr[-2000:])
    assert [c.name for c in out.tool_calls] == ["skill"]
    offered = {name for request in fake.requests for name in tool_names(request)}
    assert offered == set(TRIGGER_TOOLS), offered
