"""`harness: cli`: one eval run through a real agent CLI (`registry.HARNESSES`), as a
`Transcript`.

`open_cli_harness` (one per job) finds or installs the CLIs the chosen models need, copies
them where the confinement can start them when it could not (`stage`), and starts the
credential proxy with the real keys. `CliHarness.run` then runs one case: it opens a proxy
session (a dummy key), has the confinement run the relay, which runs the CLI in the workspace
with the prompt on stdin, reads the CLI's event stream and returns what the SDK loop returns.
Everything after (checks, judge, verdicts, results, comment) cannot tell the harnesses apart.

Each run's CLI state (`~/.claude`, `~/.codex`) is in the workspace's own HOME, which the
confinement creates and the workspace's removal deletes: nothing is shared between runs but
what a CLI prepares once per job (`Harness.prepare_job`: Copilot CLI's runtime), which the
runs may read and not change (`stage.shared`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import shutil
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evolve_action.execute.agent import AgentError
from evolve_action.execute.harness import registry, relay, stage
from evolve_action.execute.harness.available import NO_RELAY_PYTHON, binaries
from evolve_action.execute.harness.available import machine_config as machine_config
from evolve_action.execute.harness.available import missing_helpers as _missing_helpers
from evolve_action.execute.harness.cassette import CliCassettes
from evolve_action.execute.harness.contract import Invocation
from evolve_action.execute.harness.events import CliOutcome
from evolve_action.execute.harness.forward import Upstream
from evolve_action.execute.harness.install import CliBinary
from evolve_action.execute.harness.proxy import CredentialProxy, Session
from evolve_action.execute.harness.relay import PORT_MARK
from evolve_action.execute.mcp.bridge import bridged
from evolve_action.execute.mcp.servers import launches_for_run
from evolve_action.execute.providers import catalog
from evolve_action.execute.providers.faults import RetryPolicy, positive_env, tuned_policy
from evolve_action.execute.providers.limiter import AdaptiveLimiter
from evolve_action.execute.providers.registry import credentials
from evolve_action.execute.sandbox.confine import (
    DEFAULT_PATH,
    HOME_DIR,
    TMP_DIR,
    Confinement,
)
from evolve_action.execute.sandbox.python import python_for_commands
from evolve_action.execute.skill_install import SKILLS_DIR
from evolve_action.model.evals import Case, CaseKind, split_model
from evolve_action.model.outcomes import CommandResult, ErrorKind, Transcript
from evolve_action.model.provider import ProviderError
from evolve_action.model.provider_table import PROVIDERS
from evolve_action.plan.fingerprints import case_digest, tree_digest
from evolve_action.plan.planning import RunSpec

log = logging.getLogger(__name__)

SOCKET = f"{TMP_DIR}/evolve-proxy.sock"
OUTPUT_CAP = 32 << 20  # evolve keeps up to 32 MiB of a CLI's stdout


def _error(kind: ErrorKind, message: str, transcript: Transcript, spec: RunSpec) -> AgentError:
    """An error run, as the SDK loop reports one: `transcript` keeps what the CLI did."""
    provider, _ = split_model(spec.model)
    cause = ProviderError(kind, message, provider=provider)
    return AgentError(cause, transcript, label=spec.case.id)


@dataclass
class CliHarness:
    proxy: CredentialProxy
    binaries: dict[str, CliBinary]
    unavailable: dict[str, str] = field(default_factory=dict)  # CLI → why it cannot run
    path: str = DEFAULT_PATH  # the job's PATH, which the CLI's own commands get too
    agent: str = ""  # the CLI the `agent` input chose; "" for each model's vendor's own
    # Per CLI, the variables pointing its runs at what was prepared once for the job.
    shared: dict[str, dict[str, str]] = field(default_factory=dict)

    def describe(self) -> str:
        """The harness in a run's fingerprint: a new CLI version is new work."""
        versions = sorted(f"{b.name} {b.version}" for b in self.binaries.values())
        return "cli:" + ",".join(versions)

    def skills_dir(self, model: str) -> str:
        """Where the CLI for `model` looks for skills in its working directory."""
        harness = registry.for_provider(split_model(model)[0], self.agent)
        return harness.skills_dir if harness else SKILLS_DIR

    async def run(
        self,
        spec: RunSpec,
        workspace: Path,
        *,
        max_turns: int,
        timeout_s: float,
        network: bool,
    ) -> Transcript:
        """Run `spec.case` with the CLI for its model, within `max_turns` and `timeout_s`.

        Raises `AgentError` (as `agent.run_agent` does) when nothing gradable came out."""
        provider, bare = split_model(spec.model)
        harness = registry.for_provider(provider, self.agent)
        if harness is None:
            why = registry.cannot_run(provider, self.agent)
            raise _error(ErrorKind.HARNESS, why, Transcript(), spec)
        name = harness.name
        if spec.case.follow_ups and not harness.multi_turn:
            # Said, never flattened into one prompt the CLI answers once.
            raise _error(ErrorKind.HARNESS, _ONE_TURN.format(cli=name), Transcript(), spec)
        binary = self.binaries.get(name)
        if binary is None:
            why = self.unavailable.get(name, f"{name} is not available")
            raise _error(ErrorKind.HARNESS, why, Transcript(), spec)
        cap = None if harness.caps_turns else max_turns
        session = self.proxy.open(provider, _identity(spec, binary), max_requests=cap)
        try:
            self.proxy.listen_unix(session, workspace / SOCKET)
            confinement = Confinement(workspace, network=network, output_cap=OUTPUT_CAP)
            sandboxed = await asyncio.to_thread(lambda: confinement.sandboxed)
            invocation = Invocation(
                binary=str(binary.path), provider=provider, model=bare,
                prompt=_prompt(spec.case), max_turns=max_turns,
                trigger=spec.case.kind is CaseKind.TRIGGER, sandboxed=sandboxed,
                base_url=f"http://127.0.0.1:{PORT_MARK}", token=session.token,
                system=spec.case.system or None, helpers=self._helpers(harness.needs_on_path),
                mcp=await launches_for_run(spec.case.mcp_servers, confinement, label=spec.case.id),
            )  # fmt: skip
            harness.prepare_home(workspace / HOME_DIR, invocation)
            command = harness.command(invocation)
            extra = {**harness.env, **self.shared.get(name, {}), "PATH": self._path(binary)}
            with bridged(invocation.mcp, workspace, TMP_DIR) as forwards:
                argv = [*_relay(command.env), *forwards, "--", *command.argv]
                done = await confinement.run(
                    argv, timeout_s=timeout_s, stdin=command.stdin, extra_env=extra
                )
        finally:
            await asyncio.to_thread(self.proxy.close, session)
        if done.error:
            raise _error(ErrorKind.HARNESS, f"{name}: {done.error}", Transcript(), spec)
        outcome = harness.parse(done.stdout, exit_code=done.exit_code, stderr=done.stderr)
        return _finish(outcome, session, spec, binary, done, timeout_s, max_turns, name)

    def _helpers(self, names: Sequence[str]) -> dict[str, str]:
        found = {name: shutil.which(name, path=self.path) for name in names}
        return {name: str(Path(where).resolve()) for name, where in found.items() if where}

    def _path(self, binary: CliBinary) -> str:
        return ":".join([*(str(d) for d in binary.path_dirs), self.path])


def _finish(
    outcome: CliOutcome,
    session: Session,
    spec: RunSpec,
    binary: CliBinary,
    done: CommandResult,
    timeout_s: float,
    max_turns: int,
    name: str,
) -> Transcript:
    """The transcript of a finished CLI process, or the `AgentError` its failure is."""
    transcript = _transcript(outcome, session, spec.model, binary, done.duration_s)
    if done.timed_out:
        transcript.stop_reason = "timeout"
        transcript.notes.append(f"timed out after {timeout_s:g} s")
    elif session.capped:
        transcript.stop_reason = "max_turns"
        transcript.notes.append(f"stopped at the turn cap ({max_turns} turns)")
    if session.failure is not None:  # the provider failed for good: as in the SDK loop
        failure = session.failure
        raise _error(failure.kind, failure.message, transcript, spec)
    if outcome.error and not done.timed_out and not session.capped:
        raise _error(outcome.error_kind, f"{name}: {outcome.error}", transcript, spec)
    return transcript


_ONE_TURN = (
    "{cli} is given one user message per run here, and this case is a conversation of several"
    " user turns, each sent after the agent answers the one before; run it with `harness: sdk`"
)


def _relay(env: Mapping[str, str]) -> list[str]:
    # -I: the relay starts in the workspace, whose files must never shadow our modules. Its
    # source goes on the command line (it is standard library only): run as a sandbox user,
    # neither our venv nor the package's files need be within that user's reach.
    source = Path(relay.__file__).read_text(encoding="utf-8")
    python = python_for_commands()
    if python is None:  # open_cli_harness marked every CLI unavailable: no run gets here
        raise RuntimeError(NO_RELAY_PYTHON)
    argv = [python, "-I", "-S", "-c", source, "--socket", SOCKET]
    for name, value in env.items():
        argv += ["--setenv", name, value]
    return argv


def _prompt(case: Case) -> str:
    """The prompt on stdin. A CLI takes one message; earlier authored turns are quoted first."""
    earlier = [m for m in case.messages if m.role in ("user", "assistant")]
    if not earlier:
        return case.prompt
    lines = ["Earlier in this conversation:"]
    lines += [f"{m.role.capitalize()}: {m.content}" for m in earlier]
    return "\n\n".join(["\n".join(lines), case.prompt])


def _identity(spec: RunSpec, binary: CliBinary) -> str:
    suite = spec.suite
    parts = [
        binary.name,
        binary.version,
        spec.model,
        case_digest(suite, spec.case),
        tree_digest(suite.skill.dir) if spec.with_skill else "no skill",
        spec.repetition,
    ]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def _transcript(
    outcome: CliOutcome, session: Session, model: str, binary: CliBinary, duration_s: float
) -> Transcript:
    transcript = Transcript(
        final_text=outcome.final_text,
        tool_calls=outcome.tool_calls,
        duration_s=duration_s,
        stop_reason=outcome.stop_reason,
        notes=[f"harness: {binary.name} {binary.version} ({binary.where()})", *outcome.notes],
    )
    with session.lock:
        counted = session.usage.calls > 0
        transcript.turns = session.requests
        transcript.served_by = session.served
        if counted:
            transcript.usage.add(session.usage)
    if not counted and outcome.usage is not None:
        # Nothing passed the proxy (a replay without usage): keep what the CLI said.
        transcript.usage = outcome.usage
        transcript.usage.cost_usd = catalog.cost_usd(model, outcome.usage)
        transcript.turns = outcome.turns or 0
    return transcript


@contextlib.asynccontextmanager
async def open_cli_harness(
    models: Sequence[str],
    *,
    keys: Mapping[str, str],
    environ: Mapping[str, str],
    cache_dir: Path | None,
    limiters: Mapping[str, AdaptiveLimiter],
    record_dir: Path | None = None,
    replay_dir: Path | None = None,
    agent: str = "",
) -> AsyncIterator[CliHarness]:
    """The job's CLI harness: binaries found or installed, the proxy running. `agent`: the
    CLI every model runs on ("": each model's vendor's own)."""
    providers = sorted({split_model(m)[0] for m in models} & registry.providers(agent))
    upstreams = {}
    for provider in providers:
        try:
            creds = credentials(provider, api_key=keys.get(provider) or None, environ=environ)
        except ProviderError:
            continue  # its runs end as `auth` errors before any CLI starts
        public = PROVIDERS[provider].public_api
        upstreams[provider] = Upstream(provider, creds.base_url or public, creds.api_key)
    chosen = (registry.for_provider(p, agent) for p in providers)
    names = sorted({h.name for h in chosen if h is not None})
    harness_binaries, unavailable = await binaries(names, environ, cache_dir)
    missing = _missing_helpers(names, environ.get("PATH") or DEFAULT_PATH)
    for name, why in {**missing, **machine_config(names)}.items():
        harness_binaries.pop(name, None)
        unavailable[name] = why
        log.error("harness cli: %s", why)
    shared = await asyncio.to_thread(stage.job_env, harness_binaries, environ)
    loop = asyncio.get_running_loop()

    def overload(provider: str) -> None:
        limiter = limiters.get(provider)
        if limiter is not None:
            loop.call_soon_threadsafe(limiter.on_overload)

    record = CliCassettes() if record_dir is not None else None
    replay = CliCassettes.load(replay_dir, providers) if replay_dir is not None else None
    proxy = CredentialProxy(
        upstreams,
        policy=lambda: _policy(environ),
        timeout_s=positive_env(environ, "EVOLVE_REQUEST_TIMEOUT_S") or 600.0,
        record=record,
        replay=replay,
        on_overload=overload,
    )
    path = environ.get("PATH") or DEFAULT_PATH
    with proxy:
        yield CliHarness(proxy, harness_binaries, unavailable, path, agent, shared)
    if record is not None and record_dir is not None:
        record.save(record_dir)


def _policy(environ: Mapping[str, str]) -> RetryPolicy:
    """As on the SDK path: `EVOLVE_RETRY_BASE_DELAY_S` shortens the first backoff."""
    return tuned_policy(environ) or RetryPolicy()
