"""What the provider clients share: one SSL context, and SDK imports started ahead of need.

Importing an SDK is most of a short run's start-up (`openai` about 0.6 s, `anthropic` about
twice that, on the 2-core machine `bench/coldstart.py` runs on), and every `httpx` client
the SDKs build loads the system's CA bundle into its own SSL context (20-50 ms each).
`preload` starts both in a worker thread as soon as the job knows its providers, so they
overlap reading the eval files, git and planning. The provider adapters then import a
module that is already there, or wait for the import in progress (Python's per-module
import locks make a second `import` wait rather than import twice).

The thread imports only the SDKs and their dependencies, never one of our modules, so it
cannot close an import cycle with the main thread. Its failures are left for the main
thread's own `import` to raise where the provider is built.
"""

from __future__ import annotations

import importlib
import logging
import ssl
import threading
from collections.abc import Iterable

log = logging.getLogger(__name__)

SDK_MODULES = {"anthropic": "anthropic", "openai": "openai"}

_lock = threading.Lock()
_context: ssl.SSLContext | None = None
_started: set[str] = set()


def ssl_context() -> ssl.SSLContext:
    """The SSL context every SDK client uses, built once.

    It is the SDKs' own default (their transport's `create_ssl_context`: the system CA
    bundle, `SSL_CERT_FILE` and `SSL_CERT_DIR` honoured), so sharing it changes nothing a
    client verifies; loading the bundle once instead of per client is the saving.
    """
    global _context
    with _lock:
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
    with _lock:
        wanted = [p for p in dict.fromkeys(provider_ids) if p in SDK_MODULES and p not in _started]
        _started.update(wanted)
    import os

    if not wanted or os.environ.get("TMP_NO_PRELOAD"):
        return None
    thread = threading.Thread(target=_import, args=(wanted,), name="evolve-sdk-import", daemon=True)
    thread.start()
    return thread


def _import(provider_ids: list[str]) -> None:
    try:
        ssl_context()  # loading the CA bundle releases the GIL: it runs beside the main thread
        for provider_id in provider_ids:
            importlib.import_module(SDK_MODULES[provider_id])
    except Exception as exc:  # the main thread's import raises it again, where it is handled
        log.debug("preloading the provider SDKs failed: %s", exc)
