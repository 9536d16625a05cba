"""What the provider clients share: one SSL context, and SDK imports started ahead of need.

Importing an SDK is most of a short run's start-up (`openai` about 0.15 s once its type hubs
are deferred, `util/deferred_packages.py`; `anthropic` about 0.7 s, on the 2-core machine
`bench/coldstart.py` runs on), and every `httpx` client
the SDKs build loads the system's CA bundle into its own SSL context (20-50 ms each).
A client of a plain-HTTP server (a gateway or model server on the runner) never needs the
bundle (`context_for`), and nothing loads it for such a job.
`preload` starts both in a worker thread as soon as the job knows its providers, so they
overlap reading the eval files, git and planning. An adapter builds its SDK client on its
first call, after `imported` has waited (without holding up the event loop) for its SDK:
with two providers, the runs on the first one imported start while the second imports.

Work beside the import is not free even when it mostly waits: a second thread that builds
the SSL context (OpenSSL reads the bundle without the GIL) or starts a child process made
the SDK ready 30-40 ms later than doing the same work in turn (`bench/README.md`), so the
thread does its work in sequence. Where the courier process sends a wire's calls
(`courier.py`), its SDK is not imported here at all (`hold`), unless the courier goes and a
call needs it.

After the SDKs, the thread may do what the job needs only once its runs are under way
(`then`: import grading, the verdict and the report; probe the sandbox). It waits for the
first request to leave (`request_left`, an HTTP hook on every SDK client) so that this work
fills the wait for the answer instead of taking the GIL from the code building that request;
a job that never sends one does it where it needs it. Importing a module in two threads at
once is safe (the second waits for the first's module lock) unless the imports form a cycle,
and ours form none (`tests/unit/test_architecture.py`). Failures are left for the main
thread's own import or call to raise. Start-up is over (`startup.started`) once the SDKs
are in.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import ssl
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence

from evolve_action.model import provider_table
from evolve_action.util import startup

log = logging.getLogger(__name__)

# A function to call once the first request has left (the caller names what it imports).
Later = Callable[[], object]

# Each provider's SDK, then what its client imports on its first call (the resource our calls
# go through, the async transport's event-loop backend, the HTTP transport its client builds
# on: 47 modules, 0.02 s): loaded here, that is off the first request's path too. From the
# provider table (`provider_table.ProviderRow.sdk`).
SDK_MODULES = provider_table.sdk_modules()

_lock = threading.Lock()
_context_lock = threading.Lock()
_context: ssl.SSLContext | None = None
_no_tls: ssl.SSLContext | None = None
_imported: dict[str, threading.Event] = {}  # set when the worker's import ended
_waiting: dict[str, list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]] = {}
_pending = 0  # preload threads still importing
_left = threading.Event()  # an SDK client has sent its first request
# Whether the courier process sends this provider's calls (`hold`): the courier's own state,
# asked each time, so a courier that has gone is never taken for one that carries.
_carrier: Callable[[str], bool] | None = None


# The proxy variables `httpx` reads for a plain-HTTP URL (`trust_env`, as the SDKs build it).
_HTTP_PROXY_VARS = ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")


def speaks_tls(base_url: str | None, environ: Mapping[str, str]) -> bool:
    """Whether a client for `base_url` may open a TLS connection: unless the URL is plain
    `http://` (a gateway or model server on the runner or the local network) and no proxy
    it would go through is `https://`. None is the SDK's public API, which is HTTPS."""
    if base_url is None or not base_url.strip().lower().startswith("http://"):
        return True
    return any(
        environ.get(name, "").strip().lower().startswith("https://") for name in _HTTP_PROXY_VARS
    )


def client_speaks_tls(base_url: str | None) -> bool:
    """`speaks_tls` for a client built here: its HTTP client reads the proxy variables from
    this process's environment (`trust_env`), so the answer reads them there too."""
    return speaks_tls(base_url, os.environ)


def context_for(base_url: str | None) -> ssl.SSLContext:
    """The SSL context for a client of `base_url`: the shared one with the CA bundle where
    TLS may be spoken; else one that trusts no certificate, so a TLS connection nobody
    expected fails its verification rather than going unverified, and the bundle (0.07 s of
    the start's CPU here) is never read for a server spoken to in the clear."""
    global _no_tls
    if client_speaks_tls(base_url):
        return ssl_context()
    with _context_lock:
        if _no_tls is None:
            _no_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies, and trusts nothing
        return _no_tls


def ssl_context() -> ssl.SSLContext:
    """The SSL context every SDK client uses, built once.

    It is the SDKs' own default (their transport's `create_ssl_context`: the system CA
    bundle, `SSL_CERT_FILE` and `SSL_CERT_DIR` honoured), so sharing it changes nothing a
    client verifies; loading the bundle once instead of per client is the saving.
    """
    global _context
    with _context_lock:
        if _context is None:
            import httpx2  # the transport both SDKs build their clients on

            _context = httpx2.create_ssl_context()
        return _context


def preload(
    provider_ids: Iterable[str],
    then: Sequence[Later] = (),
    *,
    here: bool = False,
    tls: bool = True,
) -> threading.Thread | None:
    """Import these providers' SDKs in a worker thread, in the order given (put first the
    provider the first request goes to), after building the shared SSL context if some
    client may speak TLS (`tls`, `speaks_tls`); once the first request has left, call the
    functions in `then`. The SDK of a provider whose calls the courier process sends
    (`hold`) is not imported here, unless `here` says a call needs it.

    One thread, not one per SDK: imports hold the GIL almost throughout, so two threads
    would only interleave and finish the first-needed SDK later. Returns the thread, or
    None when there is nothing to do.
    """
    global _pending
    with _lock:
        wanted = [
            p
            for p in dict.fromkeys(provider_ids)
            if p in SDK_MODULES and p not in _imported and (here or not _carried_elsewhere(p))
        ]
        _imported.update((p, threading.Event()) for p in wanted)
        _pending += bool(wanted)
    if not wanted and not then:
        return None
    thread = threading.Thread(
        target=_import, args=(wanted, tuple(then), tls), name="evolve-sdk-import", daemon=True
    )
    thread.start()
    return thread


def request_left() -> None:
    """An SDK client (or the courier) has sent a request: the preload thread may import what
    comes later."""
    _left.set()


def hold(carries: Callable[[str], bool]) -> None:
    """The courier process sends the calls of the providers `carries` names (`courier.py`):
    their SDKs are not imported here while it says so."""
    global _carrier
    _carrier = carries


def _carried_elsewhere(provider_id: str) -> bool:
    return _carrier is not None and _carrier(provider_id)


def ready(provider_id: str) -> bool:
    """Whether this provider's SDK has been imported here."""
    event = _imported.get(provider_id)
    modules = SDK_MODULES.get(provider_id)
    return bool(event and event.is_set() and modules and modules[0] in sys.modules)


def _import(provider_ids: list[str], then: tuple[Later, ...], tls: bool) -> None:
    global _pending
    if provider_ids:
        try:
            _import_sdks(provider_ids, tls)
        finally:
            with _lock:
                _pending -= 1
                last = _pending == 0
            if last:
                startup.started()  # the SDKs were most of start-up's heap
    if not then:
        return
    _left.wait()
    for step in then:
        try:
            step()
        except Exception as exc:  # the main thread's own import or call raises it again
            log.debug("preparing %s failed: %s", step, exc)


def _import_sdks(provider_ids: list[str], tls: bool) -> None:
    try:
        if tls:
            ssl_context()
        for provider_id in provider_ids:
            sdk, *first_use = SDK_MODULES[provider_id]
            importlib.import_module(sdk)
            for name in first_use:
                with contextlib.suppress(ImportError):  # another SDK version: its first call
                    importlib.import_module(name)
            _done(provider_id)  # its runs may start; the next SDK imports meanwhile
    except Exception as exc:  # the adapter's own import raises it again, where it is handled
        log.debug("preloading the provider SDKs failed: %s", exc)
    finally:
        for provider_id in provider_ids:
            _done(provider_id)


def _done(provider_id: str) -> None:
    with _lock:
        _imported[provider_id].set()
        waiters = _waiting.pop(provider_id, [])
    for loop, future in waiters:
        with contextlib.suppress(RuntimeError):  # that loop has closed: nobody waits
            loop.call_soon_threadsafe(_resolve, future)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def importing() -> bool:
    """Whether a preload thread is still importing."""
    with _lock:
        return _pending > 0


async def imported(provider_id: str, *, tls: bool = True) -> None:
    """Wait until this provider's SDK is imported, importing it in the worker thread if no
    preload has started it (`tls` as for `preload`): the event loop never stalls for the
    second or so it takes, and the runs on a provider already imported carry on meanwhile."""
    modules = SDK_MODULES.get(provider_id)
    if modules is None or (modules[0] in sys.modules and not importing()):
        return
    preload([provider_id], here=True, tls=tls)
    loop = asyncio.get_running_loop()
    future: asyncio.Future[None] = loop.create_future()
    with _lock:
        if _imported[provider_id].is_set():
            return
        # Woken by the worker (`_done`), not polled: polling would take the GIL from the
        # import it waits for every few milliseconds.
        _waiting.setdefault(provider_id, []).append((loop, future))
    await future
