"""Record a run against the fake, then replay it with the server gone and no key."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from evolve_action.execute.agent import AgentError, run_agent
from evolve_action.execute.providers.faults import RetryPolicy
from evolve_action.execute.providers.registry import build_provider
from evolve_action.execute.providers.replay import (
    Cassette,
    RecordingProvider,
    ReplayProvider,
    load_cassette,
    request_key,
    save_cassette,
)
from evolve_action.execute.sandbox.confine import Confinement, SandboxMode
from evolve_action.execute.skill_install import SkillInfo
from evolve_action.execute.tools.run import WorkspaceTools, system_prompt
from evolve_action.model.outcomes import ErrorKind, Transcript
from evolve_action.model.provider import ChatMessage, ChatRequest, Provider, TextPart
from tests.fakes.llm_server import FakeLLM, call, scripted_agent, text

GREETER = SkillInfo(
    "greeter", "Greets.", "# Greeter\nGreet in hello.txt.\n", ".claude/skills/greeter"
)
MODELS = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5.4"}
SCRIPT = scripted_agent(
    call("Skill", skill="greeter"),
    call("Write", file_path="hello.txt", content="Hello!\n"),
    call("Bash", command="cat hello.txt"),
    text("Done: hello.txt greets everyone."),
)


def _tools(root: Path) -> WorkspaceTools:
    (root / ".claude" / "skills" / "greeter").mkdir(parents=True)
    return WorkspaceTools(root, Confinement(root, mode=SandboxMode.NONE), (GREETER,))


async def _run(provider: Provider, model: str, root: Path, prompt: str = "Greet.") -> Transcript:
    return await run_agent(
        provider=provider,
        model=model,
        system=system_prompt((GREETER,)),
        messages=(ChatMessage("user", (TextPart(prompt),)),),
        tools=_tools(root),
        max_turns=10,
        timeout_s=30,
        label="greet-1",
    )


def _comparable(transcript: Transcript) -> dict[str, object]:
    data = dataclasses.asdict(transcript)
    data.pop("duration_s")
    data["tool_calls"] = [
        {k: v for k, v in c.items() if k != "duration_s"} for c in data["tool_calls"]
    ]
    return data


@pytest.mark.parametrize("provider_id", ["anthropic", "openai"])
async def test_record_then_replay_offline__identical_transcript(
    tmp_path: Path, provider_id: str
) -> None:
    cassette_path = tmp_path / "cassettes" / f"{provider_id}.json"
    with FakeLLM(SCRIPT) as llm:
        url = llm.anthropic_base_url if provider_id == "anthropic" else llm.openai_base_url
        live = build_provider(
            provider_id, environ={}, api_key="sk-secret-key", base_url=url, policy=RetryPolicy()
        )
        cassette = Cassette()
        recorded = await _run(
            RecordingProvider(live, cassette), MODELS[provider_id], tmp_path / "rec"
        )
        await live.aclose()
        save_cassette(cassette_path, cassette)
        live_requests = len(llm.requests)
    # The server is stopped and no key exists from here on.

    replay = ReplayProvider(provider_id, load_cassette(cassette_path))
    replayed = await _run(replay, MODELS[provider_id], tmp_path / "replay")

    assert live_requests == 4 and recorded.stop_reason == "end_turn"
    assert _comparable(replayed) == _comparable(recorded)
    assert (tmp_path / "replay" / "hello.txt").read_text() == "Hello!\n"
    saved = cassette_path.read_text()
    assert "sk-secret-key" not in saved and str(tmp_path) not in saved
    assert [p.name for p in cassette_path.parent.iterdir()] == [cassette_path.name]  # no temp left


@pytest.mark.parametrize("provider_id", ["anthropic", "openai"])
async def test_same_run_twice__same_request_bytes(tmp_path: Path, provider_id: str) -> None:
    sent: list[list[bytes]] = []
    for attempt in ("one", "two"):
        with FakeLLM(SCRIPT) as llm:
            url = llm.anthropic_base_url if provider_id == "anthropic" else llm.openai_base_url
            live = build_provider(provider_id, environ={}, api_key="k", base_url=url)
            await _run(live, MODELS[provider_id], tmp_path / attempt)
            await live.aclose()
            sent.append([r.raw for r in llm.requests])
    assert len(sent[0]) == 4 and sent[0] == sent[1]


async def test_changed_request__replay_miss_names_the_case(tmp_path: Path) -> None:
    cassette = Cassette()
    with FakeLLM(SCRIPT) as llm:
        live = build_provider("openai", environ={}, api_key="k", base_url=llm.openai_base_url)
        await _run(RecordingProvider(live, cassette), "gpt-5.4", tmp_path / "rec")
        await live.aclose()

    with pytest.raises(AgentError) as caught:
        await _run(ReplayProvider("openai", cassette), "gpt-5.4", tmp_path / "b", "Greet twice.")

    assert caught.value.kind is ErrorKind.REPLAY_MISS
    assert caught.value.message.startswith("no recorded exchange for this request to gpt-5.4")
    assert caught.value.message.endswith("(case greet-1)")


def _request(prompt: str = "hi", **fields: Any) -> ChatRequest:
    return ChatRequest(
        model="gpt-5.4", system="s", messages=(ChatMessage("user", (TextPart(prompt),)),), **fields
    )


async def test_repeated_request__answers_replayed_in_recorded_order(tmp_path: Path) -> None:
    cassette = Cassette()
    with FakeLLM() as llm:
        llm.enqueue(text("first"), text("second"))
        live = build_provider("openai", environ={}, api_key="k", base_url=llm.openai_base_url)
        recorder = RecordingProvider(live, cassette)
        await recorder.complete(_request())
        await recorder.complete(_request())
        await live.aclose()
    path = tmp_path / "c.json"
    save_cassette(path, cassette)

    replay = ReplayProvider("openai", load_cassette(path))
    answers = [(await replay.complete(_request())).text for _ in range(3)]

    assert answers == ["first", "second", "first"]
    first_bytes = path.read_bytes()
    save_cassette(path, load_cassette(path))
    assert path.read_bytes() == first_bytes  # stable, diffable output
    assert len(json.loads(first_bytes)["exchanges"]) == 1


def test_request_key__covers_what_the_model_sees_only() -> None:
    base = request_key(_request())
    assert request_key(_request()) == base
    assert request_key(_request("other")) != base
    assert request_key(_request(max_tokens=10)) != base
    assert request_key(_request(force_tool="grade")) != base
    assert request_key(_request(temperature=0.0)) != base
    assert request_key(_request(response_schema={"type": "object"})) != base


def test_load_cassette__absent_is_empty_and_old_versions_are_refused(tmp_path: Path) -> None:
    assert load_cassette(tmp_path / "none.json").exchanges == {}
    old = tmp_path / "old.json"
    old.write_text('{"version": 0, "exchanges": {}}')
    with pytest.raises(ValueError, match="re-record"):
        load_cassette(old)


@pytest.mark.parametrize("provider_id", ["anthropic", "openai"])
async def test_the_served_snapshot_reaches_the_transcript_and_survives_replay(
    tmp_path: Path, provider_id: str
) -> None:
    cassette = Cassette()
    with FakeLLM(SCRIPT) as llm:
        llm.served_model = "snapshot-2026-11-01"
        url = llm.anthropic_base_url if provider_id == "anthropic" else llm.openai_base_url
        live = build_provider(provider_id, environ={}, api_key="k", base_url=url)
        recorded = await _run(
            RecordingProvider(live, cassette), MODELS[provider_id], tmp_path / "a"
        )
        await live.aclose()
    save_cassette(tmp_path / "c.json", cassette)

    replayed = await _run(
        ReplayProvider(provider_id, load_cassette(tmp_path / "c.json")),
        MODELS[provider_id],
        tmp_path / "b",
    )

    assert recorded.served_by == replayed.served_by == "snapshot-2026-11-01"
