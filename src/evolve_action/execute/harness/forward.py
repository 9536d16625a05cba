"""The proxy's side towards the provider: one request forwarded, retried while it is transient.

Runs in the proxy's handler threads, on the standard library's `http.client`, so the answer
can be streamed back chunk by chunk as it arrives. Failures are classified by the same rules
as the SDK path (`faults.classify_status`), and retried the same way: 429, 408, 409 and 5xx
with exponential backoff and jitter, `Retry-After` honoured, within one deadline. The CLIs'
own retries are switched off, so every retry of the job happens here, once.
"""

from __future__ import annotations

import http.client
import ssl
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from evolve_action.execute.harness.wire import ANTHROPIC, GEMINI, error_detail, wire_of
from evolve_action.execute.providers.faults import CallError, RetryPolicy, classify_status
from evolve_action.model.outcomes import ErrorKind

# Hop-by-hop headers, and those the proxy sets itself: never forwarded either way.
_DROPPED = frozenset(
    {
        "host",
        "connection",
        "keep-alive",
        "proxy-connection",
        "transfer-encoding",
        "te",
        "trailer",
        "upgrade",
        "content-length",
        "accept-encoding",
        "content-encoding",
        "x-api-key",
        "x-goog-api-key",
        "authorization",
    }
)


@dataclass(frozen=True, slots=True)
class Upstream:
    """Where one provider's calls go, with the real key, which only the proxy ever holds."""

    provider: str
    base_url: str  # e.g. https://api.anthropic.com, or http://127.0.0.1:PORT/v1
    api_key: str

    def auth_headers(self) -> dict[str, str]:
        if wire_of(self.provider) == ANTHROPIC:
            return {"x-api-key": self.api_key}
        if wire_of(self.provider) == GEMINI:
            return {"x-goog-api-key": self.api_key}
        return {"authorization": f"Bearer {self.api_key}"}


@dataclass
class Answer:
    """An upstream answer: either open (`response` to stream) or complete (`body`)."""

    status: int
    headers: list[tuple[str, str]]
    response: http.client.HTTPResponse | None = None
    connection: http.client.HTTPConnection | None = None
    body: bytes = b""
    error: CallError | None = None  # set when this is the final failure after retries

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()


def forwarded_headers(headers: Mapping[str, str], upstream: Upstream) -> dict[str, str]:
    out = {k: v for k, v in headers.items() if k.lower() not in _DROPPED}
    out.update(upstream.auth_headers())
    out["accept-encoding"] = "identity"  # the proxy reads usage from the bytes it passes on
    return out


def _connect(url: urllib.parse.SplitResult, timeout_s: float) -> http.client.HTTPConnection:
    port = url.port
    if url.scheme == "https":
        context = ssl.create_default_context()
        return http.client.HTTPSConnection(
            url.hostname or "", port, timeout=timeout_s, context=context
        )
    return http.client.HTTPConnection(url.hostname or "", port, timeout=timeout_s)


def _once(
    upstream: Upstream,
    method: str,
    rest: str,
    headers: Mapping[str, str],
    body: bytes,
    timeout_s: float,
) -> Answer:
    base = urllib.parse.urlsplit(upstream.base_url)
    path = base.path.rstrip("/") + "/" + rest.lstrip("/")
    connection = _connect(base, timeout_s)
    try:
        connection.request(method, path, body=body, headers=forwarded_headers(headers, upstream))
        response = connection.getresponse()
    except BaseException:
        connection.close()  # a failed call leaves no socket behind for the retry to leak
        raise
    kept = [(k, v) for k, v in response.getheaders() if k.lower() not in _DROPPED]
    return Answer(response.status, kept, response, connection)


def forward(
    upstream: Upstream,
    method: str,
    rest: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    policy: RetryPolicy,
    timeout_s: float,
    on_overload: Callable[[], None] = lambda: None,
    sleep: Callable[[float], None] = time.sleep,
) -> Answer:
    """The first answer below 400, or the last failure with `error` set (never raises)."""
    start = time.monotonic()
    retries = 0
    while True:
        try:
            answer = _once(upstream, method, rest, headers, body, timeout_s)
        except (OSError, http.client.HTTPException) as exc:
            error = CallError(
                ErrorKind.SERVER,
                f"connection to {upstream.base_url} failed: {exc}",
                provider=upstream.provider,
                retryable=True,
            )
            answer = Answer(502, [("content-type", "application/json")])
        else:
            if answer.status < 400:
                return answer
            assert answer.response is not None
            try:
                answer.body = answer.response.read()
            except (OSError, http.client.HTTPException):
                answer.body = b""
            answer.close()
            answer.response = answer.connection = None
            code, message = error_detail(answer.body)
            error = classify_status(
                answer.status, code, message, dict(answer.headers), provider=upstream.provider
            )
        if error.overload:
            on_overload()
        hint = error.retry_after_s
        give_up = (
            not error.retryable
            or retries >= policy.max_retries
            or (hint is not None and hint > policy.max_retry_after_s)
        )
        wait = 0.0 if give_up else policy.delay_s(retries, error)
        if not give_up and time.monotonic() + wait - start > policy.deadline_s:
            give_up = True
        if give_up:
            tail = f" (gave up after {retries + 1} attempts)" if error.retryable else ""
            answer.error = CallError(
                error.kind, error.message + tail, provider=upstream.provider, status=error.status
            )
            return answer
        sleep(wait)
        retries += 1
