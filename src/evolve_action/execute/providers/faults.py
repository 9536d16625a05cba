"""Provider failures: classifying SDK exceptions, retrying what is transient, backing off.

The SDK clients are built with few or no retries of their own (`sdk_max_retries`, default 0)
and this module retries instead, because only here do retries (a) sleep through an injectable
function, so tests are instant and deterministic, (b) stop at one per-call deadline, and
(c) tell the provider's `AdaptiveLimiter` about 429/529, which SDK-internal retries would hide.
`Retry-After` / `retry-after-ms` are honoured exactly as the SDKs do.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    import anthropic
    import openai

from evolve_action.execute.providers.limiter import AdaptiveLimiter
from evolve_action.model import provider_table
from evolve_action.model.outcomes import ErrorKind
from evolve_action.model.provider import ChatRequest, ChatResponse, Provider, ProviderError

T = TypeVar("T")

Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]


def _sdk_errors(name: str) -> tuple[type[BaseException], ...]:
    """The SDKs' exception class `name`, from the SDKs already imported.

    The SDKs are imported only by the provider that is used (about 1 s of start-up each), and
    an exception from an SDK means that SDK is loaded: the others need no import to rule out.
    One may be half-imported (the worker thread of `transport.preload` is still at it): it
    has raised nothing yet, so a missing class is skipped.
    """
    loaded = [m for m in provider_table.sdk_names() if m in sys.modules]
    found = (getattr(sys.modules[m], name, None) for m in loaded)
    return tuple(cls for cls in found if cls is not None)


# 429 codes that mean the quota is gone for good, whichever provider says them.
_PERMANENT_QUOTA_CODES = provider_table.quota_codes()


class CallError(ProviderError):
    """A classified failure of one provider call, with what the retry loop needs to know."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        provider: str = "",
        retryable: bool = False,
        retry_after_s: float | None = None,
        overload: bool = False,
        status: int | None = None,
    ) -> None:
        super().__init__(kind, message, provider=provider)
        self.retryable = retryable
        self.retry_after_s = retry_after_s
        self.overload = overload  # 429 / 529: the provider wants less concurrency
        self.status = status


def wire_error(error: CallError) -> dict[str, Any]:
    """`error` as JSON, for a call sent by the courier process (`courier.py`)."""
    return {
        "kind": error.kind.value,
        "message": error.message,
        "provider": error.provider,
        "retryable": error.retryable,
        "retry_after_s": error.retry_after_s,
        "overload": error.overload,
        "status": error.status,
    }


def error_from_wire(raw: Mapping[str, Any]) -> CallError:
    """The `CallError` that `wire_error` wrote."""
    return CallError(
        ErrorKind(raw["kind"]),
        str(raw["message"]),
        provider=str(raw["provider"]),
        retryable=bool(raw["retryable"]),
        retry_after_s=raw["retry_after_s"],
        overload=bool(raw["overload"]),
        status=raw["status"],
    )


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """`retry-after-ms`, else `retry-after` in (fractional) seconds; HTTP dates are ignored."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw) * scale
        except ValueError:
            continue
        if value > 0:
            return value
    return None


def _api_message(exc: anthropic.APIStatusError | openai.APIStatusError) -> tuple[str, str]:
    """(error type or code, human message) from either vendor's error body."""
    body: Any = exc.body
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]  # Anthropic nests its error; OpenAI's SDK already unwrapped it
    if isinstance(body, dict):
        code = body.get("code") or body.get("type") or ""
        message = body.get("message") or ""
        return str(code), str(message)
    return "", str(body or exc.message)[:300]


def classify_status(
    status: int, code: str, message: str, headers: Mapping[str, str], *, provider: str
) -> CallError:
    detail = f"HTTP {status}" + (f" {code}" if code else "") + (f": {message}" if message else "")
    retry_after = retry_after_seconds(headers)

    def err(kind: ErrorKind, retryable: bool = False, overload: bool = False) -> CallError:
        return CallError(
            kind,
            detail,
            provider=provider,
            retryable=retryable,
            retry_after_s=retry_after,
            overload=overload,
            status=status,
        )

    if status in (401, 403):
        return err(ErrorKind.AUTH)
    if status == 402 or (status == 429 and code in _PERMANENT_QUOTA_CODES):
        return err(ErrorKind.QUOTA)
    if status == 429:
        return err(ErrorKind.QUOTA, retryable=True, overload=True)
    if status == 408:
        return err(ErrorKind.TIMEOUT, retryable=True)
    if status == 409:
        return err(ErrorKind.SERVER, retryable=True)
    if status >= 500:
        return err(ErrorKind.SERVER, retryable=True, overload=status in (503, 529))
    return err(ErrorKind.BAD_REQUEST)


def classify(exc: BaseException, *, provider: str) -> CallError:
    """Map an exception raised while calling an SDK to a `CallError`; unknown ones are bugs."""
    if isinstance(exc, CallError):
        return exc
    if isinstance(exc, ProviderError):  # already decided upstream (a replay miss, a missing key)
        return CallError(exc.kind, exc.message, provider=exc.provider or provider)
    if isinstance(exc, _sdk_errors("APIStatusError")):
        status = cast("anthropic.APIStatusError | openai.APIStatusError", exc)
        code, message = _api_message(status)
        return classify_status(
            status.status_code, code, message, status.response.headers, provider=provider
        )
    if isinstance(exc, _sdk_errors("APITimeoutError")):
        message = "no answer within the request timeout"
        return CallError(ErrorKind.TIMEOUT, message, provider=provider, retryable=True)
    if isinstance(exc, _sdk_errors("APIConnectionError")):
        why = cast("anthropic.APIConnectionError | openai.APIConnectionError", exc).message
        return CallError(
            ErrorKind.SERVER, f"connection failed: {why}", provider=provider, retryable=True
        )
    malformed = _sdk_errors("APIResponseValidationError")
    if isinstance(exc, (*malformed, json.JSONDecodeError, MalformedResponse)):
        return CallError(
            ErrorKind.SERVER, f"malformed response: {exc}", provider=provider, retryable=True
        )
    return CallError(
        ErrorKind.INTERNAL, f"{type(exc).__name__}: {exc}", provider=provider, retryable=False
    )


class MalformedResponse(ValueError):
    """A 2xx answer we cannot read (not JSON, or missing what every answer has)."""


@dataclass(kw_only=True)
class RetryPolicy:
    """How often and how long to retry one call. `deadline_s` bounds all attempts together."""

    max_retries: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 20.0
    # A longer server hint (a daily quota, say) is not worth waiting for in CI: give up.
    max_retry_after_s: float = 60.0
    deadline_s: float = 600.0
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    sleep: Sleep = asyncio.sleep
    clock: Clock = time.monotonic

    def delay_s(self, retry_number: int, error: CallError) -> float:
        """The wait before retry `retry_number` (0-based): the server's hint, else backoff."""
        if error.retry_after_s is not None:
            return error.retry_after_s
        backoff = min(self.base_delay_s * 2.0**retry_number, self.max_delay_s)
        return backoff * (0.75 + 0.25 * self.rng.random())  # jitter spreads synchronized retries


def positive_env(environ: Mapping[str, str], name: str) -> float | None:
    """The tuning variable `name` as a positive number; None when unset, not a number or <= 0."""
    try:
        value = float(environ.get(name, ""))
    except ValueError:
        return None
    return value if value > 0 else None


def tuned_policy(environ: Mapping[str, str]) -> RetryPolicy | None:
    """The policy `EVOLVE_RETRY_BASE_DELAY_S` asks for (a shorter first backoff), if it is set."""
    delay = positive_env(environ, "EVOLVE_RETRY_BASE_DELAY_S")
    if delay is None:
        return None
    return RetryPolicy(base_delay_s=delay, max_delay_s=max(delay, 20.0))


async def call_with_retries(
    attempt: Callable[[], Awaitable[T]],
    *,
    policy: RetryPolicy,
    provider: str,
    limiter: AdaptiveLimiter | None = None,
) -> T:
    """Run `attempt` until it succeeds, fails for good, or the retries or deadline run out."""
    start = policy.clock()
    retries = 0
    while True:
        try:
            result = await attempt()
        except Exception as exc:
            error = classify(exc, provider=provider)
            if error.overload and limiter is not None:
                limiter.on_overload()
            if not error.retryable:
                raise error from exc
            if retries >= policy.max_retries:
                raise _exhausted(error, retries + 1, "") from exc
            hint = error.retry_after_s
            if hint is not None and hint > policy.max_retry_after_s:
                why = f", and the provider asks to wait {hint:g} s"
                raise _exhausted(error, retries + 1, why) from exc
            wait = policy.delay_s(retries, error)
            if policy.clock() + wait - start > policy.deadline_s:
                why = f" within the {policy.deadline_s:g} s call deadline"
                raise _exhausted(error, retries + 1, why) from exc
            await policy.sleep(wait)
            retries += 1
        else:
            if limiter is not None:
                limiter.on_success()
            return result


def _exhausted(error: CallError, attempts: int, why: str) -> CallError:
    tail = f"gave up after {attempts} attempt{'s' if attempts > 1 else ''}{why}"
    return CallError(
        error.kind,
        f"{error.message} ({tail})",
        provider=error.provider,
        retryable=False,
        overload=error.overload,
        status=error.status,
    )


class RetryingProvider:
    """Wraps a single-attempt adapter with `call_with_retries` and its provider's limiter."""

    def __init__(
        self, inner: Provider, *, policy: RetryPolicy, limiter: AdaptiveLimiter | None = None
    ) -> None:
        self.id = inner.id
        self.answers_with_schema = inner.answers_with_schema
        self.inner = inner
        self.policy = policy
        self.limiter = limiter

    async def complete(self, request: ChatRequest) -> ChatResponse:
        return await call_with_retries(
            lambda: self.inner.complete(request),
            policy=self.policy,
            provider=self.id,
            limiter=self.limiter,
        )

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()
