"""Copilot CLI and OpenCode on the harness contract, the `agent` input's choice of CLI, and
the event reader's defence against a deeply nested line.

The command lines and variables come from the launch facts (`copilot_launch`,
`opencode_launch`), which the real-CLI tests check; here: that the harnesses hand them the
proxy's route and the session's dummy key, never anything else, and that the registry picks
the CLI the input names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.execute.harness import registry
from evolve_action.execute.harness.claude import parse as claude_parse
from evolve_action.execute.harness.contract import Invocation
from evolve_action.execute.harness.events import json_lines
from evolve_action.execute.harness.run import _missing_helpers
from evolve_action.settings.inputs import AGENTS, SettingsError, from_values

RUN = Invocation(
    binary="/opt/cli", provider="anthropic", model="claude-sonnet-4-6", prompt="Greet Ada.",
    max_turns=5, trigger=False, sandboxed=True, base_url="http://127.0.0.1:4242",
    token="evolve-session-token",
)  # fmt: skip


def test_without_a_choice_each_vendor_runs_its_own_cli() -> None:
    assert registry.for_provider("anthropic").name == "claude"  # type: ignore[union-attr]
    assert registry.for_provider("openai").name == "codex"  # type: ignore[union-attr]


@pytest.mark.parametrize("agent", ["copilot", "opencode"])
def test_the_chosen_agent_runs_anthropic_and_openai_models(agent: str) -> None:
    for provider in ("anthropic", "openai"):
        chosen = registry.for_provider(provider, agent)
        assert chosen is not None and chosen.name == agent
    assert registry.for_provider("gemini", agent) is None
    assert "models, not gemini" in registry.cannot_run("gemini", agent)
    keyless = {"copilot"} if agent == "copilot" else set()  # GitHub Copilot's own API
    assert registry.providers(agent) == {"anthropic", "openai", *keyless}


def test_gemini_models_run_on_gemini_cli_and_copilot_models_on_copilot_cli() -> None:
    assert registry.for_provider("gemini").name == "gemini"  # type: ignore[union-attr]
    assert registry.for_provider("copilot").name == "copilot"  # type: ignore[union-attr]
    assert registry.for_provider("gemini", "claude") is None


def test_the_input_names_exactly_the_registered_agents() -> None:
    assert set(AGENTS) == set(registry.HARNESSES)
    assert from_values({}).agent == ""
    assert from_values({"agent": " Copilot "}).agent == "copilot"
    refused = "input agent: 'cursor' is not an agent CLI; write one of claude, codex"
    with pytest.raises(SettingsError, match=refused):
        from_values({"agent": "cursor"})


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_copilot_is_pointed_at_the_proxy_with_the_dummy_key(provider: str) -> None:
    run = Invocation(**{**_fields(RUN), "provider": provider, "model": "m-1"})
    command = registry.HARNESSES["copilot"].command(run)
    assert command.argv[0] == "/opt/cli" and "--allow-all" in command.argv
    assert command.env == {
        "COPILOT_PROVIDER_TYPE": provider,
        "COPILOT_PROVIDER_BASE_URL": f"http://127.0.0.1:4242/{provider}",
        "COPILOT_PROVIDER_API_KEY": "evolve-session-token",
        "COPILOT_MODEL": "m-1",
    }
    assert command.stdin == "Greet Ada."
    assert registry.HARNESSES["copilot"].skills_dir == ".github/skills"


def test_opencode_is_pointed_at_the_proxy_and_its_npm_question_at_the_proxy_port() -> None:
    command = registry.HARNESSES["opencode"].command(RUN)
    assert command.argv[-2:] == ["-m", "anthropic/claude-sonnet-4-6"]
    config = json.loads(command.env["OPENCODE_CONFIG_CONTENT"])
    options = config["provider"]["anthropic"]["options"]
    assert options == {
        "baseURL": "http://127.0.0.1:4242/anthropic/v1",
        "apiKey": "evolve-session-token",
    }
    assert command.env["npm_config_registry"] == "http://127.0.0.1:4242/npm/"
    assert registry.HARNESSES["opencode"].skills_dir == ".opencode/skills"


def test_a_case_system_text_goes_before_the_prompt_on_the_clis_without_a_system_option() -> None:
    run = Invocation(**{**_fields(RUN), "system": "Answer in French."})
    for name in ("copilot", "opencode"):
        stdin = registry.HARNESSES[name].command(run).stdin or ""
        assert stdin.index("Answer in French.") < stdin.index("Greet Ada.")


def test_a_deeply_nested_line_is_skipped_as_garbled_not_a_traceback() -> None:
    deep = '{"a":' + "[" * 100_000 + "]" * 100_000 + "}"
    result = json.dumps({"type": "result", "result": "ok", "num_turns": 1})
    assert list(json_lines(f"{deep}\n{result}\n")) == [json.loads(result)]
    assert claude_parse(f"{deep}\n{result}\n", exit_code=0).final_text == "ok"


def _fields(run: Invocation) -> dict[str, object]:
    return {name: getattr(run, name) for name in Invocation.__dataclass_fields__}


def test_opencode_without_ripgrep_on_the_jobs_path_cannot_run_and_says_what_to_install(
    tmp_path: Path,
) -> None:
    assert _missing_helpers(["claude", "copilot"], str(tmp_path)) == {}
    why = _missing_helpers(["opencode"], str(tmp_path))["opencode"]
    assert "opencode needs rg on PATH" in why and "apt-get install ripgrep" in why
    (tmp_path / "rg").write_text("#!/bin/sh\n")
    (tmp_path / "rg").chmod(0o755)
    assert _missing_helpers(["opencode"], str(tmp_path)) == {}
