"""The batched judge: one session per run, numbered items, tolerant parsing, loud failures."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evolve_action.grade.judge import judge_run
from evolve_action.grade.judge_parse import find_grading, verdicts
from evolve_action.model.evals import (
    Case,
    CaseExtra,
    Fixture,
    JudgeItem,
    JudgeParams,
    Origin,
    Scale,
)
from evolve_action.model.outcomes import ErrorKind, ItemResult, JudgeReport, Transcript
from evolve_action.model.provider import ChatRequest, ChatResponse, ProviderError
from tests.unit.judge_fakes import FakeToolBox, ScriptedProvider, submit, text, tool

ORIGIN = Origin("evals/s/evals.json", 3)
MODEL = "anthropic/claude-sonnet-4-6"


def item(item_id: str, body: str, scale: Scale = Scale.BINARY, **kw: Any) -> JudgeItem:
    return JudgeItem(item_id, body, ORIGIN, scale=scale, **kw)


FIVE = [
    item("e1", "The reply greets the user"),
    item(
        "correctness",
        "Is the answer correct?",
        Scale.LIKERT5,
        anchors={"1": "wrong", "5": "all right", "3": "partly"},
    ),
    item("r1", "Covers edge cases", Scale.RANGE10, anchors={"0": "none", "7": "most"}),
    item("c1", "Cites sources", Scale.UNIT),
    item("x", "Extract the entries", kind="extract", params=JudgeParams(schema={"type": "object"})),
]


def case(**kw: Any) -> Case:
    return Case("c", "do the task", ORIGIN, **kw)


async def judge(
    provider: ScriptedProvider,
    items: list[JudgeItem],
    *,
    c: Case | None = None,
    transcript: Transcript | None = None,
    tools: FakeToolBox | None = None,
    timeout_s: float = 5.0,
    max_turns: int = 4,
) -> tuple[list[ItemResult], JudgeReport]:
    c = c or case()
    return await judge_run(
        provider=provider,
        model=MODEL,
        case=c,
        items=items,
        transcript=transcript or Transcript(final_text="Hello, Ada!"),
        tools=tools,
        max_turns=max_turns,
        timeout_s=timeout_s,
    )


FULL_ANSWER = {
    "expectations": [{"id": 1, "passed": True, "evidence": "says Hello, Ada!"}],
    "rubric_scores": {
        "2": {"score": 4, "evidence": "mostly right"},
        "3": {"score": 8, "evidence": "most cases"},
        "4": {"score": 0.4, "evidence": "one source"},
    },
    "extractions": {"5": {"Section": {"tier": [{"name": "a"}]}}},
    "claims": [{"claim": "It works", "type": "factual", "verified": False, "evidence": "untested"}],
    "eval_feedback": {
        "suggestions": [
            {"assertion": 1, "reason": "passes for any greeting"},
            {"reason": "nothing checks the file"},
        ],
        "overall": "weak",
    },
}


async def test_five_items_one_call_numbered_and_forced() -> None:
    provider = ScriptedProvider([submit(FULL_ANSWER)])
    results, report = await judge(provider, FIVE)
    assert len(provider.requests) == 1
    request = provider.requests[0]
    assert request.model == "claude-sonnet-4-6"
    assert request.force_tool == "submit_grading"
    assert [t.name for t in request.tools] == ["submit_grading"]
    prompt = provider.prompt
    for n, it in enumerate(FIVE, 1):
        assert f"{n}. [" in prompt and it.text in prompt
    assert (
        prompt.index("1. [pass/fail]")
        < prompt.index("2. [score 1-5]")
        < prompt.index("5. [extract]")
    )
    # Anchors in numeric order under their item.
    assert prompt.index("1 = wrong") < prompt.index("3 = partly") < prompt.index("5 = all right")
    assert [r.item_id for r in results] == ["e1", "correctness", "r1", "c1", "x"]
    assert report.called and report.model == MODEL and report.error == ""
    assert report.usage.calls == 1 and report.usage.input_tokens == 10


async def test_each_scale_maps_to_score_and_pass() -> None:
    provider = ScriptedProvider([submit(FULL_ANSWER)])
    results, report = await judge(provider, FIVE)
    binary, likert, range10, unit, extract = results
    assert (binary.passed, binary.score, binary.evidence) == (True, 1.0, "says Hello, Ada!")
    assert (likert.passed, likert.score, likert.raw_score) == (True, 0.75, 4.0)
    assert (range10.passed, range10.score, range10.raw_score) == (True, 0.8, 8.0)
    assert (unit.passed, unit.score) == (False, 0.4)
    assert extract.passed is True and report.extractions == {
        "x": {"Section": {"tier": [{"name": "a"}]}}
    }
    assert all(r.kind == "judge" for r in results)
    assert report.claims[0]["claim"] == "It works" and report.claims[0]["verified"] is False
    # A suggestion naming an item by number is shown with the item's text.
    assert report.feedback.suggestions == [
        {"reason": "passes for any greeting", "assertion": "The reply greets the user"},
        {"reason": "nothing checks the file"},
    ]
    assert report.feedback.overall == "weak"


@pytest.mark.parametrize(
    ("scale", "raw", "kw", "passed", "score"),
    [
        (Scale.LIKERT5, 3, {}, True, 0.5),
        (Scale.LIKERT5, 2, {}, False, 0.25),
        (Scale.LIKERT5, 1, {}, False, 0.0),
        (Scale.RANGE10, 6, {}, False, 0.6),
        (Scale.RANGE10, 7, {}, True, 0.7),
        (Scale.RANGE10, 9, {"required": 1.0}, False, 0.9),
        (Scale.RANGE10, 5, {"required": 0.5}, True, 0.5),
        (Scale.UNIT, 0.5, {}, True, 0.5),
    ],
)
async def test_scale_boundaries(
    scale: Scale, raw: float, kw: dict[str, Any], passed: bool, score: float
) -> None:
    provider = ScriptedProvider([submit({"rubric_scores": {"1": {"score": raw, "evidence": "e"}}})])
    [result], _ = await judge(provider, [item("i", "dimension", scale, **kw)])
    assert (result.passed, result.score, result.raw_score) == (passed, score, raw)


async def test_score_out_of_range_fails_that_item() -> None:
    answer = {
        "expectations": [{"id": 1, "passed": True, "evidence": "ok"}],
        "rubric_scores": {"2": {"score": 7}},
    }
    provider = ScriptedProvider([submit(answer)])
    results, _ = await judge(provider, FIVE[:2])
    assert results[0].passed is True
    assert (
        results[1].passed is False
        and results[1].evidence == "judge error: score 7 outside 1-5 for item 2"
    )


async def test_expected_output_only_when_non_empty_and_cut() -> None:
    provider = ScriptedProvider(
        [submit({"expectations": [{"id": 1, "passed": True, "evidence": ""}]})]
    )
    await judge(provider, FIVE[:1], c=case(expected_output="   "))
    assert "expected output" not in provider.prompt
    provider = ScriptedProvider(
        [submit({"expectations": [{"id": 1, "passed": True, "evidence": ""}]})]
    )
    await judge(provider, FIVE[:1], c=case(expected_output="é" * 1500 + "TAIL"))
    assert "not a separate item" in provider.prompt
    body = provider.prompt.split("---\n")[1]
    assert body.rstrip("\n") == "é" * 1000  # 2000 bytes, no character split
    assert "TAIL" not in provider.prompt


async def test_final_answer_cut_to_8000_bytes() -> None:
    provider = ScriptedProvider(
        [submit({"expectations": [{"id": 1, "passed": True, "evidence": ""}]})]
    )
    final = "a" * 7999 + "€" + "END"
    await judge(provider, FIVE[:1], transcript=Transcript(final_text=final))
    assert "a" * 7999 + "\n---" in provider.prompt  # the 3-byte € would cross the limit
    assert "END" not in provider.prompt


async def test_evidence_cut_to_200_bytes() -> None:
    answer = {"expectations": [{"id": 1, "passed": False, "evidence": "x" * 199 + "ü" + "y" * 50}]}
    [result], _ = await judge(ScriptedProvider([submit(answer)]), FIVE[:1])
    assert result.evidence == "x" * 199


async def test_garbage_fails_only_judge_items_loudly() -> None:
    provider = ScriptedProvider([text("I think it all looks fine!")])
    results, report = await judge(provider, FIVE)
    assert all(r.passed is False for r in results)
    assert {r.evidence for r in results} == {"judge error: no JSON verdicts in response"}
    assert report.error == "no JSON verdicts in response" and report.called


async def test_truncated_answer_says_why() -> None:
    provider = ScriptedProvider([ChatResponse("", (), "max_tokens")])
    results, _ = await judge(provider, FIVE[:1])
    assert results[0].evidence == "judge error: no JSON verdicts in response (stopped: max_tokens)"


async def test_missing_verdict_fails_that_item_and_extra_ids_are_ignored() -> None:
    items = [item("a", "A"), item("b", "B"), item("c", "C")]
    answer = {
        "expectations": [
            {"id": 1, "passed": True, "evidence": "a"},
            {"id": 3, "passed": True, "evidence": "c"},
            {"id": 4, "passed": True, "evidence": "extra"},
            {"id": 1, "passed": False, "evidence": "duplicate"},
        ]
    }
    results, _ = await judge(ScriptedProvider([submit(answer)]), items)
    assert [(r.passed, r.evidence) for r in results] == [
        (True, "a"),
        (False, "judge error: no verdict for item 2"),
        (True, "c"),
    ]


async def test_envelope_found_in_prose_and_code_fences() -> None:
    envelope = {
        "verdicts": [
            {"id": 1, "passed": True, "evidence": "yes"},
            {"id": 2, "passed": False, "evidence": "no"},
        ]
    }
    reply = f"Here you go {{not json}}\n```json\n{json.dumps(envelope)}\n```\nDone."
    provider = ScriptedProvider([text(reply)])
    results, _ = await judge(provider, [item("a", "A"), item("b", "B")])
    assert [(r.passed, r.evidence) for r in results] == [(True, "yes"), (False, "no")]


async def test_expectations_without_ids_follow_binary_order() -> None:
    items = [item("a", "A"), item("d", "D", Scale.LIKERT5), item("b", "B")]
    answer = {
        "expectations": [
            {"text": "A", "passed": True, "evidence": ""},
            {"text": "B", "passed": False, "evidence": ""},
        ],
        "rubric_scores": [{"dimension": "d", "score": 5, "evidence": "great"}],
    }
    results, _ = await judge(ScriptedProvider([submit(answer)]), items)
    assert [r.passed for r in results] == [True, True, False]
    assert results[1].score == 1.0


@pytest.mark.parametrize(
    ("answer", "passed", "evidence"),
    [
        ('{"pass": true, "score": 1, "reason": "greets"}', True, "greets"),
        ('{"passed": false, "reason": "no greeting"}', False, "no greeting"),
    ],
)
async def test_single_verdict_shape_with_one_item(answer: str, passed: bool, evidence: str) -> None:
    [result], _ = await judge(ScriptedProvider([text(answer)]), FIVE[:1])
    assert (result.passed, result.evidence) == (passed, evidence)


async def test_single_verdict_shape_scores_a_unit_item() -> None:
    [result], _ = await judge(
        ScriptedProvider([text('{"pass": true, "score": 0.9, "reason": "r"}')]), [FIVE[3]]
    )
    assert (result.passed, result.score) == (True, 0.9)


async def test_single_verdict_shape_is_ignored_with_two_items() -> None:
    results, _ = await judge(ScriptedProvider([text('{"pass": true, "reason": "r"}')]), FIVE[:2])
    assert all(r.evidence == "judge error: no JSON verdicts in response" for r in results)


async def test_no_tools_when_nothing_to_inspect() -> None:
    box = FakeToolBox({})
    provider = ScriptedProvider(
        [submit({"expectations": [{"id": 1, "passed": True, "evidence": ""}]})]
    )
    await judge(provider, FIVE[:1], tools=box)
    assert [t.name for t in provider.requests[0].tools] == ["submit_grading"]
    assert "current directory" not in provider.prompt


async def test_workspace_tools_loop_then_forced_answer(tmp_path: Path) -> None:
    box = FakeToolBox({"status.txt": "ready"})
    fixture = Fixture(tmp_path / "seed.txt", "seed.txt", ORIGIN)
    provider = ScriptedProvider(
        [
            tool("Read", {"file_path": "status.txt"}),
            tool("Read", {"file_path": "missing.txt"}, "call-2"),
            submit(
                {"expectations": [{"id": 1, "passed": True, "evidence": "status.txt says ready"}]}
            ),
        ]
    )
    results, report = await judge(
        provider,
        FIVE[:1],
        c=case(files=(fixture,)),
        transcript=Transcript(final_text="done", changed_files=["status.txt"]),
        tools=box,
        max_turns=3,
    )
    assert results[0].passed is True
    assert [r.force_tool for r in provider.requests] == [None, None, "submit_grading"]
    assert [t.name for t in provider.requests[0].tools] == ["Read", "submit_grading"]
    assert box.calls == [
        ("Read", '{"file_path": "status.txt"}'),
        ("Read", '{"file_path": "missing.txt"}'),
    ]
    # The tool result goes back under the model's own call id.
    result_part = provider.requests[1].messages[-1].parts[0]
    assert result_part.tool_use_id == "call-1" and result_part.content == "ready"
    assert provider.requests[2].messages[-1].parts[0].is_error is True
    assert report.usage.calls == 3
    # Requests are deterministic: the workspace is "the current directory", never a temp path.
    assert "current directory" in provider.prompt
    assert all(str(tmp_path) not in json.dumps(str(r)) for r in provider.requests)


async def test_a_text_answer_before_the_last_turn_is_accepted() -> None:
    box = FakeToolBox({})
    provider = ScriptedProvider(
        [text('{"expectations": [{"id": 1, "passed": false, "evidence": "no"}]}')]
    )
    [result], _ = await judge(
        provider, FIVE[:1], transcript=Transcript(changed_files=["a"]), tools=box
    )
    assert (result.passed, len(provider.requests)) == (False, 1)


async def test_prose_before_the_last_turn_is_nudged() -> None:
    box = FakeToolBox({})
    provider = ScriptedProvider(
        [
            text("Let me think."),
            submit({"expectations": [{"id": 1, "passed": True, "evidence": ""}]}),
        ]
    )
    [result], _ = await judge(
        provider, FIVE[:1], transcript=Transcript(changed_files=["a"]), tools=box, max_turns=2
    )
    assert result.passed is True
    last = provider.requests[1].messages
    assert last[-1].parts[0].text.startswith("Now call submit_grading")


async def test_provider_failure_fails_every_item() -> None:
    provider = ScriptedProvider(
        [ProviderError(ErrorKind.QUOTA, "rate limited", provider="anthropic")]
    )
    results, report = await judge(provider, FIVE)
    assert {r.evidence for r in results} == {"judge error: anthropic: quota: rate limited"}
    assert all(r.passed is False and r.score == 0.0 for r in results)
    assert report.error == "anthropic: quota: rate limited"


async def test_timeout_fails_every_item() -> None:
    async def slow(request: ChatRequest) -> ChatResponse:
        await asyncio.sleep(5)
        raise AssertionError("unreachable")

    class Slow(ScriptedProvider):
        async def complete(self, request: ChatRequest) -> ChatResponse:
            return await slow(request)

    results, _report = await judge(Slow([]), FIVE[:2], timeout_s=0.05)
    assert {r.evidence for r in results} == {"judge error: timed out after 0.05s"}


async def test_no_items_no_call() -> None:
    provider = ScriptedProvider([])
    results, report = await judge(provider, [])
    assert results == [] and not report.called and provider.requests == []


async def test_submit_tool_schema_has_a_slot_per_scored_and_extract_item() -> None:
    provider = ScriptedProvider([submit(FULL_ANSWER)])
    await judge(provider, FIVE)
    schema = provider.requests[0].tools[0].input_schema
    assert sorted(schema["properties"]["rubric_scores"]["properties"]) == ["2", "3", "4"]
    assert (
        schema["properties"]["rubric_scores"]["properties"]["2"]["properties"]["score"]["maximum"]
        == 5.0
    )
    assert schema["properties"]["extractions"]["properties"] == {"5": {"type": "object"}}


async def test_claims_and_feedback_are_normalized() -> None:
    answer = {
        "expectations": [{"id": 1, "passed": True, "evidence": "ok"}],
        "claims": [
            {"claim": "Fast", "type": "Quality", "verified": "yes", "evidence": 3},
            {"claim": "Odd", "type": "rumour", "verified": True},
            "not a claim",
        ],
        "eval_feedback": {"suggestions": {"reason": "not a list"}, "overall": 5},
    }
    _, report = await judge(ScriptedProvider([submit(answer)]), FIVE[:1])
    assert report.claims == [
        {"claim": "Fast", "type": "quality", "verified": False, "evidence": "3"},
        {"claim": "Odd", "type": "factual", "verified": True, "evidence": ""},
    ]
    assert report.feedback.suggestions == [] and report.feedback.overall == "5"


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_answer_never_raises_and_never_passes_silently(body: str) -> None:
    items = [item("a", "A"), item("b", "B", Scale.LIKERT5)]
    grading = find_grading(body, items)
    if grading is None:
        return
    for number, result in enumerate(verdicts(items, grading), 1):
        # A pass always rests on a verdict the judge really wrote for that item.
        assert not result.passed or number in grading.entries


@settings(max_examples=100, deadline=None)
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=5),
        lambda kids: (
            st.lists(kids, max_size=3)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "id",
                        "passed",
                        "score",
                        "expectations",
                        "rubric_scores",
                        "verdicts",
                        "evidence",
                        "1",
                        "2",
                    ]
                ),
                kids,
                max_size=4,
            )
        ),
        max_leaves=12,
    )
)
def test_any_json_answer_never_raises(value: Any) -> None:
    items = [item("a", "A"), item("b", "B", Scale.RANGE10)]
    grading = find_grading(json.dumps(value), items)
    if grading is not None:
        results = verdicts(items, grading)
        assert len(results) == 2
        assert all(r.score is not None and 0.0 <= r.score <= 1.0 for r in results)


# --- OpenAI: the one-call grading is a JSON schema on the answer (docs/design.md §Judge) -----


async def test_openai_with_nothing_to_inspect_asks_for_json_without_tools() -> None:
    provider = ScriptedProvider([text(json.dumps(FULL_ANSWER))], id="openai")
    results, report = await judge(provider, FIVE, tools=FakeToolBox({}))
    [request] = provider.requests
    assert request.tools == () and request.force_tool is None
    assert request.response_schema is not None
    assert request.response_schema["required"] == [
        "expectations",
        "rubric_scores",
        "claims",
        "eval_feedback",
    ]
    assert "submit_grading" not in request.system and "one JSON object" in request.system
    assert "Answer with one JSON object with:" in provider.prompt
    assert "submit_grading" not in provider.prompt
    assert report.error == "" and report.usage.calls == 1
    assert [r.passed for r in results] == [True, True, True, False, True]


async def test_openai_json_answer_accepts_a_bare_verdict_for_one_item() -> None:
    # The shape other runners' judges answer with (and the peers kit's fake server).
    verdict = {"reason": "mentions it", "pass": True, "score": 1.0, "assertions": []}
    provider = ScriptedProvider([text(json.dumps(verdict))], id="openai")
    [result], report = await judge(provider, FIVE[:1])
    assert result.passed is True and report.error == ""


async def test_openai_json_answer_that_grades_nothing_fails_loudly() -> None:
    provider = ScriptedProvider([text('{"query": "kw1x"}')], id="openai")
    results, report = await judge(provider, FIVE[:2])
    assert report.error == "no JSON verdicts in response"
    assert all(r.passed is False for r in results)


async def test_openai_with_files_to_inspect_keeps_the_tool_loop() -> None:
    box = FakeToolBox({"out.txt": "hi"})
    answer = submit({"expectations": [{"id": 1, "passed": True}]})
    provider = ScriptedProvider([answer], id="openai")
    transcript = Transcript(final_text="done", changed_files=["out.txt"])
    await judge(provider, FIVE[:1], tools=box, transcript=transcript, max_turns=1)
    [request] = provider.requests
    assert request.response_schema is None and request.force_tool == "submit_grading"
    assert "submit_grading" in [t.name for t in request.tools]


async def test_anthropic_with_nothing_to_inspect_keeps_the_forced_tool() -> None:
    provider = ScriptedProvider([submit({"expectations": []})], id="anthropic")
    await judge(provider, FIVE[:1])
    [request] = provider.requests
    assert request.response_schema is None and request.force_tool == "submit_grading"


def test_build_prompt__agentv_cases_carry_their_question_outcome_and_note() -> None:
    from evolve_action.grade.judge_prompt import build_prompt
    from evolve_action.model.evals import Case, JudgeItem, Origin
    from evolve_action.model.outcomes import Transcript

    origin = Origin("EVAL.yaml", 3)
    item = JudgeItem("rubric-1", "Mentions Paris", origin)
    agentv = Case(
        id="capital",
        prompt="What is the capital of France?",
        origin=origin,
        items=(item,),
        extra=CaseExtra(expected_outcome="Names Paris as the capital.", question="", note="n1"),
    )
    text = build_prompt(agentv, [item], Transcript(final_text="Paris."), inspect=False)
    assert "What is the capital of France?" in text
    assert "Names Paris as the capital." in text and "n1" in text
    plain = Case(id="x", prompt="secret task prompt", origin=origin, items=(item,))
    assert "secret task prompt" not in build_prompt(plain, [item], Transcript(), inspect=False)
