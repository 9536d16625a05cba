"""The real Gemini CLI, launched with `gemini_launch`'s facts against the fake LLM server's
Gemini API (`tests/fakes/gemini_wire.py`), its events read by `gemini_events`: a skill
activated from `.gemini/skills`, a shell command, a file written, an answer; only the
placeholder key, in the CLI and at the fake; nothing written outside its home, workspace
and TMPDIR. It is a Node.js program: without `node` 20 or newer these tests skip.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from evolve_action.execute.harness.gemini import events as gemini_events
from evolve_action.execute.harness.gemini import launch as gemini_launch
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

MODEL = "gemini-2.5-flash"


@pytest.fixture(scope="module")
def script() -> Path:
    return require(*gemini_launch.entry())


@pytest.fixture(scope="module")
def node() -> str:
    found = require_tool("node", "Gemini CLI is a Node.js program")
    version = subprocess.run([found, "--version"], capture_output=True, text=True, check=False)
    if not gemini_launch.node_version_ok(version.stdout):
        pytest.skip(f"Gemini CLI needs Node.js {gemini_launch.MIN_NODE}+, not {version.stdout}")
    return found


def launch(
    fake: FakeLLM, node: str, script: Path, tmp_path: Path, trace: bool = False
) -> tuple[Ran, Place]:
    where = place(tmp_path, gemini_launch.SKILLS_DIR, gemini_launch.home_files())
    env = gemini_launch.environment(fake.gemini_base_url, PLACEHOLDER)
    argv = gemini_launch.command(node, str(script), model=MODEL)
    return run(argv, env, where, trace=trace), where


def activate(name: str) -> Reply:
    return Reply(calls=(Call("activate_skill", {"name": name}),))  # `name` is call()'s own


def test_gemini_activates_the_skill_runs_a_command_writes_a_file_and_answers(
    fake: FakeLLM, node: str, script: Path, tmp_path: Path
) -> None:
    fake.script = scripted(
        [
            activate("greeter"),
            call("run_shell_command", command=SHELL, description="make out.txt"),
            call("write_file", file_path="hello.txt", content="Hello, Ada!"),
            text("All done."),
        ]
    )
    ran, where = launch(fake, node, script, tmp_path)

    out = gemini_events.parse(ran.stdout, exit_code=ran.exit_code, stderr=ran.stderr)
    assert ran.exit_code == 0 and not out.error, (out.error, ran.stderr[-2000:])
    names = [c.name for c in out.tool_calls]
    assert names == ["activate_skill", "run_shell_command", "write_file"]
    assert "greeter" in out.tool_calls[0].arguments and not out.tool_calls[0].is_error
    assert ".gemini/skills/greeter" in out.tool_calls[0].result
    assert out.tool_calls[1].result.strip() == "made" and not out.tool_calls[1].is_error
    assert out.final_text == "All done." and len(fake.requests) == 4
    assert out.usage is not None and out.usage.output_tokens > 0
    assert out.usage.cache_read_tokens > 0  # the fake's implicit cache, as Gemini reports it
    assert (where.workspace / "hello.txt").read_text() == "Hello, Ada!"
    assert (where.workspace / "out.txt").read_text() == "made\n"
    assert all(r.stream and r.model == MODEL for r in fake.requests)
    # The skill's instructions reached the model with the activation's answer.
    assert "hello.txt" in fake.requests[1].raw.decode()


def test_gemini_sees_only_the_placeholder_key_and_writes_only_its_own_places(
    fake: FakeLLM, node: str, script: Path, tmp_path: Path
) -> None:
    fake.script = scripted(
        [
            activate("greeter"),
            call("run_shell_command", command=ENV_PROBE, description="show the environment"),
            text("Here it is."),
        ]
    )
    ran, where = launch(fake, node, script, tmp_path, trace=True)

    out = gemini_events.parse(ran.stdout, exit_code=ran.exit_code, stderr=ran.stderr)
    probe = next(c for c in out.tool_calls if "probed" in c.result)
    secrets = list(REAL.values())
    assert not [s for s in secrets if s in probe.result or s in ran.stdout]
    assert not [v for v in ran.env.values() if any(s in v for s in secrets)]
    assert not [k for k in ran.env if k in REAL and k != "GEMINI_API_KEY"]
    assert ran.env["GEMINI_API_KEY"] == PLACEHOLDER  # the only key it holds
    for request in fake.requests:
        assert request.headers.get("x-goog-api-key") == PLACEHOLDER
        assert not [s for s in secrets if s in request.raw.decode("utf-8", "replace")]
    assert ran.outside == (), f"gemini wrote outside {where.root}: {ran.outside}"
    port = fake.url.rsplit(":", 1)[1]
    assert ran.connected == (f"127.0.0.1:{port}",), ran.connected  # the fake, nothing else


def test_a_refused_key_is_an_auth_error_and_its_report_stays_in_tmpdir(
    fake: FakeLLM, node: str, script: Path, tmp_path: Path
) -> None:
    fake.script = lambda request: Fault(401, message="API key not valid")
    ran, where = launch(fake, node, script, tmp_path, trace=True)

    out = gemini_events.parse(ran.stdout, exit_code=ran.exit_code, stderr=ran.stderr)
    assert ran.exit_code != 0
    assert out.error_kind is ErrorKind.AUTH and "API key not valid" in out.error, out.error
    assert list(where.tmp.glob("gemini-client-error-*.json"))  # its error report
    assert ran.outside == (), f"gemini wrote outside {where.root}: {ran.outside}"


def test_gemini_lists_the_skills_of_its_folders_and_no_others(
    fake: FakeLLM, node: str, script: Path, tmp_path: Path
) -> None:
    where = place(tmp_path, gemini_launch.SKILLS_DIR, gemini_launch.home_files())
    staged = stage_everywhere(where.workspace)
    env = gemini_launch.environment(fake.gemini_base_url, PLACEHOLDER)
    run(gemini_launch.command(node, str(script), model=MODEL), env, where)

    listed = folders_listed(staged, fake.requests[0].raw.decode())
    assert sorted(listed) == sorted([gemini_launch.SKILLS_DIR, *gemini_launch.ALSO_READS])
