"""`OpenAIProvider`: one Chat Completions call per `complete`, on the official async SDK.

With a `base_url` it serves any OpenAI-compatible server (vLLM, Ollama, a gateway). Retries
live in `faults.RetryingProvider`; failures leave here already classified.
"""

from __future__ import annotations

import ssl
from typing import TYPE_CHECKING

from evolve_action.execute.providers import transport
from evolve_action.execute.providers.base import ChatRequest, ChatResponse
from evolve_action.execute.providers.faults import MalformedResponse, classify
from evolve_action.execute.providers.openai_wire import build_body, parse_completion

if TYPE_CHECKING:
    from openai import AsyncOpenAI

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
        self._api_key, self._base_url = api_key, base_url
        self._timeout_s, self._sdk_max_retries = timeout_s, sdk_max_retries
        self._ssl_context = ssl_context
        self._client: AsyncOpenAI | None = None

    @property
    def client(self) -> AsyncOpenAI:
        """The SDK client, built on first use, once its SDK is imported (`complete` waits for
        that off the event loop, so a run on another provider can start meanwhile)."""
        if self._client is None:
            from openai import AsyncOpenAI, DefaultAsyncHttpxClient

            # The SDK's own default HTTP client (its connection limits and socket options),
            # on the SSL context every client shares: the CA bundle loads once, not per client.
            context = self._ssl_context or transport.ssl_context()
            self._client = AsyncOpenAI(
                api_key=self._api_key,
                base_url=self._base_url,
                timeout=self._timeout_s,
                max_retries=self._sdk_max_retries,
                http_client=DefaultAsyncHttpxClient(verify=context),
            )
        return self._client

    async def complete(self, request: ChatRequest) -> ChatResponse:
        if self._client is None:
            await transport.imported(self.id)
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
        if self._client is not None:
            await self._client.close()
