"""What a plan will cost, before the first call: per run, in total, and at most under `auto`.

Each run is projected from the best thing known about it, in this order:
- it is in the cache: it will be reused, and costs nothing;
- the cache holds runs of the same case on the same model (another repetition, the other
  side, an earlier push): their mean usage (`cost_history`);
- else its own prompt and skill, and the prior of its provider and harness (`cost_prior`).

Each run also gets a range (`low_usd`, `high_usd`): a run seen before ranges over the
cheapest and the dearest run of its case on its model; a run never seen over the prior's two
behaviours (`cost_prior.LOW`, `cost_prior.HIGH`, the latter held under the run's turn cap).

The judge is projected the same way, on the judge's model. Usage becomes dollars through
the price function the caller passes (the catalog with the repository's overrides), so a
model with no price is counted in `unpriced` and the total says "price unknown", never $0.
The projection iterates over whatever sides the plan holds: a third arm is projected like
the other two. Under `runs: auto` the plan holds the start runs; `most_usd` adds what the
waves could add up to `max-runs` per case and side.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from evolve_action.model.evals import Case, Suite, split_model
from evolve_action.model.outcomes import Usage
from evolve_action.plan import cost_prior
from evolve_action.plan.cost_history import CaseModel, Seen
from evolve_action.plan.planning import Plan, RunSpec

Price = Callable[[str, Usage], float | None]  # (qualified model, usage) → USD, None: unpriced
SKILL_FILE = "SKILL.md"
SKILL_BYTES = 256 * 1024  # a skill file past this is counted at this size


@dataclass(frozen=True, slots=True)
class RunEstimate:
    spec: RunSpec
    usd: float | None  # None: a model of the run has no price
    tokens: int
    source: str  # "cache" (reused, free), "seen" (the case's earlier runs), "prior"
    low_usd: float | None = None  # the range a run like this costs (None: unpriced)
    high_usd: float | None = None


@dataclass(frozen=True, slots=True)
class Projection:
    runs: tuple[RunEstimate, ...]
    extra_usd: float | None = None  # `auto`: what waves up to max-runs could add; None: fixed
    extra_runs: int = 0
    harness: str = "sdk"

    def _paid(self) -> list[RunEstimate]:
        return [r for r in self.runs if r.source != "cache"]

    @property
    def unpriced(self) -> int:
        return sum(1 for r in self._paid() if r.usd is None)

    @property
    def total_usd(self) -> float:
        """The priced runs' sum; read with `unpriced` (runs whose cost is unknown)."""
        return math.fsum(r.usd for r in self._paid() if r.usd is not None)

    @property
    def low_usd(self) -> float:
        return math.fsum(r.low_usd for r in self._paid() if r.low_usd is not None)

    @property
    def high_usd(self) -> float:
        return math.fsum(r.high_usd for r in self._paid() if r.high_usd is not None)

    @property
    def ranged(self) -> bool:
        """Some run is projected from the prior alone (no record of its case)."""
        return self.count("prior") > 0

    @property
    def most_usd(self) -> float:
        return self.total_usd + (self.extra_usd or 0.0)

    def count(self, source: str) -> int:
        return sum(1 for r in self.runs if r.source == source)

    def costs(self) -> Mapping[str, float]:
        """Run key → what it is projected to cost here (0 when reused or unpriced)."""
        return {r.spec.key: (r.usd or 0.0) if r.source != "cache" else 0.0 for r in self.runs}


def _skill_tokens(suite: Suite) -> int:
    skill_dir = suite.skill.dir
    if skill_dir is None:
        return 0
    try:
        size = min((Path(skill_dir) / SKILL_FILE).stat().st_size, SKILL_BYTES)
    except OSError:
        return 0
    return (size + cost_prior.CHARS_PER_TOKEN - 1) // cost_prior.CHARS_PER_TOKEN


def _prompt_tokens(case: Case) -> int:
    text = case.prompt + "".join(m.content for m in case.messages) + (case.system or "")
    return cost_prior.text_tokens(text)


def prior_usage(
    spec: RunSpec,
    harness: str,
    skill_tokens: int,
    behaviour: cost_prior.Behaviour | None = None,
    turn_cap: int | None = None,
) -> Usage:
    """The agent's usage for a run never seen, from its prompt, its skill and the prior (its
    likely behaviour, or `behaviour`), never more turns than `turn_cap`."""
    prior = cost_prior.prior_for(split_model(spec.model)[0], harness)
    act = behaviour or likely(prior)
    turns = min(act.turns, turn_cap) if turn_cap else act.turns
    prompt = _prompt_tokens(spec.case)
    skill = skill_tokens if spec.with_skill else 0
    usage = Usage()
    for turn in range(turns):
        # The skill enters the conversation once loaded (the first turn's tool call).
        envelope = prior.message_tokens if act.message_tokens is None else act.message_tokens
        fresh = prompt + envelope + act.history_tokens * turn + (skill if turn else 0)
        read = round(prior.overhead_tokens * prior.cached_share)
        fresh += prior.overhead_tokens - read
        usage.add(Usage(fresh, act.output_tokens, read, 0, None, 1))
    return usage


def likely(prior: cost_prior.Prior) -> cost_prior.Behaviour:
    """The prior's own behaviour: the point between the range's ends."""
    j = cost_prior.JUDGE
    return cost_prior.Behaviour(
        prior.turns,
        prior.output_tokens,
        prior.history_tokens,
        j.transcript_tokens,
        j.output_tokens,
        False,
    )


def judge_usage(case: Case, behaviour: cost_prior.Behaviour | None = None) -> Usage:
    """One judge call over the case's text and its judged items (the run read as the prior's
    likely behaviour, or `behaviour`); none without such items."""
    items = case.judge_items
    if not items:
        return Usage()
    text = case.prompt + case.expected_output + "".join(i.text for i in items)
    j = cost_prior.JUDGE
    act = behaviour or likely(cost_prior.FALLBACK)
    fresh = act.judge_transcript_tokens + cost_prior.text_tokens(text)
    read = j.overhead_tokens if act.judge_cached else 0
    fresh += j.overhead_tokens - read
    return Usage(fresh, act.judge_output_tokens, read, 0, None, 1)


@dataclass(frozen=True, slots=True)
class Pricing:
    """What turns a run's usage into dollars, and what bounds its turns."""

    price: Price
    judge_model: str
    harness: str
    turn_cap: Callable[[Case], int | None] = lambda _case: None
    # A model's provider → what runs it: "sdk", or the name of the CLI (`cost_prior`'s key).
    runs_on: Callable[[str], str] | None = None

    def prior_harness(self, spec: RunSpec) -> str:
        """The prior's key: the run's own agent (several agents), else what runs its model."""
        if spec.agent:
            return spec.agent
        return self.runs_on(split_model(spec.model)[0]) if self.runs_on else self.harness


def _usd(spec: RunSpec, agent: Usage, judge: Usage, how: Pricing) -> float | None:
    costs = [
        how.price(spec.model, agent),
        how.price(how.judge_model, judge) if judge.calls else 0.0,
    ]
    return None if None in costs else math.fsum(c for c in costs if c is not None)


def _estimate(spec: RunSpec, seen: Seen | None, how: Pricing, skill_tokens: int) -> RunEstimate:
    if seen is not None:
        usd = _usd(spec, seen.agent, seen.judge, how)
        low, high = (_usd(spec, *end, how) for end in (seen.cheapest, seen.dearest))
        tokens = seen.agent.total_tokens + seen.judge.total_tokens
        return RunEstimate(spec, usd, tokens, "seen", low, high)
    cap = how.turn_cap(spec.case)
    runs_on = how.prior_harness(spec)
    agent = prior_usage(spec, runs_on, skill_tokens, turn_cap=cap)
    judge = judge_usage(spec.case)
    ends = []
    for act in (cost_prior.LOW, cost_prior.HIGH):
        usage = prior_usage(spec, runs_on, skill_tokens, act, cap)
        ends.append(_usd(spec, usage, judge_usage(spec.case, act), how))
    tokens = agent.total_tokens + judge.total_tokens
    return RunEstimate(spec, _usd(spec, agent, judge, how), tokens, "prior", *ends)


def project(
    plan: Plan,
    *,
    cached: Collection[str],
    history: Mapping[CaseModel, Seen],
    price: Price,
    judge_model: str,
    harness: str,
    max_runs: int,
    turn_cap: Callable[[Case], int | None] = lambda _case: None,
    runs_on: Callable[[str], str] | None = None,
) -> Projection:
    """The plan's projection. `cached`: keys of the runs the cache will answer; `turn_cap`:
    the most turns a run of the case may take; `runs_on`: a provider → the CLI that runs its
    models under `harness: cli` (the prior's key), else `harness` itself."""
    how = Pricing(price, judge_model, harness, turn_cap, runs_on)
    skills: dict[str, int] = {}  # skill directory → tokens (base and head differ)

    def fresh(spec: RunSpec) -> RunEstimate:
        where = str(spec.suite.skill.dir)
        if where not in skills:
            skills[where] = _skill_tokens(spec.suite)
        seen = history.get((spec.suite.rel, spec.case.id, spec.model))
        return _estimate(spec, seen, how, skills[where])

    runs = [
        RunEstimate(s, 0.0, 0, "cache", 0.0, 0.0) if s.key in cached else fresh(s)
        for s in plan.runs
    ]
    if not plan.adaptive:
        return Projection(tuple(runs), harness=harness)
    # `auto`: every cell of an adaptive suite could get up to max-runs fresh runs.
    cells: dict[tuple[str, str, str, str], list[RunSpec]] = {}
    for spec in plan.runs:
        if spec.suite.rel in plan.adaptive:
            key = (spec.side.value, spec.suite.rel, spec.case.id, spec.model)
            cells.setdefault(key, []).append(spec)
    extra, extra_runs = 0.0, 0
    for members in cells.values():
        more = max(0, max_runs - len(members))
        extra += more * (fresh(members[0]).usd or 0.0)
        extra_runs += more
    return Projection(tuple(runs), extra, extra_runs, harness)
