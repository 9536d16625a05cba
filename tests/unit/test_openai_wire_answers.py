"""Chat Completions answers read from their JSON: what servers send, and what they get wrong."""

from __future__ import annotations

from typing import Any

import pytest

from evolve_action.execute.providers.faults import MalformedResponse
from evolve_action.execute.providers.openai_wire import parse_completion


def _answer(message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    choice = {"index": 0, "message": message, "finish_reason": extra.pop("finish", "stop")}
    return {
        "id": "c1",
        "object": "chat.completion",
        "model": "m-served",
        "choices": [choice],
    } | extra


def test_text_usage_and_cache_counts() -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 7,
        "prompt_tokens_details": {"cached_tokens": 60, "cache_write_tokens": 10},
    }
    got = parse_completion(_answer({"role": "assistant", "content": "hi"}, usage=usage), model="m")
    assert (got.text, got.stop_reason, got.model) == ("hi", "end_turn", "m-served")
    u = got.usage
    assert (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens) == (
        30,
        7,
        60,
        10,
    )


def test_tool_calls_keep_their_exact_arguments_and_stop_is_tool_use() -> None:
    calls = [
        {"id": "t1", "type": "function", "function": {"name": "Read", "arguments": '{"p": 1}'}},
        {"id": "t2", "function": {"name": "Bash", "arguments": "{}"}},  # no "type": a function
        {"id": "t3", "type": "custom", "custom": {"name": "x"}},  # never offered: left out
    ]
    got = parse_completion(
        _answer({"role": "assistant", "content": None, "tool_calls": calls}), model="m"
    )
    assert [(u.id, u.name, u.arguments) for u in got.tool_uses] == [
        ("t1", "Read", '{"p": 1}'),
        ("t2", "Bash", "{}"),
    ]
    assert got.stop_reason == "tool_use" and got.text == ""


def test_what_compatible_servers_leave_out_is_read_as_nothing() -> None:
    """No usage (or `null`), no finish reason, a content that is not text."""
    got = parse_completion(
        _answer({"content": ["not", "a string"]}, finish=None, usage=None), model="m"
    )
    assert (got.text, got.stop_reason, got.usage.input_tokens, got.model) == (
        "",
        "other",
        0,
        "m-served",
    )
    assert got.usage.calls == 1


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ({"choices": []}, MalformedResponse),
        ({"choices": "x"}, MalformedResponse),
        ([1, 2], TypeError),
        ({"choices": [{"finish_reason": "stop"}]}, KeyError),
        ({"choices": [{"message": "text"}]}, TypeError),
        ({"choices": [{"message": {"tool_calls": {"a": 1}}}]}, TypeError),
        ({"choices": [{"message": {"tool_calls": [{"id": "t"}]}}]}, TypeError),
        # A usage without its counts (one library's camelCase) is malformed, never free.
        (_answer({"content": "x"}, usage={"promptTokens": 9, "completionTokens": 2}), TypeError),
        (
            _answer({"content": "x"}, usage={"prompt_tokens": "9", "completion_tokens": 2}),
            TypeError,
        ),
        (_answer({"content": "x"}, usage=5), TypeError),
    ],
)
def test_a_malformed_answer_raises_what_the_adapter_reports(answer: Any, error: type) -> None:
    with pytest.raises(error):
        parse_completion(answer, model="m")
