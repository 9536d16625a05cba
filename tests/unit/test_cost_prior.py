"""The prior's table read from the provider table (the SDK loop by wire) and by the name of
the CLI that runs a model; cached input priced by the price function; and the cache entries
and fingerprints the projection found handed to the run, not read again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from evolve_action.model.outcomes import RunResult, Side, Status, Transcript, Usage
from evolve_action.model.provider_table import PROVIDERS
from evolve_action.pipeline.cost_plan import _runs_on
from evolve_action.pipeline.execution import _look_up
from evolve_action.plan import cost_prior
from evolve_action.plan.cache import RunCache
from evolve_action.plan.fingerprints import Fingerprinter
from evolve_action.plan.planning import Plan, plan_runs
from evolve_action.plan.projection import project
from evolve_action.settings.inputs import from_values
from tests.unit.test_planning import make_case, make_suite

SONNET = "anthropic/claude-sonnet-4-6"


def _plan(model: str = SONNET) -> Plan:
    suite = make_suite(make_case("a"))
    return plan_runs({Side.BASE: [suite], Side.HEAD: [suite]}, [model], runs=1)


def test_the_sdk_prior_is_the_wire_of_the_provider_row(monkeypatch: pytest.MonkeyPatch) -> None:
    compatible = replace(PROVIDERS["openai"], id="compat")
    monkeypatch.setitem(PROVIDERS, "compat", compatible)
    openai = cost_prior.prior_for("openai", "sdk")
    assert cost_prior.prior_for("compat", "sdk") == openai == cost_prior.SDK_PRIORS["openai"]
    assert cost_prior.prior_for("nobody", "sdk") == cost_prior.FALLBACK


def test_the_cli_prior_is_the_harness_named_by_the_pipeline() -> None:
    runs_on = _runs_on(from_values({"harness": "cli"}))
    assert runs_on is not None
    assert (runs_on("anthropic"), runs_on("openai")) == ("claude", "codex")
    assert _runs_on(from_values({})) is None
    assert cost_prior.prior_for("anthropic", "claude") == cost_prior.CLI_PRIORS["claude"]
    assert cost_prior.prior_for("gemini", "gemini") == cost_prior.CLI_PRIORS["gemini"]
    assert cost_prior.prior_for("anthropic", "no-such-cli") == cost_prior.FALLBACK
    # The share of cached input is a token count from the harness benchmark, not a rate.
    assert 0.8 < cost_prior.CLI_PRIORS["claude"].cached_share < 0.85


def test_cached_input_is_priced_by_the_price_function_alone() -> None:
    def cost(rate: float) -> float:
        def price(_model: str, usage: Usage) -> float:
            return usage.input_tokens * 1e-6 + usage.cache_read_tokens * rate

        projection = project(
            _plan(), cached=(), history={}, price=price, judge_model=SONNET, harness="cli",
            max_runs=20, runs_on=lambda _provider: "claude",
        )  # fmt: skip
        return projection.total_usd

    assert cost(0.0) > 0
    assert cost(1e-6) > cost(0.0)  # what a cached token costs is the price's word alone


class _Counting(RunCache):
    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.reads = 0

    def get(self, fingerprint: str) -> RunResult | None:
        self.reads += 1
        return super().get(fingerprint)


def test_the_run_starts_from_what_the_projection_found(tmp_path: Path) -> None:
    plan = _plan()
    fingerprinter = Fingerprinter(SONNET)
    probe = RunCache(tmp_path)
    stored = RunResult("evals/s/evals.json", "a", SONNET, Side.BASE, 1, Status.PASS, 1.0,
                       transcript=Transcript("", [], 1, Usage(10, 1, 0, 0, 0.0, 1)))  # fmt: skip
    found = {}
    for spec in plan.runs:
        fp = fingerprinter.run(spec.suite, spec.case, model=spec.model, repetition=1, skill=True)
        if spec.side is Side.BASE:  # head: a run the projection did not see (a later wave)
            probe.put(fp, stored, task=fingerprinter.task(spec.suite, spec.case, model=SONNET,
                                                          repetition=1, skill=True))  # fmt: skip
            found[spec.key] = (fp, probe.get(fp))
    job = _Counting(tmp_path)
    looked = _look_up(plan.runs, fingerprinter, job, found)
    assert job.hits == 2 and job.reads == 1  # the found hit is not read again; head's is
    assert all(slot is not None for slot in looked.slots)
    assert len(set(looked.fingerprints)) == 1
