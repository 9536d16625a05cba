"""What a run has imported when its first provider request leaves: only what the job uses.

A real `evolve-action run` in a fresh process (`bench/startup_imports.py`'s wrapper notes
`sys.modules` as the SDK's HTTP client sends its first request, or as the call is handed to
the courier process) of a plain evolve-format repository, one case with a regex and a judge
statement, on the OpenAI SDK against the loopback fake; once as shipped (the courier carries
the first calls where there are two cores, so the job's process has not imported the SDK
yet) and once with the courier off (`EVOLVE_COURIER=0`, as on one core), where the SDK was
imported here. Structural only: which modules are loaded, never how long anything took (the
times are `bench/startup_imports.py`'s, in `bench/README.md`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.coldstart import Fake
from bench.startup_imports import fake_env, modules_at_first_request, write_repo
from evolve_action.execute.providers import courier_spawn
from evolve_action.formats.families import FAMILIES
from tests.fakes.llm_server import FakeLLM

# Families an evolve repository uses: its own, and the shared folders its checks name.
USED_FAMILIES = {"evolve"}


@pytest.fixture(scope="module", params=["courier", "no-courier"])
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    if request.param == "courier" and courier_spawn.cores() < 2:
        pytest.skip("the courier starts only with two cores or more; this machine has one")
    return str(request.param)


@pytest.fixture(scope="module")
def loaded(run: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[set[str]]:
    yield from _modules(tmp_path_factory, courier=run == "courier")


@pytest.fixture(scope="module")
def loaded_sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[set[str]]:
    """The modules when the job's own process sends its first request (the courier off)."""
    yield from _modules(tmp_path_factory, courier=False)


def _modules(factory: pytest.TempPathFactory, *, courier: bool) -> Iterator[set[str]]:
    scratch = factory.mktemp("startup")
    root = scratch / "repo"
    root.mkdir()
    write_repo(root, "evolve")
    with FakeLLM(Fake(), latency=0.0) as llm:
        env = {**fake_env(llm.openai_base_url), "EVOLVE_COURIER": "1" if courier else "0"}
        yield set(modules_at_first_request(str(Path(sys.executable)), root, scratch, env))


def _ours(names: set[str], prefix: str) -> list[str]:
    return sorted(n for n in names if n == prefix or n.startswith(prefix + "."))


def test_the_run_got_to_its_first_request(run: str, loaded: set[str]) -> None:
    assert "evolve_action.formats.evolve.load" in loaded
    # With the courier the SDK is imported here only while the first answers are awaited.
    assert ("openai" in loaded) is (run == "no-courier")


# `formats/shapes.py` tells an evolve file from an AgentV one by AgentV's key lists, so that
# family's key tables load with it; its loader does not.
KEY_TABLES = {
    "evolve_action.formats.agentv",
    "evolve_action.formats.agentv.keys",
    "evolve_action.formats.agentv.common",
}


def test_no_other_format_family_is_loaded(loaded: set[str]) -> None:
    others = [f.package for f in FAMILIES if f.package not in USED_FAMILIES]
    found = [m for p in others for m in _ours(loaded, f"evolve_action.formats.{p}")]
    assert sorted(set(found) - KEY_TABLES) == []


def test_no_harness_renderer_publisher_or_other_sdk_is_loaded(loaded: set[str]) -> None:
    unwanted = [
        "evolve_action.execute.harness",  # `harness: cli` only
        "evolve_action.publish.render",  # the report, once runs have ended
        "evolve_action.publish.html",
        "evolve_action.publish.post",
        "evolve_action.publish.github_api",
        "evolve_action.publish.results.write",  # the files, as each run ends
        "evolve_action.commands.calibrate_flow",  # `mode: calibrate` only
        "evolve_action.commands.watch_flow",  # `mode: watch` only
        "jinja2",
        "github",
        "anthropic",  # no Anthropic model in this job
        "jsonschema",
        "json5",
    ]
    found = {u: _ours(loaded, u) for u in unwanted}
    assert {u: names for u, names in found.items() if names} == {}


def test_the_sdk_type_hubs_load_only_the_models_the_calls_use(loaded_sdk: set[str]) -> None:
    loaded = loaded_sdk
    # Run, `openai.types`' body would import the models of every API (batches, evals,
    # graders, the Responses API's hundreds); the program defers it
    # (`util/deferred_packages.py`), so only what the Chat Completions resource imports loads.
    assert "openai.types.chat.chat_completion" in loaded
    assert "openai.types.batch" not in loaded
    assert "openai.types.eval_create_params" not in loaded
    assert _ours(loaded, "openai.types.graders") == []
    assert len(_ours(loaded, "openai")) < 200
