"""Suites × models × agents × runs × sides → the runs to execute, and what was skipped and why.

Model selection follows evolve's token rules: a token names a
model when it equals `all`, the provider id, the qualified id or the bare id. A suite's
`models` list narrows the configured models (a skill can never run a model the repository
did not configure); a case's `skip_providers` removes a provider for that case. Everything
not run is listed with its reason, so the comment can say what was left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from evolve_action.model.evals import Case, Suite, split_model
from evolve_action.model.outcomes import Side
from evolve_action.settings.parsers import MAX_RUNS, SettingsError

AUTO: Literal["auto"] = "auto"
Runs = int | Literal["auto"]
DEFAULT_RUNS: Runs = AUTO  # runs: auto meets its guarantees in simulation (docs/adaptive.md)
START_RUNS = 2  # what `auto` starts with, per case, model and side
FIXED_FALLBACK = 3  # `auto` where no wave can follow (a shard sees only part of the PR)
# The most runs one job plans (every side, case, model and repetition): memory and time of
# planning stay bounded (about 0.5 KB and 20 µs a run) whatever the eval files ask for.
MAX_PLANNED_RUNS = 100_000


class PlanTooLarge(SettingsError):
    """The plan would hold more runs than one job may; the message says how to narrow it."""


@dataclass(frozen=True, slots=True)
class Ruler:
    """Base's case, whose checks grade a head run too when the PR changed them."""

    suite: Suite
    case: Case
    key: str  # `plan.ruler.ruler_key`: a stored grading under another ruler is not reused


@dataclass(frozen=True, slots=True)
class RunSpec:
    suite: Suite
    case: Case
    model: str  # provider-qualified
    side: Side
    repetition: int  # 1-based
    ruler: Ruler | None = None  # head runs of a case whose checks the PR changed
    agent: str = ""  # the agent CLI, when the job runs several (`agents`); else ""

    @property
    def key(self) -> str:
        """Stable identity of the run, used for sharding and messages."""
        key = f"{self.side}|{self.suite.rel}|{self.case.id}|{self.model}|{self.repetition}"
        return f"{key}|{self.agent}" if self.agent else key

    @property
    def with_skill(self) -> bool:
        """Whether the run installs the suite's skill: every side but the no-skill arm."""
        return self.side is not Side.NO_SKILL


@dataclass(frozen=True, slots=True)
class Skip:
    suite: str
    case: str  # "" when the whole suite is skipped for the model
    model: str
    reason: str


@dataclass(slots=True)
class Plan:
    runs: list[RunSpec] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    adaptive: set[str] = field(default_factory=set)  # suites planned with `auto`: start runs


def token_matches(token: str, model: str) -> bool:
    token = token.strip()
    provider, bare = split_model(model)
    return token in ("all", provider, model, bare)


def allowed_models(suite: Suite, models: Sequence[str]) -> list[str]:
    if not suite.models:
        return list(models)
    return [m for m in models if any(token_matches(t, m) for t in suite.models)]


def runs_for(suite: Suite, requested: Runs | None) -> Runs:
    """The input wins, then the file's own setting, then `auto`."""
    return requested or suite.runs or DEFAULT_RUNS


# Why an agent cannot run a model ("" when it can): `agents.cannot_run` over the registry,
# handed down by the pipeline (planning does not import the harnesses).
AgentCheck = Callable[[str, str], str]


def plan_runs(
    sides: Mapping[Side, Iterable[Suite]],
    models: Sequence[str],
    *,
    runs: Runs | None = None,
    start: int | None = START_RUNS,
    agents: Sequence[str] = (),
    agent_check: AgentCheck | None = None,
) -> Plan:
    """Expand every (side, suite, case, model, agent, repetition) that should run.

    Suites under `auto` get `start` runs (their later waves are `adaptive`'s); with
    `start=None` no wave can follow, and `auto` means a fixed 3. `agents`: the agent CLIs of
    a job that runs several (each case runs on each, where the agent runs the model's
    provider; `agent_check` says why not); empty: one agent, which the runs do not name."""
    _check_size(sides, models, runs, start, max(len(agents), 1))
    plan = Plan()
    for side, suites in sides.items():
        for suite in suites:
            _plan_suite(plan, side, suite, models, runs, start)
    if agents and len(agents) > 1:
        plan.runs = _on_agents(plan, agents, agent_check)
    return plan


def _on_agents(plan: Plan, agents: Sequence[str], check: AgentCheck | None) -> list[RunSpec]:
    """Each planned run once per agent that can run its model; a note for each that cannot.
    A suite that does not run an agent (a plain prompt) runs once, on none."""
    out: list[RunSpec] = []
    for spec in plan.runs:
        if not spec.suite.agent:
            out.append(spec)
            continue
        for agent in agents:
            why = check(agent, spec.model) if check is not None else ""
            if why:
                _skip(plan, Skip(spec.suite.rel, "", spec.model, why))
                continue
            out.append(replace(spec, agent=agent))
    return out


def _count(suite: Suite, runs: Runs | None, start: int | None) -> int:
    wanted = runs_for(suite, runs)
    return wanted if isinstance(wanted, int) else start or FIXED_FALLBACK


def _check_size(
    sides: Mapping[Side, Iterable[Suite]],
    models: Sequence[str],
    runs: Runs | None,
    start: int | None,
    agents: int = 1,
) -> None:
    """Refuse, before building anything, a plan over `MAX_PLANNED_RUNS` runs."""
    total = 0
    for suites in sides.values():
        for suite in suites:
            count = min(_count(suite, runs, start), MAX_RUNS)
            total += len(suite.cases) * len(allowed_models(suite, models)) * count * agents
    if total > MAX_PLANNED_RUNS:
        raise PlanTooLarge(
            f"the plan holds {total:,} runs (every side, case, model, agent and repetition), over"
            f" the limit of {MAX_PLANNED_RUNS:,} for one job; narrow it with `paths`, `models`,"
            " `agents` or `runs`, or split it with `shard`"
        )


def _plan_suite(
    plan: Plan,
    side: Side,
    suite: Suite,
    models: Sequence[str],
    runs: Runs | None,
    start: int | None,
) -> None:
    allowed = allowed_models(suite, models)
    for model in models:
        if model not in allowed:
            tokens = ", ".join(suite.models)
            _skip(
                plan,
                Skip(suite.rel, "", model, f"the eval file's models list ({tokens}) excludes it"),
            )
    wanted = runs_for(suite, runs)
    count = _count(suite, runs, start)
    if count > MAX_RUNS:  # an eval file's own setting: the inputs are bounded when parsed
        for model in allowed:
            reason = f"the eval file asks for {count:,} runs per case, over the limit of {MAX_RUNS}"
            _skip(plan, Skip(suite.rel, "", model, reason))
        return
    if not isinstance(wanted, int) and start is not None:
        plan.adaptive.add(suite.rel)
    for case in suite.cases:
        for model in allowed:
            provider, _ = split_model(model)
            if provider in case.skip_providers:
                _skip(plan, Skip(suite.rel, case.id, model, f"skip_providers lists {provider}"))
                continue
            for repetition in range(1, count + 1):
                plan.runs.append(RunSpec(suite, case, model, side, repetition))


def _skip(plan: Plan, skip: Skip) -> None:
    # Base and head usually skip the same things; say it once.
    if skip not in plan.skipped:
        plan.skipped.append(skip)
