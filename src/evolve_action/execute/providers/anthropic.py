"""`AnthropicProvider`: one Messages API call per `complete`, on the official async SDK.

Retries live in `faults.RetryingProvider` (the registry wraps this adapter in it); failures
leave here already classified as `CallError`s (`sdk.SdkAdapter`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evolve_action.execute.providers.anthropic_wire import build_body, parse_message
from evolve_action.execute.providers.sdk import SdkAdapter
from evolve_action.model.provider import ChatRequest, ChatResponse

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

PROVIDER_ID = "anthropic"


class AnthropicProvider(SdkAdapter["AsyncAnthropic"]):
    id = PROVIDER_ID

    def _new_client(self, options: dict[str, Any], http: dict[str, Any]) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic, DefaultAsyncHttpxClient

        return AsyncAnthropic(**options, http_client=DefaultAsyncHttpxClient(**http))

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        return build_body(request)

    async def _send(self, client: AsyncAnthropic, body: dict[str, Any]) -> Any:
        # Posted as the plain JSON it is, and answered as the server's JSON (`cast_to=object`,
        # `answer_json.py`), as OpenAI's adapter does: `messages.create` would walk the body
        # against its parameter types and build response models we read five fields of.
        return await client.post("/v1/messages", body=body, cast_to=object)

    def _parse(self, answer: Any, model: str) -> ChatResponse:
        return parse_message(answer, model=model)
