"""The fake LLM server as GitHub's Copilot API (`api.githubcopilot.com`), for the keyless
Copilot of Actions: the workflow's GITHUB_TOKEN is the bearer of every request.

Found by pointing the real Copilot CLI (1.0.102, `COPILOT_API_URL`) at a loopback server: it
lists the models (`GET /models`), then calls `POST /v1/messages` (the Messages API, with the
token as `authorization: Bearer`) for a Claude model, which the fake's Anthropic route
answers. A model must advertise an output limit of at least the CLI's request (32,000
tokens), else the CLI refuses it before calling. A token the fake was not given gets 403 on
the listing, as GitHub's answer to a token without `copilot-requests: write` is assumed to
be (its text is GitHub's for a token lacking a permission).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PATH = "/models"
REFUSAL = {
    "message": "Resource not accessible by integration",
    "documentation_url": "https://docs.github.com/rest",
}


def _model(model_id: str, vendor: str, endpoints: list[str]) -> dict[str, Any]:
    limits = {
        "max_context_window_tokens": 200_000,
        "max_prompt_tokens": 128_000,
        "max_output_tokens": 64_000,
    }
    supports = {"streaming": True, "tool_calls": True, "parallel_tool_calls": True}
    return {
        "id": model_id,
        "name": model_id,
        "vendor": vendor,
        "version": model_id,
        "object": "model",
        "preview": False,
        "model_picker_enabled": True,
        "policy": {"state": "enabled"},
        "supported_endpoints": endpoints,
        "capabilities": {
            "family": model_id,
            "type": "chat",
            "object": "model_capabilities",
            "limits": limits,
            "supports": supports,
        },
    }


MODELS = {
    "object": "list",
    "data": [
        _model("claude-sonnet-4.6", "Anthropic", ["/v1/messages", "/chat/completions"]),
        _model("gpt-5.4", "Azure OpenAI", ["/responses", "/chat/completions"]),
    ],
}


def answer(headers: Mapping[str, str], expected: str | None) -> tuple[int, dict[str, Any]]:
    """`GET /models`: the listing, or 403 for a token other than `expected` (when set)."""
    bearer = headers.get("authorization", "")
    given = bearer.split(" ", 1)[1] if " " in bearer else ""
    if not given or (expected is not None and given != expected):
        return 403, REFUSAL
    return 200, MODELS
