"""The real GitHub Copilot CLI, launched with `copilot_launch`'s facts against the fake LLM
server, its events read by `copilot_events`: a skill loaded from `.github/skills`, a shell
command, a file written, an answer; only the placeholder key, in the CLI and at the fake;
nothing written outside its home, workspace and TMPDIR.

Its runtime (about 235 MB) is unpacked once per test session into a package cache that every
run then reads (`COPILOT_PKG_CACHE_HOME`), as a job would do once before its runs.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from evolve_action.execute.harness.copilot import events as copilot_events
from evolve_action.execute.harness.copilot import launch as copilot_launch
from evolve_action.execute.harness.install import this_platform
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
    run,
    scripted,
    stage_everywhere,
)
from tests.fakes.llm_server import Call, FakeLLM, Fault, Reply, call, text

MODELS = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5.4"}


@pytest.fixture(scope="module")
def binary() -> Path:
    return require(*copilot_launch.native(*this_platform()))


@pytest.fixture(scope="module")
def package_cache(binary: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """Its runtime unpacked once, by a start that needs no model."""
    root = tmp_path_factory.mktemp("copilot-pkg")
    env = {"HOME": str(root / "home"), "PATH": "/usr/bin:/bin", "COPILOT_PKG_CACHE_HOME": str(root)}
    subprocess.run(
        [str(binary), "--version"], env=env, capture_output=True, timeout=300, check=True
    )
    assert (root / "pkg").is_dir(), "copilot --version did not unpack its runtime"
    return str(root)


def launch(
    fake: FakeLLM, binary: Path, cache: str, tmp_path: Path, provider: str, trace: bool = False
) -> tuple[Ran, Place]:
    where = place(tmp_path, copilot_launch.SKILLS_DIR, copilot_launch.home_files())
    base = fake.anthropic_base_url if provider == "anthropic" else fake.openai_base_url
    env = copilot_launch.environment(
        provider, base, PLACEHOLDER, model=MODELS[provider], package_cache=cache
    )
    return run(copilot_launch.command(str(binary)), env, where, trace=trace), where


def session(write: Reply) -> list[Reply]:
    return [
        call("skill", skill="greeter"),
        call("bash", command=SHELL, description="make out.txt"),
        write,
        text("All done."),
    ]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_copilot_loads_the_skill_runs_a_command_writes_a_file_and_answers(
    provider: str, fake: FakeLLM, binary: Path, package_cache: str, tmp_path: Path
) -> None:
    hello = str(tmp_path / "workspace" / "hello.txt")
    # With GPT models its file tools are `apply_patch` (free-form), so the shell writes.
    write = (
        call("create", path=hello, file_text="Hello, Ada!")
        if provider == "anthropic"
        else call("bash", command=f"printf 'Hello, Ada!' > {hello}", description="write")
    )
    fake.script = scripted(session(write))
    ran, where = launch(fake, binary, package_cache, tmp_path, provider)

    out = copilot_events.parse(ran.stdout, exit_code=ran.exit_code, stderr=ran.stderr)
    assert ran.exit_code == 0 and not out.error, (out.error, ran.stderr[-2000:])
    names = [c.name for c in out.tool_calls]
    assert names == ["skill", "bash", "create" if provider == "anthropic" else "bash"]
    assert "greeter" in out.tool_calls[0].arguments
    assert "loaded" in out.tool_calls[0].result and not out.tool_calls[0].is_error
    assert "made" in out.tool_calls[1].result and not out.tool_calls[1].is_error
    assert out.final_text == "All done." and out.turns == 4 == len(fake.requests)
    assert any("greeter" in n for n in out.notes)  # it found our skill in .github/skills
    assert (where.workspace / "hello.txt").read_text() == "Hello, Ada!"
    assert (where.workspace / "out.txt").read_text() == "made\n"
    path = "/v1/messages" if provider == "anthropic" else "/v1/chat/completions"
    assert all(r.path == path and r.model == MODELS[provider] for r in fake.requests)
    # The skill's text reached the model after the skill tool ran.
    assert "hello.txt" in fake.requests[1].raw.decode()


def test_copilot_sees_only_the_placeholder_key_and_writes_only_its_own_places(
    fake: FakeLLM, binary: Path, package_cache: str, tmp_path: Path
) -> None:
    fake.script = scripted(
        [
            Reply(calls=(Call("skill", {"skill": "greeter"}),)),
            call("bash", command=ENV_PROBE, description="show the environment"),
            text("Here it is."),
        ]
    )
    ran, where = launch(fake, binary, package_cache, tmp_path, "anthropic", trace=True)

    out = copilot_events.parse(ran.stdout, exit_code=ran.exit_code, stderr=ran.stderr)
    probe = next(c for c in out.tool_calls if "probed" in c.result)
    secrets = list(REAL.values())
    assert not [s for s in secrets if s in probe.result or s in ran.stdout]
    assert not [v for v in ran.env.values() if any(s in v for s in secrets)]
    assert not [k for k in ran.env if k in REAL]  # none of our keys' variables at all
    assert "COPILOT_MODEL=claude-sonnet-4-6" in probe.result  # its commands' environment
    # Its commands do not get the provider's variables, nor so the placeholder key.
    assert PLACEHOLDER not in probe.result and "COPILOT_PROVIDER_BASE_URL" not in probe.result
    for request in fake.requests:
        assert request.headers.get("x-api-key") == PLACEHOLDER
        assert not [s for s in secrets if s in request.raw.decode("utf-8", "replace")]
    # Outside its place it only marks the shared runtime as in use (`inuse.<pid>.lock`); it
    # also runs when that cannot be written (a read-only copy).
    others = [p for p in ran.outside if not Path(p).name.startswith("inuse.")]
    assert others == [], f"copilot wrote outside {where.root}: {others}"
    assert all(p.startswith(package_cache + "/pkg/") for p in ran.outside), ran.outside
    port = fake.url.rsplit(":", 1)[1]
    assert ran.connected == (f"127.0.0.1:{port}",), ran.connected  # the fake, nothing else


def test_a_refused_key_is_an_auth_error_of_the_run(
    fake: FakeLLM, binary: Path, package_cache: str, tmp_path: Path
) -> None:
    fake.script = lambda request: Fault(401, message="invalid x-api-key")
    ran, _ = launch(fake, binary, package_cache, tmp_path, "anthropic")

    out = copilot_events.parse(ran.stdout, exit_code=ran.exit_code, stderr=ran.stderr)
    assert ran.exit_code != 0
    assert out.error_kind is ErrorKind.AUTH and "401" in out.error, out.error


def test_copilot_lists_the_skills_of_its_folders_and_no_others(
    fake: FakeLLM, binary: Path, package_cache: str, tmp_path: Path
) -> None:
    where = place(tmp_path, copilot_launch.SKILLS_DIR, copilot_launch.home_files())
    staged = stage_everywhere(where.workspace)
    env = copilot_launch.environment(
        "anthropic", fake.anthropic_base_url, PLACEHOLDER, model="claude-sonnet-4-6",
        package_cache=package_cache,
    )  # fmt: skip
    run(copilot_launch.command(str(binary)), env, where)

    listed = folders_listed(staged, fake.requests[0].raw.decode())
    assert sorted(listed) == sorted([copilot_launch.SKILLS_DIR, *copilot_launch.ALSO_READS])
