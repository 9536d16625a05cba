"""`OpenAIProvider`: one Chat Completions call per `complete`, on the official async SDK.

With a `base_url` it serves any OpenAI-compatible server (vLLM, Ollama, a gateway). Retries
live in `faults.RetryingProvider`; failures leave here already classified.
"""

from __future__ import annotations

import ssl

from openai import AsyncOpenAI, DefaultAsyncHttpxClient

from evolve_action.providers import transport
from evolve_action.providers.base import ChatRequest, ChatResponse
from evolve_action.providers.faults import MalformedResponse, classify
from evolve_action.providers.openai_wire import build_body, parse_completion

PROVIDER_ID = "openai"


class OpenAIProvider:
    id = PROVIDER_ID

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float = 600.0,
        sdk_max_retries: int = 0,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        # The SDK's own default HTTP client (its connection limits and socket options), with
        # the SSL context every client shares instead of one CA bundle load per client.
        http_client = DefaultAsyncHttpxClient(verify=ssl_context or transport.ssl_context())
        self.client = AsyncOpenAI(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout_s,
            max_retries=sdk_max_retries,
            http_client=http_client,
        )

    async def complete(self, request: ChatRequest) -> ChatResponse:
        body = build_body(request)
        try:
            completion = await self.client.chat.completions.create(**body)
        except Exception as exc:
            raise classify(exc, provider=self.id) from exc
        try:
            return parse_completion(completion, model=request.model)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            # The SDK does not validate answers: valid JSON missing its fields lands here.
            error = MalformedResponse(f"{type(exc).__name__}: {exc}")
            raise classify(error, provider=self.id) from exc

    async def aclose(self) -> None:
        await self.client.close()
