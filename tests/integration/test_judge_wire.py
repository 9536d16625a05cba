"""The judge through the REAL Anthropic and OpenAI providers against the loopback fake:
one request per run for five items, the answer tool forced on the wire, verdicts parsed."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from evolve_action.execute.providers.faults import RetryingProvider, RetryPolicy
from evolve_action.execute.providers.registry import build_provider
from evolve_action.grade.judge import judge_run
from evolve_action.model.evals import Case, JudgeItem, Origin, Scale
from evolve_action.model.outcomes import Transcript
from evolve_action.model.provider import Provider
from tests.fakes.llm_server import Call, FakeLLM, Reply
from tests.unit.judge_fakes import FakeToolBox

MODELS = {"anthropic": "anthropic/claude-sonnet-4-6", "openai": "openai/gpt-5.4"}
ORIGIN = Origin("evals/greeter/evals.json", 5)
ITEMS = [
    JudgeItem("e1", "The reply greets the user by name", ORIGIN),
    JudgeItem("e2", "The reply mentions the weather", ORIGIN),
    JudgeItem(
        "correctness",
        "Correctness",
        ORIGIN,
        scale=Scale.LIKERT5,
        anchors={"1": "wrong", "5": "right"},
    ),
    JudgeItem("r1", "Tone", ORIGIN, scale=Scale.RANGE10),
    JudgeItem("c1", "Brevity", ORIGIN, scale=Scale.UNIT),
]
ANSWER = {
    "expectations": [
        {"id": 1, "passed": True, "evidence": "Hello, Ada!"},
        {"id": 2, "passed": False, "evidence": "no weather"},
    ],
    "rubric_scores": {
        "3": {"score": 5, "evidence": "correct"},
        "4": {"score": 6, "evidence": "a bit curt"},
        "5": {"score": 0.9, "evidence": "short"},
    },
    "claims": [],
    "eval_feedback": {
        "suggestions": [{"assertion": 2, "reason": "the prompt never asks for weather"}],
        "overall": "one item is off-task",
    },
}


async def _no_sleep(_: float) -> None:
    return None


Build = Callable[[str], Provider]


@pytest.fixture
async def build(fake_llm: FakeLLM) -> AsyncIterator[Build]:
    made: list[RetryingProvider] = []

    def make(provider: str) -> Provider:
        url = fake_llm.anthropic_base_url if provider == "anthropic" else fake_llm.openai_base_url
        policy = RetryPolicy(max_retries=0, sleep=_no_sleep)
        made.append(
            build_provider(provider, environ={}, api_key="test-key", base_url=url, policy=policy)
        )
        return made[-1]

    yield make
    for p in made:
        await p.aclose()


async def _judge(provider: Provider, name: str, **kw: Any) -> Any:
    case = kw.pop("case", Case("c1", "greet Ada", ORIGIN, expected_output="A friendly greeting"))
    return await judge_run(
        provider=provider,
        model=MODELS[name],
        case=case,
        items=ITEMS,
        transcript=kw.pop("transcript", Transcript(final_text="Hello, Ada!")),
        tools=kw.pop("tools", None),
        timeout_s=10.0,
        **kw,
    )


@pytest.mark.parametrize("name", ["anthropic", "openai"])
async def test_one_judge_request_for_five_items(fake_llm: FakeLLM, build: Build, name: str) -> None:
    # docs/design.md §Judge: a forced tool on Anthropic, a JSON schema on OpenAI's answer text.
    if name == "anthropic":
        fake_llm.enqueue(Reply(calls=(Call("submit_grading", ANSWER),)))
    else:
        fake_llm.enqueue(Reply(text=json.dumps(ANSWER)))
    results, report = await _judge(build(name), name)

    [sent] = fake_llm.requests
    assert sent.api == name
    body = sent.body
    if name == "anthropic":
        assert body["tool_choice"] == {"type": "tool", "name": "submit_grading"}
        assert [t["name"] for t in body["tools"]] == ["submit_grading"]
    else:
        assert "tools" not in body and "tool_choice" not in body
        assert body["response_format"]["type"] == "json_schema"
        schema = body["response_format"]["json_schema"]["schema"]
        assert schema["required"] == ["expectations", "rubric_scores", "claims", "eval_feedback"]
        assert sorted(schema["properties"]["rubric_scores"]["properties"]) == ["3", "4", "5"]
    prompt = str(sent.messages[-1]["content"])
    assert all(f"{n}. [" in prompt for n in range(1, 6)) and "A friendly greeting" in prompt

    assert [(r.item_id, r.passed) for r in results] == [
        ("e1", True),
        ("e2", False),
        ("correctness", True),
        ("r1", False),
        ("c1", True),
    ]
    assert [r.score for r in results] == [1.0, 0.0, 1.0, 0.6, 0.9]
    assert (
        report.model == MODELS[name] and report.usage.calls == 1 and report.usage.input_tokens > 0
    )
    assert report.feedback.suggestions == [
        {
            "reason": "the prompt never asks for weather",
            "assertion": "The reply mentions the weather",
        }
    ]


@pytest.mark.parametrize("name", ["anthropic", "openai"])
async def test_judge_reads_the_workspace_then_answers(
    fake_llm: FakeLLM, build: Build, name: str
) -> None:
    fake_llm.enqueue(
        Reply(calls=(Call("Read", {"file_path": "hello.txt"}),)),
        Reply(calls=(Call("submit_grading", ANSWER),)),
    )
    box = FakeToolBox({"hello.txt": "Hello, Ada!"})
    transcript = Transcript(final_text="Done.", changed_files=["hello.txt"])
    results, report = await _judge(build(name), name, tools=box, transcript=transcript, max_turns=2)

    first, second = fake_llm.requests
    assert "tool_choice" not in first.body  # free to inspect first; forced on the last turn
    assert "tool_choice" in second.body
    assert second.tool_results == ["Hello, Ada!"]
    assert [c[0] for c in box.calls] == ["Read"]
    assert results[0].passed is True and report.usage.calls == 2


@pytest.mark.parametrize("name", ["anthropic", "openai"])
async def test_garbage_from_the_wire_fails_every_item(
    fake_llm: FakeLLM, build: Build, name: str
) -> None:
    fake_llm.enqueue(
        Reply(calls=(Call("submit_grading", raw="{not json"),))
        if name == "openai"
        else Reply(text="no idea")
    )
    results, report = await _judge(build(name), name)
    assert len(fake_llm.requests) == 1
    assert {r.evidence for r in results} == {"judge error: no JSON verdicts in response"}
    assert report.error == "no JSON verdicts in response"
