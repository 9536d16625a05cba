"""The loopback credential proxy: the CLIs hold a dummy key, only this process holds the real one.

The agent CLIs run inside our confinement, and whatever they run (their Bash tool, a hook, a
skill's script) inherits their environment, so a key they hold is a key the PR's code can
print. So each run gets a *session*: a random dummy key the proxy knows for as long as the
run lasts. The CLI sends its calls to `http://127.0.0.1:PORT/<provider>/...` with that key;
the proxy checks it, puts the real key in its place and forwards the call to the configured
upstream (`ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`, else the public API), streaming the
answer back as it arrives. An unknown or finished session's key gets a 401.

Every model call passes here, so this is also where `harness: cli` counts tokens per run,
retries 429/5xx (`forward.py`), caps Codex's turns (it has no flag for that) and records or
replays cassettes (`cassette.py`). One proxy serves a whole job (threads, port 0); a session
may also listen on a Unix socket inside its workspace, for a CLI in a network namespace of its
own (`relay.py`).
"""

from __future__ import annotations

import secrets
import socketserver
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from pathlib import Path

from evolve_action.execute.harness.cassette import CliCassettes, Recorded, exchange_key
from evolve_action.execute.harness.forward import Answer, Upstream, forward
from evolve_action.execute.harness.proxy_http import UnixServer, bindable, handler_for, refusal
from evolve_action.execute.harness.wire import (
    api_of,
    error_body,
    model_in_path,
    model_of,
    served_model_of,
    usage_of,
)
from evolve_action.execute.providers import catalog
from evolve_action.execute.providers.faults import CallError, RetryPolicy
from evolve_action.model.outcomes import ErrorKind, Usage


@dataclass
class Forwarded:
    """An upstream answer to pass on, and what to count and record once it has been."""

    answer: Answer
    session: Session
    api: str | None
    method: str
    rest: str
    model: str
    key: str


@dataclass
class Session:
    """One CLI run as the proxy sees it: its key, its counts, how its calls ended."""

    token: str
    provider: str
    identity: str  # what the run depends on; keys its cassette exchanges
    max_requests: int | None = None  # model calls allowed (Codex has no turn cap of its own)
    usage: Usage = field(default_factory=Usage)
    requests: int = 0  # model calls made (each counts as one turn)
    served: str = ""  # the model the last answer said served it (watch reads the snapshot)
    capped: bool = False  # a call was refused at `max_requests`
    failure: CallError | None = None  # the provider's last answer was a failure for good
    ordinals: dict[tuple[str, str], int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    listener: socketserver.BaseServer | None = None
    socket_path: Path | None = None
    in_flight: int = 0  # calls being answered; `close` waits for them to be counted

    def __post_init__(self) -> None:
        self.idle = threading.Condition(self.lock)

    def enter(self) -> None:
        with self.lock:
            self.in_flight += 1

    def leave(self) -> None:
        with self.lock:
            self.in_flight -= 1
            self.idle.notify_all()


class CredentialProxy:
    """Start with `start()` (or `with`), open a session per run, `close` it when the run ends."""

    def __init__(
        self,
        upstreams: Mapping[str, Upstream],
        *,
        policy: Callable[[], RetryPolicy] = RetryPolicy,
        timeout_s: float = 600.0,
        record: CliCassettes | None = None,
        replay: CliCassettes | None = None,
        on_overload: Callable[[str], None] = lambda _provider: None,
    ) -> None:
        self.upstreams = dict(upstreams)
        self.policy = policy
        self.timeout_s = timeout_s
        self.record = record
        self.replay = replay
        self.on_overload = on_overload
        self.total = Usage()
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> CredentialProxy:
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(self))
        server.daemon_threads = True
        server.block_on_close = False
        self._server = server
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        for session in list(self._sessions.values()):
            self.close(session)
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> CredentialProxy:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "the proxy is not running"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def provides(self, provider: str) -> bool:
        return provider in self.upstreams or self.replay is not None

    # -- sessions ----------------------------------------------------------------------

    def open(self, provider: str, identity: str, *, max_requests: int | None = None) -> Session:
        token = f"evolve-dummy-{secrets.token_hex(16)}"
        session = Session(token, provider, identity, max_requests)
        with self._lock:
            self._sessions[token] = session
        return session

    def listen_unix(self, session: Session, path: Path) -> None:
        """Also accept `session`'s calls on a Unix socket at `path` (in its workspace)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        server = UnixServer(str(path), handler_for(self), bind_and_activate=False)
        with bindable(path) as name:
            server.socket.bind(name)
        server.server_activate()
        path.chmod(0o666)  # a confinement that runs the CLI as another user must connect
        session.listener, session.socket_path = server, path
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self, session: Session, *, drain_s: float = 5.0) -> None:
        """End `session`: its key stops working. A call still being answered gets `drain_s`
        to finish, so that the run's counts include it (a CLI may exit as soon as it has read
        the last event, before the proxy has counted the call)."""
        with self._lock:
            self._sessions.pop(session.token, None)
        with session.idle:
            session.idle.wait_for(lambda: session.in_flight <= 0, timeout=drain_s)
        if session.listener is not None:
            session.listener.shutdown()
            session.listener.server_close()
            session.listener = None
        if session.socket_path is not None:
            session.socket_path.unlink(missing_ok=True)

    def session(self, token: str) -> Session | None:
        with self._lock:
            return self._sessions.get(token)

    # -- one request (called from handler threads) -------------------------------------

    def handle(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes
    ) -> Recorded | Forwarded:
        """Route one request: an answer to give whole (`Recorded`), or one to stream (then
        the handler calls `finished` once it has, and `leave` on the session in any case)."""
        provider, _, rest = path.lstrip("/").partition("/")
        session = self.session(_token(headers))
        if session is None:
            return refusal(provider, 401, "evolve proxy: unknown or expired session key")
        if session.provider != provider:
            # A signed-in CLI's calls besides the model's API (Copilot CLI's to GitHub) are
            # answered here, never forwarded, and without the 401 that would sign it out.
            return refusal(session.provider, 404, f"evolve proxy: /{provider} is not forwarded")
        session.enter()
        try:
            result = self._route(session, provider, rest, method, headers, body)
        except BaseException:
            session.leave()
            raise
        if isinstance(result, Recorded):
            session.leave()
        return result

    def _route(
        self,
        session: Session,
        provider: str,
        rest: str,
        method: str,
        headers: Mapping[str, str],
        body: bytes,
    ) -> Recorded | Forwarded:
        api = api_of(rest)
        model, key = model_of(body) or model_in_path(rest), ""
        if api is not None:
            with session.lock:
                if session.max_requests is not None and session.requests >= session.max_requests:
                    session.capped = True
                    limit = session.max_requests
                    return refusal(provider, 400, f"evolve proxy: turn cap of {limit} reached")
                session.requests += 1
                counter = (rest.split("?", 1)[0], model)
                ordinal = session.ordinals.get(counter, 0)
                session.ordinals[counter] = ordinal + 1
            key = exchange_key(session.identity, method, rest, model, ordinal)
            if self.replay is not None:
                found = self.replay.get(provider, key)
                if found is None:
                    session.failure = CallError(
                        ErrorKind.REPLAY_MISS,
                        f"no recorded exchange for call {ordinal + 1} to {model} of this run: "
                        "the eval, the skill or the CLI changed since the cassette was "
                        "recorded; record it again",
                        provider=provider,
                    )
                    return refusal(provider, 400, session.failure.message)
                self.account(session, api, model, found.content_type, found.body)
                return found
        elif self.replay is not None:
            return refusal(provider, 404, f"evolve proxy: nothing recorded for {rest}")
        upstream = self.upstreams.get(provider)
        if upstream is None:
            return refusal(provider, 401, f"evolve proxy: no {provider} key is configured")
        answer = forward(
            upstream,
            method,
            rest,
            headers,
            body,
            policy=self.policy(),
            timeout_s=self.timeout_s,
            on_overload=lambda: self.on_overload(provider),
        )
        if answer.error is not None and api is not None:
            session.failure = answer.error
            if not answer.body:
                answer.body = error_body(provider, answer.status, answer.error.message)
        return Forwarded(answer, session, api, method, rest, model, key)

    def account(
        self, session: Session, api: str, model: str, content_type: str, body: bytes
    ) -> None:
        served = served_model_of(api, content_type, body)
        if served:
            with session.lock:
                session.served = served
        usage = usage_of(api, content_type, body)
        if usage is None:
            return
        usage.cost_usd = catalog.cost_usd(f"{session.provider}/{model}", usage)
        with session.lock:
            session.usage.add(usage)
        with self._lock:
            self.total.add(usage)

    def finished(self, sent: Forwarded, content_type: str, data: bytes) -> None:
        """An upstream answer was passed on in full: count it, and record it."""
        status = sent.answer.status
        if sent.api is None or status >= 400:
            return
        self.account(sent.session, sent.api, sent.model, content_type, data)
        if self.record is not None:
            about = {"path": sent.rest.split("?", 1)[0], "model": sent.model, "method": sent.method}
            answer = Recorded(status, content_type, data)
            self.record.add(sent.session.provider, sent.key, about, answer)


# Copilot CLI takes a GitHub token only in one of GitHub's token shapes: its placeholder is
# the session key behind the prefix of an Actions token (`execute/harness/copilot/launch.py`).
GITHUB_TOKEN_PREFIX = "ghs_"


def _token(headers: Mapping[str, str]) -> str:
    bearer = headers.get("authorization", "")
    found = headers.get("x-api-key") or headers.get("x-goog-api-key")
    # Copilot CLI writes `bearer` in lower case on some of its calls.
    token = found or bearer.split(" ", 1)[-1].strip()
    return token.removeprefix(GITHUB_TOKEN_PREFIX)
