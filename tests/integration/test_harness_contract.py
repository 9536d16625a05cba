"""A new agent CLI is one module on `contract.Harness` and one registry line: a throwaway
harness, defined here, runs a case end to end through `runner.run_and_grade` (skill staged in
its own folder, a fresh HOME, the credential proxy with a dummy key, its events parsed, the
checks graded) without any other file knowing it. Its "CLI" is a short Python program that
calls the proxy with the standard library, so the test needs no npm package.

Also: every registered harness keeps the contract (providers in the provider table, one skill
folder each, a pinned npm package)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.execute.harness import install, registry
from evolve_action.execute.harness.claude import ClaudeCode
from evolve_action.execute.harness.contract import CliSpec, Command, Harness, Invocation
from evolve_action.execute.harness.events import CliOutcome, json_lines
from evolve_action.execute.harness.forward import Upstream
from evolve_action.execute.harness.install import CliBinary
from evolve_action.execute.harness.proxy import CredentialProxy
from evolve_action.execute.harness.run import CliHarness
from evolve_action.execute.providers.registry import build_provider
from evolve_action.execute.sandbox.python import python_for_commands
from evolve_action.model.outcomes import Side, Status, ToolCall
from evolve_action.model.provider_table import PROVIDERS
from evolve_action.pipeline.runner import RunEnvironment, run_and_grade
from evolve_action.plan.planning import RunSpec
from tests.fakes.cli_agents import TASK, make_repo, suite_and_case
from tests.fakes.llm_server import FakeLLM, Request, text
from tests.levels import LEVELS, at_level

REAL_KEY = "sk-openai-real-0123456789abcdef"

# The whole "CLI": reads the staged skill, asks the model through the proxy, writes the
# files the case checks, and prints its events as JSON lines.
AGENT = r"""
import json, os, sys, urllib.request
prompt = sys.stdin.read()
skill = open(".scripted/skills/greeter/SKILL.md").read()
print(json.dumps({"tool": "Read", "input": {"file_path": "SKILL.md"}, "output": skill[:40]}))
body = {"model": sys.argv[1], "messages": [{"role": "user", "content": prompt}]}
request = urllib.request.Request(
    os.environ["SCRIPTED_URL"] + "/chat/completions", json.dumps(body).encode(),
    {"authorization": "Bearer " + os.environ["SCRIPTED_KEY"], "content-type": "application/json"},
)
answer = json.load(urllib.request.urlopen(request))["choices"][0]["message"]["content"]
open("out.txt", "w").write("made\n")
open("hello.txt", "w").write(answer + "\n")
print(json.dumps({"tool": "Write", "input": {"file_path": "hello.txt"}, "output": "ok"}))
print(json.dumps({"answer": answer, "keys": [k for k in os.environ if "KEY" in k]}))
"""


class Scripted(Harness):
    name = "scripted"
    cli = CliSpec("scripted", "@example/scripted", lambda *_: ("", "scripted"))
    providers = ("openai",)
    skills_dir = ".scripted/skills"
    home_dirs = (".scripted",)
    caps_turns = False

    def prepare_home(self, home: Path, run: Invocation) -> None:
        super().prepare_home(home, run)
        (home / ".scripted/settings.json").write_text(json.dumps({"model": run.model}))

    def command(self, run: Invocation) -> Command:
        env = {"SCRIPTED_URL": run.endpoint, "SCRIPTED_KEY": run.token}
        return Command([run.binary, "-I", "-c", AGENT, run.model], env, stdin=run.prompt)

    def parse(self, stdout: str, *, exit_code: int, stderr: str = "") -> CliOutcome:
        out = CliOutcome()
        for event in json_lines(stdout):
            if "tool" in event:
                args = json.dumps(event["input"])
                out.tool_calls.append(ToolCall(event["tool"], args, event["output"], False, ""))
            elif "answer" in event:
                out.final_text = f"{event['answer']} (keys: {event['keys']})"
        if not out.final_text:
            out.error = f"no answer (exit {exit_code}): {stderr[-300:]}"
        return out


def test_every_registered_harness_keeps_the_contract() -> None:
    folders = [h.skills_dir for h in registry.HARNESSES.values()]
    assert len(set(folders)) == len(folders)
    pinned = install.lock_packages()
    for harness in registry.HARNESSES.values():
        assert set(harness.providers) <= set(PROVIDERS), harness.name
        native, _ = harness.cli.native(*install.this_platform())
        # OpenCode's lock pins its platform builds only, not its loader package.
        assert {f"node_modules/{harness.cli.package}", native} & set(pinned), harness.name
        assert registry.HARNESSES[harness.name] is harness
    for provider in registry.providers():
        found = registry.for_provider(provider)
        own = [h for h in registry.HARNESSES.values() if h.providers[:1] == (provider,)]
        # Its vendor's own CLI when there is one (GitHub Copilot's models have only Copilot
        # CLI, whose own vendors come first).
        assert found is not None and (found in own or not own), provider
    assert install.clis() == {h.cli.name: h.cli for h in registry.HARNESSES.values()}


@pytest.mark.parametrize("level", LEVELS)
async def test_a_throwaway_harness_runs_a_case_through_the_contract_alone(
    level: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The one registry line, for this test only.
    monkeypatch.setattr(registry, "HARNESSES", {"claude": ClaudeCode(), "scripted": Scripted()})
    suite, case = suite_and_case(make_repo(tmp_path / "repo", {"evals.json": TASK}))
    model = "openai/gpt-5.4"

    def answer(request: Request) -> object:
        if request.body.get("response_format") or request.body.get("tools"):
            return text(json.dumps({"reason": "fine", "pass": True, "score": 1.0}))
        return text("Hello, Ada!")

    with FakeLLM(answer, api_key=REAL_KEY) as fake:  # type: ignore[arg-type]
        proxy = CredentialProxy({"openai": Upstream("openai", fake.openai_base_url, REAL_KEY)})
        judge = build_provider("openai", environ={}, api_key=REAL_KEY,
                               base_url=fake.openai_base_url)  # fmt: skip
        with proxy, at_level(level):
            python = python_for_commands()  # one within the reach of this level's user
            if python is None:
                pytest.skip("no Python interpreter within the confinement's reach")
            binary = CliBinary("scripted", Path(python), "1.0", "PATH")
            harness = CliHarness(proxy, {"scripted": binary})
            env = RunEnvironment(
                providers={"openai": judge}, judge_provider=judge, judge_model=model,
                harness=harness,
            )  # fmt: skip
            result = await run_and_grade(RunSpec(suite, case, model, Side.HEAD, 1), env)
        await judge.aclose()
        assert fake.requests, (result.error, result.transcript.notes)
        sent = fake.requests[0]

    assert result.status is Status.PASS, (result.error, [i.evidence for i in result.items])
    t = result.transcript
    assert [c.name for c in t.tool_calls] == ["Read", "Write"]
    assert "greeter" in t.tool_calls[0].result  # the skill was staged in its own folder
    assert t.final_text.startswith("Hello, Ada!")
    assert "SCRIPTED_KEY" in t.final_text and REAL_KEY not in t.final_text
    assert sent.headers["authorization"] == f"Bearer {REAL_KEY}"  # added by the proxy alone
    assert t.usage.calls == 1 and t.usage.cost_usd is not None  # counted by the proxy
    assert any(n.startswith("harness: scripted 1.0") for n in t.notes)
