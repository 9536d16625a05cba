"""`AnthropicProvider`: one Messages API call per `complete`, on the official async SDK.

Retries live in `faults.RetryingProvider` (the registry wraps this adapter in it); failures
leave here already classified as `CallError`s.
"""

from __future__ import annotations

import ssl

from anthropic import AsyncAnthropic, DefaultAsyncHttpxClient

from evolve_action.providers import transport
from evolve_action.providers.anthropic_wire import build_body, parse_message
from evolve_action.providers.base import ChatRequest, ChatResponse
from evolve_action.providers.faults import MalformedResponse, classify

PROVIDER_ID = "anthropic"


class AnthropicProvider:
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
        # An explicit timeout also stops the SDK refusing large non-streaming `max_tokens`.
        self.client = AsyncAnthropic(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout_s,
            max_retries=sdk_max_retries,
            http_client=http_client,
        )

    async def complete(self, request: ChatRequest) -> ChatResponse:
        body = build_body(request)
        try:
            message = await self.client.messages.create(**body)
        except Exception as exc:
            raise classify(exc, provider=self.id) from exc
        try:
            return parse_message(message, model=request.model)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            # The SDK does not validate answers: valid JSON missing its fields lands here.
            error = MalformedResponse(f"{type(exc).__name__}: {exc}")
            raise classify(error, provider=self.id) from exc

    async def aclose(self) -> None:
        await self.client.close()
