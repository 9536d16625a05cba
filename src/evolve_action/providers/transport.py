"""What the provider clients share: one SSL context, and SDK imports started ahead of need.

Importing an SDK is most of a short run's start-up (`openai` about 0.6 s, `anthropic` about
twice that, on the 2-core machine `bench/coldstart.py` runs on), and every `httpx` client
the SDKs build loads the system's CA bundle into its own SSL context (20-50 ms each).
`preload` starts both in a worker thread as soon as the job knows its providers, so they
overlap reading the eval files, git and planning. An adapter builds its SDK client on its
first call, after `imported` has waited (without holding up the event loop) for its SDK:
with two providers, the runs on the first one imported start while the second imports.

The thread imports only the SDKs and their dependencies, never one of our modules, so it
cannot close an import cycle with the main thread. Its failures are left for the adapter's
own `import` to raise. When it is done, start-up is over (`startup.started`).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import ssl
import sys
import threading
from collections.abc import Iterable

from evolve_action import startup

log = logging.getLogger(__name__)

SDK_MODULES = {"anthropic": "anthropic", "openai": "openai"}

_lock = threading.Lock()
_context_lock = threading.Lock()
_context: ssl.SSLContext | None = None
_imported: dict[str, threading.Event] = {}  # set when the worker's import ended
_pending = 0  # preload threads still importing


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


def preload(provider_ids: Iterable[str]) -> threading.Thread | None:
    """Import these providers' SDKs in a worker thread, in the order given (put first the
    provider the first request goes to), after building the shared SSL context.

    One thread, not one per SDK: imports hold the GIL almost throughout, so two threads
    would only interleave and finish the first-needed SDK later. Returns the thread, or
    None when there is nothing left to import.
    """
    global _pending
    with _lock:
        wanted = [p for p in dict.fromkeys(provider_ids) if p in SDK_MODULES and p not in _imported]
        _imported.update((p, threading.Event()) for p in wanted)
        _pending += bool(wanted)
    if not wanted:
        return None
    thread = threading.Thread(target=_import, args=(wanted,), name="evolve-sdk-import", daemon=True)
    thread.start()
    return thread


def _import(provider_ids: list[str]) -> None:
    global _pending
    try:
        ssl_context()  # loading the CA bundle releases the GIL: it runs beside the main thread
        for provider_id in provider_ids:
            importlib.import_module(SDK_MODULES[provider_id])
            _imported[provider_id].set()  # its runs may start; the next SDK imports meanwhile
    except Exception as exc:  # the adapter's own import raises it again, where it is handled
        log.debug("preloading the provider SDKs failed: %s", exc)
    finally:
        for provider_id in provider_ids:
            _imported[provider_id].set()
        with _lock:
            _pending -= 1
            last = _pending == 0
        if last:
            startup.started()  # the SDKs were the last of start-up's heap


def importing() -> bool:
    """Whether a preload thread is still importing."""
    with _lock:
        return _pending > 0


async def imported(provider_id: str) -> None:
    """Wait until this provider's SDK is imported, importing it in the worker thread if no
    preload has started it: the event loop never stalls for the second or so it takes, and
    the runs on a provider already imported carry on meanwhile."""
    if SDK_MODULES.get(provider_id, "") in sys.modules and not importing():
        return
    preload([provider_id])
    done = _imported.get(provider_id)
    while done is not None and not done.is_set():
        # Polled: an executor thread per waiting run would fill the loop's default executor.
        await asyncio.sleep(0.005)
