"""The fake LLM server's Gemini API (`tests/fakes/gemini_wire.py`), over loopback HTTP.

Gemini CLI itself talks to it in test_cli_gemini_fake.py; here the wire's details are pinned
down: the routes, a scripted conversation read back through the request accessors the
scripts use, function calls, the usage and its implicit cache, the streamed form, Google's
error shape and the key header.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from tests.fakes.gemini_wire import is_route
from tests.fakes.llm_server import Call, FakeLLM, Fault, Reply, call, scripted_agent, text

MODEL_PATH = "/v1beta/models/gemini-2.5-flash"
BODY = {
    "systemInstruction": {"parts": [{"text": "You are terse."}]},
    "tools": [{"functionDeclarations": [{"name": "activate_skill"}, {"name": "write_file"}]}],
    "contents": [
        {"role": "user", "parts": [{"text": "Say hello."}]},
        {"role": "model", "parts": [{"functionCall": {"name": "activate_skill", "args": {}}}]},
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "activate_skill", "response": {"output": "ok"}}}
            ],
        },
    ],
}


def post(fake: FakeLLM, path: str, body: Any, key: str = "k") -> tuple[int, bytes, str]:
    request = urllib.request.Request(
        fake.gemini_base_url + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "x-goog-api-key": key},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read(), answer.headers["content-type"]
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers["content-type"]


def test_routes() -> None:
    assert is_route(f"{MODEL_PATH}:generateContent")
    assert is_route(f"{MODEL_PATH}:streamGenerateContent")
    assert is_route("/v1beta/models/gemini-3-pro:countTokens")
    assert not is_route(f"{MODEL_PATH}:embedContent") and not is_route("/v1/messages")


def test_a_conversation_is_read_like_any_other_wire() -> None:
    with FakeLLM(
        scripted_agent(text("first"), calls(Call("write_file", {"a": 1}), "Writing."))
    ) as fake:
        status, raw, _ = post(fake, f"{MODEL_PATH}:generateContent", BODY)
    request = fake.requests[0]
    assert status == 200 and request.api == "gemini" and request.model == "gemini-2.5-flash"
    assert request.turn == 1 and request.system == "You are terse." and not request.stream
    assert request.tool_names == ["activate_skill", "write_file"]
    assert request.tool_results == ['{"output": "ok"}']
    answer = json.loads(raw)
    parts = answer["candidates"][0]["content"]["parts"]
    assert parts[0] == {"text": "Writing."}
    assert parts[1]["functionCall"]["name"] == "write_file"
    assert parts[1]["functionCall"]["args"] == {"a": 1}
    assert answer["candidates"][0]["finishReason"] == "STOP"
    usage = answer["usageMetadata"]
    assert usage["totalTokenCount"] == usage["promptTokenCount"] + usage["candidatesTokenCount"]


def calls(call_: Call, said: str) -> Reply:
    return Reply(text=said, calls=(call_,))


def test_the_stream_is_the_same_answer_in_sse_chunks_with_the_usage_last() -> None:
    with FakeLLM(lambda r: calls(Call("activate_skill", {"name": "greeter"}), "Loading.")) as fake:
        status, raw, kind = post(fake, f"{MODEL_PATH}:streamGenerateContent?alt=sse", BODY)
        _, again, _ = post(fake, f"{MODEL_PATH}:streamGenerateContent?alt=sse", BODY)
    chunks = [
        json.loads(block[len("data: ") :]) for block in raw.decode().split("\r\n\r\n") if block
    ]
    assert status == 200 and kind == "text/event-stream" and fake.requests[0].stream
    assert [list(c["candidates"][0]["content"]["parts"][0]) for c in chunks] == [
        ["text"],
        ["functionCall"],
    ]
    assert "usageMetadata" not in chunks[0] and chunks[1]["candidates"][0]["finishReason"]
    first = chunks[1]["usageMetadata"]
    second = json.loads(again.decode().split("\r\n\r\n")[1][len("data: ") :])["usageMetadata"]
    assert "cachedContentTokenCount" not in first  # the prefix is cached from its second sight
    assert second["cachedContentTokenCount"] > 0


def test_errors_come_in_googles_shape_and_the_key_is_checked() -> None:
    with FakeLLM(lambda r: text("ok"), api_key="right") as fake:
        refused, body, _ = post(fake, f"{MODEL_PATH}:generateContent", BODY, key="wrong")
        fake.enqueue(Fault(429, retry_after=2))
        limited, limited_body, _ = post(fake, f"{MODEL_PATH}:generateContent", BODY, key="right")
        counted, count, _ = post(fake, f"{MODEL_PATH}:countTokens", BODY, key="right")
    assert refused == 401 and json.loads(body)["error"]["status"] == "UNAUTHENTICATED"
    error = json.loads(limited_body)["error"]
    assert limited == 429 and error == {
        "code": 429,
        "message": "fake error 429",
        "status": "RESOURCE_EXHAUSTED",
    }
    assert counted == 200 and json.loads(count)["totalTokens"] > 0


def test_the_other_wires_are_untouched() -> None:
    with FakeLLM(lambda r: call("Bash", command="ls")) as fake:
        request = urllib.request.Request(
            fake.anthropic_base_url + "/v1/messages",
            data=json.dumps({"model": "m", "messages": []}).encode(),
            headers={"x-api-key": "k", "content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            body = json.loads(answer.read())
    assert body["content"][0]["name"] == "Bash" and fake.requests[0].api == "anthropic"
