"""`OpenAIProvider`: one Chat Completions call per `complete`, on the official async SDK.

With a `base_url` it serves any OpenAI-compatible server (vLLM, Ollama, a gateway). Retries
live in `faults.RetryingProvider`; failures leave here already classified (`sdk.SdkAdapter`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evolve_action.execute.providers.openai_wire import build_body, parse_completion
from evolve_action.execute.providers.sdk import SdkAdapter
from evolve_action.model.provider import ChatRequest, ChatResponse

if TYPE_CHECKING:
    from openai import AsyncOpenAI, RequestOptions

PROVIDER_ID = "openai"

# The key goes as `Authorization: Bearer`, as `create` asks for it.
_BEARER: RequestOptions = {"security": {"bearer_auth": True}}


class OpenAIProvider(SdkAdapter["AsyncOpenAI"]):
    id = PROVIDER_ID

    def _new_client(self, options: dict[str, Any], http: dict[str, Any]) -> AsyncOpenAI:
        from openai import AsyncOpenAI, DefaultAsyncHttpxClient

        return AsyncOpenAI(**options, http_client=DefaultAsyncHttpxClient(**http))

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        return build_body(request)

    async def _send(self, client: AsyncOpenAI, body: dict[str, Any]) -> Any:
        # The body is plain JSON already (`build_body`), which `chat.completions.create`
        # would walk again against its parameter types on every call (about 40% of the CPU
        # a call costs, `bench/README.md`) to give back the same dict; posting it skips that
        # walk and keeps the rest of the SDK: its headers, key, retries and errors. The answer
        # comes back as its JSON (`cast_to=object`), which `parse_completion` reads: building
        # the SDK's response models for five fields cost more than reading them.
        return await client.post("/chat/completions", body=body, cast_to=object, options=_BEARER)

    def _parse(self, answer: Any, model: str) -> ChatResponse:
        return parse_completion(answer, model=model)
