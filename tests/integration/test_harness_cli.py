"""`harness: cli` with the real Claude Code and Codex binaries, against the fake LLM server.

Each test runs one planned run through `runner.run_and_grade`, as the pipeline does: a workspace,
the CLI launched by the confinement through the relay, every model call through the
credential proxy to the fake, then the checks. The CLIs are the pinned releases `./dev test`
installs into `.cache/clis`; without them these tests skip and say why.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from evolve_action.execute.harness.run import CliHarness, open_cli_harness
from evolve_action.execute.providers.faults import RetryPolicy
from evolve_action.execute.providers.registry import build_provider
from evolve_action.model.evals import Case, Suite
from evolve_action.model.outcomes import ErrorKind, RunResult, Side, Status
from evolve_action.pipeline.runner import RunEnvironment, run_and_grade
from evolve_action.plan.planning import RunSpec
from tests.conftest import reachable_place
from tests.fakes.cli_agents import (
    MODELS,
    TASK,
    agent,
    bash,
    harness_environ,
    load_skill,
    make_repo,
    say,
    suite_and_case,
    write,
)
from tests.fakes.llm_server import FakeLLM, Request, Stall, keyless
from tests.levels import at_level

REAL = {"anthropic": "sk-ant-real-0123456789abcdef", "openai": "sk-openai-real-fedcba9876543210"}
CLIS = ["claude", "codex"]


fake = pytest.fixture(keyless, name="fake")  # the real CLIs send no real key


@pytest.fixture
def environ(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    # The real keys sit in our own process's environment too, as in a workflow's job.
    for provider, key in REAL.items():
        monkeypatch.setenv(f"{provider.upper()}_API_KEY", key)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_job_token_never_in_the_sandbox")
    return harness_environ(fake, REAL)


Run = Callable[..., Any]


@pytest.fixture
async def run(environ: dict[str, str], level: str) -> AsyncIterator[Run]:
    async def go(
        suite: Suite,
        case: Case,
        cli: str,
        *,
        env_vars: dict[str, str] | None = None,
        record_dir: Path | None = None,
        replay_dir: Path | None = None,
        **kw: Any,
    ) -> RunResult:
        model = MODELS[cli]
        provider_id = model.split("/", 1)[0]
        used = {**environ, **(env_vars or {})}
        policy = RetryPolicy(max_retries=1, base_delay_s=0.01)
        provider = build_provider(provider_id, environ=used, policy=policy)
        with at_level(level):
            result = await _once(suite, case, model, provider, used, record_dir, replay_dir, kw)
        await provider.aclose()
        return result

    yield go


async def _once(
    suite: Suite,
    case: Case,
    model: str,
    provider: Any,
    used: dict[str, str],
    record_dir: Path | None,
    replay_dir: Path | None,
    kw: dict[str, Any],
) -> RunResult:
    provider_id = model.split("/", 1)[0]
    async with open_cli_harness(
        [model],
        keys={},
        environ=used,
        cache_dir=None,
        limiters={},
        record_dir=record_dir,
        replay_dir=replay_dir,
    ) as harness:
        env = RunEnvironment(
            providers={provider_id: provider},
            judge_provider=provider,
            judge_model=model,
            harness=harness,
            **kw,
        )
        return await run_and_grade(RunSpec(suite, case, model, Side.HEAD, 1), env)


@pytest.mark.parametrize("cli", CLIS)
async def test_scripted_tool_calls_reach_the_fake_and_the_run_record_is_complete(
    cli: str, fake: FakeLLM, run: Run, tmp_path: Path
) -> None:
    suite, case = suite_and_case(make_repo(tmp_path / "repo", {"evals.json": TASK}))
    fake.script = agent(
        [
            load_skill("greeter"),
            bash("echo made > out.txt && cat out.txt"),
            write("hello.txt", "Hello, Ada!"),
            say("All done."),
        ]
    )
    result = await run(suite, case, cli)

    assert result.status is Status.PASS, (result.error, [i.evidence for i in result.items])
    t = result.transcript
    assert t.final_text == "All done."
    shell = "Bash" if cli == "claude" else "command_execution"
    names = [c.name for c in t.tool_calls]
    assert names == (["Skill", "Bash", "Write"] if cli == "claude" else [shell] * 3)
    assert "greeter" in t.tool_calls[0].arguments
    made = next(c for c in t.tool_calls if "out.txt" in c.arguments)
    assert "made" in made.result and not made.is_error
    assert t.turns == 4 == len(fake.requests)
    assert t.usage.calls == 4 and t.usage.total_tokens > 1000
    assert t.usage.cost_usd is not None and t.usage.cost_usd > 0
    assert t.duration_s > 0 and t.stop_reason == "end_turn"
    assert sorted(t.changed_files) == ["hello.txt", "out.txt"]
    assert any(n.startswith(f"harness: {cli} ") for n in t.notes)
    agent_ua = "claude-cli/2.1.330" if cli == "claude" else "codex_exec/0.169.0"
    assert all(agent_ua in r.headers.get("user-agent", "") for r in fake.requests)
    assert all(r.stream for r in fake.requests)


LEAK_PROBE = (
    "env; echo ---; tr '\\0' '\\n' < /proc/self/environ; echo ---; "
    "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done 2>/dev/null; echo probed"
)


@pytest.mark.parametrize("cli", CLIS)
async def test_no_real_key_reaches_the_cli_or_anything_it_runs(
    cli: str, fake: FakeLLM, run: Run, tmp_path: Path
) -> None:
    body = f"Before anything else, run this and show its output:\n\n    {LEAK_PROBE}\n"
    repo = make_repo(tmp_path / "repo", {"evals.json": TASK}, body=body)
    suite, case = suite_and_case(repo)
    fake.script = agent([load_skill("greeter"), bash(LEAK_PROBE), say("Here is the output.")])
    result = await run(suite, case, cli)

    probe = next(c for c in result.transcript.tool_calls if "env; echo" in c.arguments)
    assert "evolve-dummy-" in probe.result  # the CLI's own key: a dummy the proxy knows
    secrets = [*REAL.values(), "ghs_job_token_never_in_the_sandbox"]
    for request in fake.requests:
        sent = request.raw.decode("utf-8", errors="replace")
        assert not [s for s in secrets if s in sent], f"request {request.index} leaked a secret"
        auth = request.headers.get("x-api-key") or request.headers["authorization"]
        assert auth in (REAL["anthropic"], f"Bearer {REAL['openai']}")  # the proxy's doing
    assert any("evolve-dummy-" in r.raw.decode("utf-8", "replace") for r in fake.requests)
    assert not [s for s in secrets if s in probe.result]


TRIGGERS = {
    "triggers.json": {"triggers": [{"query": "Say hello to Ada.", "should_trigger": True}]},
    "evals.json": TASK,
}


@pytest.mark.parametrize("cli", CLIS)
async def test_a_trigger_fires_on_both_clis(
    cli: str, fake: FakeLLM, run: Run, tmp_path: Path
) -> None:
    suite, case = suite_and_case(make_repo(tmp_path / "repo", TRIGGERS), "triggers.json")
    fake.script = agent([load_skill("greeter"), say("Hello, Ada!")])
    result = await run(suite, case, cli)
    assert result.status is Status.PASS, [i.evidence for i in result.items]
    assert result.items[0].evidence.startswith("fired:")


@pytest.mark.parametrize("cli", CLIS)
async def test_a_refused_key_is_an_auth_error_not_a_failure(
    cli: str, fake: FakeLLM, run: Run, tmp_path: Path
) -> None:
    fake.api_key = "sk-the-only-key-the-provider-accepts"
    suite, case = suite_and_case(make_repo(tmp_path / "repo", {"evals.json": TASK}))
    fake.script = agent([say("unreachable")])
    result = await run(suite, case, cli)
    assert result.status is Status.ERROR and result.error_kind is ErrorKind.AUTH, result.error
    assert "HTTP 401" in result.error
    assert result.items == []


@pytest.mark.parametrize("cli", CLIS)
async def test_a_recorded_cli_run_replays_without_the_provider(
    cli: str, fake: FakeLLM, run: Run, tmp_path: Path
) -> None:
    suite, case = suite_and_case(make_repo(tmp_path / "repo", {"evals.json": TASK}))
    fake.script = agent(
        [bash("echo made > out.txt"), write("hello.txt", "Hello, Ada!"), say("Recorded.")]
    )
    cassettes = tmp_path / "cassettes"
    recorded = await run(suite, case, cli, record_dir=cassettes)
    assert recorded.status is Status.PASS, recorded.error
    assert list(cassettes.glob("cli-*.json"))
    calls = len(fake.requests)
    # The judge's SDK cassette is not in play: this case has no judge items.
    replayed = await run(suite, case, cli, replay_dir=cassettes)
    assert replayed.status is Status.PASS, replayed.error
    assert len(fake.requests) == calls  # nothing reached the provider
    assert replayed.transcript.final_text == "Recorded."
    assert replayed.transcript.usage.total_tokens == recorded.transcript.usage.total_tokens
    other = dict(TASK["evals"][0], prompt="Greet Grace.")  # a changed eval misses
    suite2, case2 = suite_and_case(
        make_repo(tmp_path / "repo2", {"evals.json": {"evals": [other]}})
    )
    missed = await run(suite2, case2, cli, replay_dir=cassettes)
    assert missed.status is Status.ERROR and missed.error_kind is ErrorKind.REPLAY_MISS


async def test_codex_stops_at_the_turn_cap_and_is_graded(
    fake: FakeLLM, run: Run, tmp_path: Path
) -> None:
    suite, case = suite_and_case(make_repo(tmp_path / "repo", {"evals.json": TASK}))
    fake.script = agent([bash(f"echo {n} >> out.txt") for n in range(10)])
    result = await run(suite, case, "codex", max_turns=3)
    assert result.status is Status.FAIL  # graded: out.txt exists, hello.txt does not
    assert result.transcript.stop_reason == "max_turns"
    assert len(fake.requests) == 3 and result.transcript.turns == 3
    assert [i.passed for i in result.items] == [True, False]


async def test_a_run_past_its_timeout_is_killed_and_reported_as_a_timeout(
    fake: FakeLLM, run: Run, tmp_path: Path
) -> None:
    slow = dict(TASK["evals"][0], timeout_seconds=3)
    suite, case = suite_and_case(make_repo(tmp_path / "repo", {"evals.json": {"evals": [slow]}}))

    def stalled(request: Request) -> Any:
        return Stall(60)

    fake.script = stalled
    result = await run(suite, case, "claude")
    assert result.status is Status.ERROR and result.error_kind is ErrorKind.TIMEOUT


@pytest.fixture
def bindir() -> Iterator[Path]:
    """A directory the confined CLI can start programs from at every level: not under /tmp
    (bubblewrap makes its own; the user level closes it) nor pytest's (its owner's alone)."""
    with reachable_place("evolve-cli-bin-", 0o755) as path:
        yield path


def fake_cli(bindir: Path, name: str, script: str) -> str:
    """`bindir` holding an executable `name` that runs `script`, for PATH."""
    (bindir / name).write_text(f"#!/bin/sh\n{script}\n")
    (bindir / name).chmod(0o755)
    return f"{bindir}:/usr/bin:/bin"


async def test_a_cli_on_path_wins_and_empty_output_is_an_error(
    fake: FakeLLM, run: Run, tmp_path: Path, bindir: Path
) -> None:
    suite, case = suite_and_case(make_repo(tmp_path / "repo", {"evals.json": TASK}))
    crash = '[ "$1" = --version ] && echo "9.9.9 (fake)" && exit 0; echo crashed >&2; exit 3'
    path = fake_cli(bindir, "claude", crash)
    result = await run(suite, case, "claude", env_vars={"PATH": path})
    assert result.status is Status.ERROR and result.error_kind is ErrorKind.HARNESS
    assert "claude: empty CLI output" in result.error
    assert result.items == [] and fake.requests == []


async def test_no_cli_and_no_way_to_install_it_says_so(
    fake: FakeLLM, run: Run, tmp_path: Path
) -> None:
    suite, case = suite_and_case(make_repo(tmp_path / "repo", {"evals.json": TASK}))
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    result = await run(
        suite,
        case,
        "claude",
        env_vars={
            "PATH": str(empty),  # neither claude nor npm
            "EVOLVE_CLI_DIR": str(tmp_path / "clis"),
            "npm_config_registry": "http://127.0.0.1:9",  # the discard port: refused
        },
    )
    assert result.status is Status.ERROR and result.error_kind is ErrorKind.HARNESS
    assert "claude is not on PATH and could not be installed" in result.error
    assert "cannot download http://127.0.0.1:9/" in result.error


def test_the_harness_fingerprint_names_the_clis(tmp_path: Path) -> None:
    from evolve_action.execute.harness.install import CliBinary
    from evolve_action.execute.harness.proxy import CredentialProxy

    harness = CliHarness(
        CredentialProxy({}),
        {"claude": CliBinary("claude", tmp_path / "claude", "2.1.330", "PATH")},
    )
    assert harness.describe() == "cli:claude 2.1.330"
    assert harness.skills_dir("openai/gpt-5.4") == ".agents/skills"
    assert harness.skills_dir("anthropic/claude-sonnet-4-6") == ".claude/skills"


async def test_no_interpreter_for_the_relay_is_a_harness_error_before_the_cli_starts(
    fake: FakeLLM, run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the confinement can start no Python (ours hidden, no system one), every CLI run
    says what to do, and no model request is made."""
    from evolve_action.execute.sandbox import python as sandbox_python

    monkeypatch.setattr(sandbox_python, "_startable", lambda level, program, needs: False)
    suite, case = suite_and_case(make_repo(tmp_path / "repo", {"evals.json": TASK}))
    result = await run(suite, case, "claude")
    assert result.status is Status.ERROR and result.error_kind is ErrorKind.HARNESS
    assert "no Python interpreter is within the confinement's reach" in result.error
    assert "install python3 in /usr/bin" in result.error
    assert fake.requests == []
