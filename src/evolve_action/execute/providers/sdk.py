"""What the two SDK adapters share: a client built on first use, one call, one parse.

An adapter names its SDK's client class and says how to send a request and read the answer;
this base does the rest the same way for both. The client is built only once the SDK has been
imported (`transport.imported` waits for the worker thread that imports it, off the event
loop), on the SDK's own default HTTP client and the one SSL context every client shares, so
the CA bundle loads once per process, not once per client (and never for a server spoken to
in plain HTTP, `transport.context_for`). Each request tells `transport` it has left, which
lets the preload thread use the wait for its answer. While the courier
process is there (`courier.py`), a call on a wire it carries is handed to it instead: it
sends the call with this same adapter class, in a process that has the SDK, so this one
never imports it.
"""

from __future__ import annotations

import ssl
from typing import Any, Generic, TypeVar

from evolve_action.execute.providers import courier, transport
from evolve_action.execute.providers.faults import MalformedResponse, classify
from evolve_action.model.provider import ChatRequest, ChatResponse

C = TypeVar("C")


class SdkAdapter(Generic[C]):
    """One official async SDK behind the `Provider` contract. Subclasses set `id` and
    implement `_new_client`, `_send` and `_parse`."""

    id: str

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float = 600.0,
        sdk_max_retries: int = 0,
        ssl_context: ssl.SSLContext | None = None,
        answers_with_schema: bool = False,  # the provider's row (`provider_table.ProviderRow`)
        provider_id: str | None = None,  # a row that reuses this wire under its own id
    ) -> None:
        if provider_id is not None:
            self.id = provider_id
        self.answers_with_schema = answers_with_schema
        self._api_key, self._base_url = api_key, base_url
        self._timeout_s, self._sdk_max_retries = timeout_s, sdk_max_retries
        self._ssl_context = ssl_context
        self._client: C | None = None

    def _new_client(self, options: dict[str, Any], http: dict[str, Any]) -> C:
        """The SDK's client for `options` (key, base URL, timeout, retries), on the SDK's
        default HTTP client built with `http`."""
        raise NotImplementedError

    async def _send(self, client: C, body: dict[str, Any]) -> Any:
        raise NotImplementedError

    def _parse(self, answer: Any, model: str) -> ChatResponse:
        raise NotImplementedError

    @property
    def client(self) -> C:
        """The SDK client, built on first use, once its SDK is imported (`complete` waits for
        that off the event loop, so a run on another provider can start meanwhile)."""
        if self._client is None:
            # An explicit timeout also stops the Anthropic SDK refusing a large non-streaming
            # `max_tokens`.
            options = {
                "api_key": self._api_key,
                "base_url": self._base_url,
                "timeout": self._timeout_s,
                "max_retries": self._sdk_max_retries,
            }
            http = {
                "verify": self._ssl_context or transport.context_for(self._base_url),
                "event_hooks": {"request": [_on_request]},
            }
            self._client = self._new_client(options, http)
        return self._client

    async def complete(self, request: ChatRequest) -> ChatResponse:
        body = self._body(request)
        try:
            answer = await self._carried(body)
        except courier.NotCarried:
            answer = await self._sent(body)
        try:
            response = self._parse(answer, request.model)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            # The SDKs do not validate answers: valid JSON missing its fields lands here.
            error = MalformedResponse(f"{type(exc).__name__}: {exc}")
            raise classify(error, provider=self.id) from exc
        # Priced here, once for every wire, under the provider's own id; imported here, so
        # that the courier process, which only sends, does not import the price table.
        from evolve_action.execute.providers import catalog

        response.usage.cost_usd = catalog.cost_usd(f"{self.id}/{request.model}", response.usage)
        return response

    async def _carried(self, body: dict[str, Any]) -> Any:
        """The answer as the courier process got it (`courier.py`); `NotCarried` when this
        call is ours to send (no courier, a wire it does not carry, or a client built here)."""
        if self._client is not None or self._ssl_context is not None:
            raise courier.NotCarried("this adapter has its client")
        if not courier.carries(self.id) or transport.ready(self.id):
            raise courier.NotCarried("not the courier's")
        options = {
            "api_key": self._api_key,
            "base_url": self._base_url,
            "timeout_s": self._timeout_s,
            "sdk_max_retries": self._sdk_max_retries,
            "provider_id": self.id,
        }
        return await courier.send(f"{type(self).__module__}:{type(self).__name__}", options, body)

    async def _sent(self, body: dict[str, Any]) -> Any:
        if self._client is None:
            await transport.imported(self.id, tls=self._needs_bundle())
        try:
            return await self._send(self.client, body)
        except Exception as exc:
            raise classify(exc, provider=self.id) from exc

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        raise NotImplementedError

    def _needs_bundle(self) -> bool:
        """Whether this client will use the shared SSL context (`client`)."""
        return self._ssl_context is None and transport.client_speaks_tls(self._base_url)

    async def aclose(self) -> None:
        client: Any = self._client
        if client is not None:
            await client.close()


async def _on_request(request: object) -> None:
    transport.request_left()
