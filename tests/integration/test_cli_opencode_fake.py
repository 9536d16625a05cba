"""The real OpenCode, launched with `opencode_launch`'s facts against the fake LLM server, its
events read by `opencode_events`: a skill loaded from `.opencode/skills`, a shell command, a
file written, an answer, on Anthropic and OpenAI models; only the placeholder key, in the
CLI and at the fake; nothing written outside its home, workspace and TMPDIR. Its skill tool
needs `rg` (ripgrep): without it these tests skip.

Its start-up question to the npm registry is sent to the fake (which refuses it): these
tests use no network but the loopback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.execute.harness.install import this_platform
from evolve_action.execute.harness.opencode import events as opencode_events
from evolve_action.execute.harness.opencode import launch as opencode_launch
from evolve_action.model.outcomes import ErrorKind
from tests.fakes.cli_runs import (
    ENV_PROBE,
    PLACEHOLDER,
    REAL,
    SHELL,
    Place,
    Ran,
    folders_listed,
    place,
    require,
    require_tool,
    run,
    scripted,
    stage_everywhere,
)
from tests.fakes.llm_server import Call, FakeLLM, Fault, Reply, call, text

MODELS = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5.4"}


@pytest.fixture(scope="module")
def binary() -> Path:
    require_tool("rg", "OpenCode's skill tool runs ripgrep (apt-get install ripgrep)")
    return require(*opencode_launch.native(*this_platform()))


def launch(
    fake: FakeLLM, binary: Path, tmp_path: Path, provider: str, trace: bool = False
) -> tuple[Ran, Place]:
    where = place(tmp_path, opencode_launch.SKILLS_DIR, opencode_launch.home_files())
    base = fake.anthropic_base_url if provider == "anthropic" else fake.openai_base_url
    env = opencode_launch.environment(provider, base, PLACEHOLDER, npm_registry=f"{fake.url}/npm/")
    argv = opencode_launch.command(str(binary), provider=provider, model=MODELS[provider])
    return run(argv, env, where, trace=trace), where


def load(name: str) -> Reply:
    return Reply(calls=(Call("skill", {"name": name}),))  # `name` is call()'s own


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_opencode_loads_the_skill_runs_a_command_writes_a_file_and_answers(
    provider: str, fake: FakeLLM, binary: Path, tmp_path: Path
) -> None:
    hello = str(tmp_path / "workspace" / "hello.txt")
    # With GPT models its file tool is `apply_patch`, so the shell writes.
    write = (
        call("write", filePath=hello, content="Hello, Ada!")
        if provider == "anthropic"
        else call("bash", command=f"printf 'Hello, Ada!' > {hello}", description="write")
    )
    make = call("bash", command=SHELL, description="make out.txt")
    fake.script = scripted([load("greeter"), make, write, text("All done.")])
    ran, where = launch(fake, binary, tmp_path, provider)

    out = opencode_events.parse(ran.stdout, exit_code=ran.exit_code, stderr=ran.stderr)
    assert ran.exit_code == 0 and not out.error, (out.error, ran.stderr[-2000:])
    names = [c.name for c in out.tool_calls]
    assert names == ["skill", "bash", "write" if provider == "anthropic" else "bash"]
    assert "greeter" in out.tool_calls[0].arguments and not out.tool_calls[0].is_error
    assert "hello.txt" in out.tool_calls[0].result  # the skill's text, as the tool gave it
    assert out.tool_calls[1].result == "made\n" and not out.tool_calls[1].is_error
    assert out.final_text == "All done."
    # One step per model call: no title request (`--title`), nothing but the model asked.
    assert out.turns == 4 == len(fake.requests)
    assert all(r.model == MODELS[provider] for r in fake.requests)
    assert out.usage is not None and out.usage.calls == 4 and out.usage.output_tokens > 0
    assert (where.workspace / "hello.txt").read_text() == "Hello, Ada!"
    assert (where.workspace / "out.txt").read_text() == "made\n"


def test_opencode_sees_only_the_placeholder_key_and_writes_only_its_own_places(
    fake: FakeLLM, binary: Path, tmp_path: Path
) -> None:
    fake.script = scripted(
        [
            load("greeter"),
            call("bash", command=ENV_PROBE, description="show the environment"),
            text("Here it is."),
        ]
    )
    ran, where = launch(fake, binary, tmp_path, "anthropic", trace=True)

    out = opencode_events.parse(ran.stdout, exit_code=ran.exit_code, stderr=ran.stderr)
    probe = next(c for c in out.tool_calls if "probed" in c.result)
    secrets = list(REAL.values())
    assert not [s for s in secrets if s in probe.result or s in ran.stdout]
    assert not [v for v in ran.env.values() if any(s in v for s in secrets)]
    assert not [k for k in ran.env if k in REAL]
    # Its commands inherit its environment: the placeholder is all they could take.
    assert PLACEHOLDER in probe.result
    for request in fake.requests:
        assert request.headers.get("x-api-key") == PLACEHOLDER
        assert not [s for s in secrets if s in request.raw.decode("utf-8", "replace")]
    assert ran.outside == (), f"opencode wrote outside {where.root}: {ran.outside}"
    port = fake.url.rsplit(":", 1)[1]
    assert ran.connected == (f"127.0.0.1:{port}",), ran.connected  # the fake, nothing else


def test_a_refused_key_is_an_auth_error_of_the_run(
    fake: FakeLLM, binary: Path, tmp_path: Path
) -> None:
    fake.script = lambda request: Fault(401, message="invalid x-api-key")
    ran, _ = launch(fake, binary, tmp_path, "anthropic")

    out = opencode_events.parse(ran.stdout, exit_code=ran.exit_code, stderr=ran.stderr)
    assert ran.exit_code != 0
    assert out.error_kind is ErrorKind.AUTH and "invalid x-api-key" in out.error, out.error


def test_opencode_lists_the_skills_of_its_folders_and_no_others(
    fake: FakeLLM, binary: Path, tmp_path: Path
) -> None:
    where = place(tmp_path, opencode_launch.SKILLS_DIR, opencode_launch.home_files())
    staged = stage_everywhere(where.workspace)
    base = fake.anthropic_base_url
    env = opencode_launch.environment("anthropic", base, PLACEHOLDER, npm_registry=fake.url)
    argv = opencode_launch.command(str(binary), provider="anthropic", model=MODELS["anthropic"])
    run(argv, env, where)

    listed = folders_listed(staged, fake.requests[0].raw.decode())
    assert sorted(listed) == sorted([opencode_launch.SKILLS_DIR, *opencode_launch.ALSO_READS])
