"""A loopback fake of the Anthropic Messages API and OpenAI's Chat Completions and Responses
APIs, and Google's Gemini API (`gemini_wire.py`), for real SDKs and real agent CLIs.

The real `AsyncAnthropic` / `AsyncOpenAI` clients talk to it over HTTP on 127.0.0.1, so
tests exercise the SDKs' own request building, parsing, errors and timeouts; so do Claude
Code and Codex (`/v1/messages` and `/v1/responses`, streamed as server-sent events when the
request says `stream: true`). Every request is recorded; every answer comes from a per-test
SCRIPT.

Quick start::

    from tests.fakes.llm_server import FakeLLM, Fault, call, scripted_agent, text

    with FakeLLM(scripted_agent(call("Skill", skill="greeter"), text("Done."))) as llm:
        AsyncAnthropic(api_key="test", base_url=llm.anthropic_base_url)   # → /v1/messages
        AsyncOpenAI(api_key="test", base_url=llm.openai_base_url)         # → /v1/chat/completions
                                                   # (and /v1/responses: `client.responses`)
        ...
        llm.requests[0].body       # the JSON body the SDK sent; also .api, .headers, .turn,
                                   # .system, .tool_names, .tool_results

The pytest fixture `fake_llm` (tests/integration/conftest.py) yields a started `FakeLLM`
and fails the test if a script raised.

Answers (`Answer`), written once and rendered in the wire format of the endpoint asked:

- `Reply(text=..., calls=(Call(name, args), ...), usage={...})` — a normal answer; helpers
  `text("...")`, `call("Write", file_path="a", content="b")`, `calls(Call(...), ...)`.
  `Call(..., raw='{"a": 1}')` makes OpenAI send exactly those argument bytes.
  Usage is derived from sizes (about 4 characters a token) and a simulated prompt cache:
  the stable prefix (tools + system) is written on first sight and read afterwards
  (Anthropic only when a `cache_control` breakpoint is present); `usage=` overrides fields
  (Anthropic names; OpenAI's are mapped).
- `Fault(status, retry_after=..., retry_after_ms=..., code=..., message=...)` — an error
  body in the vendor's own shape (Anthropic `{"type": "error", "error": {...}}`, OpenAI
  `{"error": {...}}`), e.g. `Fault(429, retry_after=0.01)`, `Fault(529)`,
  `Fault(429, code="insufficient_quota")`.
- `Stall(seconds, then=None)` — answer only after `seconds` (longer than the client
  timeout to provoke one); `then` is the eventual answer (default `text("late")`).
- `Malformed(body)` — 200 with a body that is not the JSON promised. `Disconnect()` —
  close the connection without an answer.

Where an answer comes from, first match wins:

1. the fault schedule: `FakeLLM(faults={2: Fault(429), 5: Fault(529)})`, or
   `llm.fail_requests([2, 5, 8], Fault(429))` — by the request's 1-based arrival number;
2. the queue: `llm.enqueue(answer, ...)` — one per request, in arrival order;
3. the script: a function `Request -> Answer` (`FakeLLM(script)` / `llm.script = ...`);
   without one, every request gets `text("ok")`.

`scripted_agent(*turns, repeat_last=False)` is a stateless script that answers by the
number of assistant turns already in the request, so concurrent agent runs each get their
own next turn: `turns[0]` to a fresh conversation, `turns[1]` after one model turn, etc.
Past the end it answers 400 "script exhausted" (or repeats the last turn).
`latency=` delays every answer (benchmarks); `api_key=` makes other keys get a 401.

Scripts see the same `Request` whatever the API: `.api` says which ("anthropic", "openai",
"responses"), and `.turn`, `.tool_results`, `.system` read each format. A `Call` is rendered
as a `tool_use` block, a Chat Completions tool call, or a Responses `function_call` item
(Codex's shell tool is `call("exec_command", cmd="ls")`).
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes import copilot_api, gemini_wire
from tests.fakes.llm_script import (
    Answer,
    Call,
    Disconnect,
    Fault,
    Malformed,
    Reply,
    Request,
    Script,
    Stall,
    call,
    calls,
    scripted_agent,
    text,
)
from tests.fakes.llm_sse import stream
from tests.fakes.llm_wire import render_error, render_reply

__all__ = [
    "Answer",
    "Call",
    "Disconnect",
    "FakeLLM",
    "Fault",
    "Malformed",
    "Reply",
    "Request",
    "Script",
    "Stall",
    "call",
    "calls",
    "scripted_agent",
    "serve",
    "text",
]


class FakeLLM:
    def __init__(
        self,
        script: Script | None = None,
        *,
        faults: Mapping[int, Answer] | None = None,
        latency: float = 0.0,
        api_key: str | None = None,
    ) -> None:
        self.script = script
        self.faults: dict[int, Answer] = dict(faults or {})
        self.latency = latency
        self.api_key = api_key
        self.requests: list[Request] = []
        # Each GET (GitHub's model listing): its headers, and its path under ":path".
        self.listings: list[dict[str, str]] = []
        self.script_errors: list[str] = []
        # The `model` field of every answer (a provider serving a new snapshot behind the
        # alias asked for); None answers with the model the request named.
        self.served_model: str | None = None
        self._queue: deque[Answer] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._cache: set[str] = set()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> FakeLLM:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        server.daemon_threads = True
        server.block_on_close = False  # a stalled answer must not hold up shutdown
        self._server = server
        # A short poll interval keeps `shutdown()` (each test's teardown) quick.
        self._thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "the fake LLM server is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def gemini_openai_base_url(self) -> str:
        """What the `openai` SDK is given for Gemini models (`ProviderRow.sdk_base_url`)."""
        return f"{self.url}/v1beta/openai"

    @property
    def gemini_base_url(self) -> str:
        """What `GOOGLE_GEMINI_BASE_URL` takes: `/v1beta/models/...` is below it."""
        return self.url

    # -- scripting ---------------------------------------------------------------------

    def enqueue(self, *answers: Answer) -> None:
        with self._lock:
            self._queue.extend(answers)

    def fail_requests(self, numbers: Iterable[int], fault: Answer) -> None:
        for n in numbers:
            self.faults[n] = fault

    def bodies(self, api: str | None = None) -> list[Mapping[str, Any]]:
        return [r.body for r in self.requests if api is None or r.api == api]

    # -- serving (called from the server's threads) ------------------------------------

    def _answer(self, api: str, path: str, headers: Mapping[str, str], raw: bytes) -> Answer:
        body = json.loads(raw or b"{}")
        with self._lock:
            kind = gemini_wire.GeminiRequest if api == gemini_wire.API else Request
            request = kind(len(self.requests) + 1, api, path, headers, body, raw)
            self.requests.append(request)
            if request.index in self.faults:
                return self.faults[request.index]
            if self._queue:
                return self._queue.popleft()
        if not _authorized(api, headers, self.api_key):
            return Fault(401, message="invalid x-api-key")
        if self.script is None:
            return text("ok")
        try:
            return self.script(request)
        except Exception as exc:  # reported by the fixture; a 500 would only be retried
            self.script_errors.append(f"request {request.index}: {type(exc).__name__}: {exc}")
            return Fault(400, message=f"fake script raised {type(exc).__name__}: {exc}")

    def _cache_hit(self, prefix: str) -> bool:
        key = hashlib.sha256(prefix.encode()).hexdigest()
        with self._lock:
            hit = key in self._cache
            self._cache.add(key)
        return hit


def _authorized(api: str, headers: Mapping[str, str], expected: str | None) -> bool:
    bearer = headers.get("authorization", "")
    given = bearer.removeprefix("Bearer ") if bearer.startswith("Bearer ") else None
    if api == "anthropic":
        given = headers.get("x-api-key") or given
    if api == gemini_wire.API:
        given = headers.get("x-goog-api-key") or given
    if not given:
        return False
    return expected is None or given == expected


_ROUTES = {
    "/v1/messages": "anthropic",
    "/v1/chat/completions": "openai",
    # Gemini's OpenAI-compatible API (what our `openai` SDK adapter calls for Gemini models).
    "/v1beta/openai/chat/completions": "openai",
    "/v1/responses": "responses",
}


def _handler_for(fake: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # Without this, small writes on kept-alive connections wait ~40 ms for an ACK.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            path = self.path.split("?", 1)[0]
            api = _ROUTES.get(path) or (gemini_wire.API if gemini_wire.is_route(path) else None)
            if api is None:
                self._send(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
                return
            headers = {k.lower(): v for k, v in self.headers.items()}
            answer: Answer = fake._answer(api, path, headers, raw)
            if fake.latency:
                time.sleep(fake.latency)
            while isinstance(answer, Stall):
                if fake._stop.wait(answer.seconds):
                    return
                answer = answer.then or text("late")
            self._reply(api, raw, answer, path)

        def do_GET(self) -> None:
            # GitHub's Copilot API lists its models before any call (`copilot_api.py`).
            path = self.path.split("?", 1)[0]
            headers = {k.lower(): v for k, v in self.headers.items()}
            with fake._lock:
                fake.listings.append({**headers, ":path": path})
            if path != copilot_api.PATH:
                self._send(404, {"message": f"no route {path}"})
                return
            self._send(*copilot_api.answer(headers, fake.api_key))

        def _reply(self, api: str, raw: bytes, answer: Answer, path: str = "") -> None:
            if isinstance(answer, Disconnect):
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if isinstance(answer, Malformed):
                self._send(200, answer.body.encode())
                return
            if isinstance(answer, Fault):
                rendered = gemini_wire.render_error if api == gemini_wire.API else None
                status, body, extra = rendered(answer) if rendered else render_error(api, answer)
                self._send(status, body, extra)
                return
            assert isinstance(answer, Reply)
            request = json.loads(raw)
            if api == gemini_wire.API:
                self._reply_gemini(path, request, answer)
                return
            body = render_reply(api, request, answer, fake._cache_hit)
            if fake.served_model is not None:
                body["model"] = fake.served_model
            if request.get("stream") and api in ("anthropic", "responses"):
                self._send(200, stream(api, body), content_type="text/event-stream")
                return
            self._send(200, body)

        def _reply_gemini(self, path: str, request: Any, answer: Reply) -> None:
            body = gemini_wire.render_reply(path, request, answer, fake._cache_hit)
            if gemini_wire.method(path) == "streamGenerateContent":
                self._send(200, gemini_wire.stream(body), content_type="text/event-stream")
                return
            self._send(200, body)

        def _send(
            self,
            status: int,
            body: Any,
            extra: Mapping[str, str] | None = None,
            content_type: str = "application/json",
        ) -> None:
            payload = body if isinstance(body, bytes) else json.dumps(body).encode()
            head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
            head += [f"content-type: {content_type}", f"content-length: {len(payload)}"]
            head += [f"{k}: {v}" for k, v in (extra or {}).items()]
            try:  # one write: headers and body together (see testing-notes.md)
                self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up (its timeout) first

    return Handler


_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden"}
_REASONS |= {404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error"}
_REASONS |= {503: "Service Unavailable", 529: "Overloaded"}


def keyless() -> Iterator[FakeLLM]:
    """Generator form for the fixture of a fake that checks no key (the real CLIs reach it
    through our proxy, which alone holds the key); a script error fails the test at its end."""
    with FakeLLM(api_key=None) as server:
        yield server
    assert not server.script_errors, server.script_errors


def serve(script: Script | None = None, **options: Any) -> Iterator[FakeLLM]:
    """Generator form for fixtures: `yield from serve(script)`."""
    with FakeLLM(script, **options) as server:
        yield server
