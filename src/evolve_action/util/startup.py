"""The process's garbage collector around start-up and exit (the program only, never a caller).

Start-up allocates a few hundred thousand long-lived objects (our modules, the SDKs' pydantic
types) and no garbage worth collecting, yet every few hundred allocations the collector
runs, and its older generations walk the whole growing heap: about a fifth of the time
`import openai` takes. So the entry point pauses the collector (`begin`); once the job has
loaded what it needs (`started`: the providers are built), that heap is frozen, so no later
collection walks it, and the collector comes back on for the job, whose asyncio tasks and
tracebacks do make cycles that must be freed during a long run. `validate`, `report` and
`--version` never get there: they are short and their garbage is freed at exit.

At exit (`end`) the process leaves without the interpreter's teardown (a last collection,
then freeing every module's objects one by one: 0.05-0.1 s after a run, more with both SDKs
loaded), once everything it wrote is out: our files are written and closed where they are
made (results, step outputs), standard streams are flushed here and the `atexit` handlers
(logging's among them) run. A live non-daemon thread, or a stream that cannot be flushed,
means the normal exit instead, with the heap frozen so its collection does not walk it.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys

_paused = False


def begin() -> None:
    """Pause the collector for start-up (the program's entry point, before its imports)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def started() -> None:
    """Start-up is over: freeze what it built and turn the collector back on, if `begin`
    turned it off (an embedding caller's collector is left as it was)."""
    global _paused
    if _paused:
        gc.freeze()
        gc.enable()
        _paused = False


def end(code: int) -> int:
    """The program is done with exit status `code`: leave now if that loses nothing, else
    return `code` for the normal exit."""
    gc.freeze()
    import threading  # here: the program's start imports nothing it can leave for later

    main = threading.main_thread()
    if any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate()):
        return code  # the interpreter's exit waits for such a thread; so must we
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: the normal exit reports it as it would
        return code
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)
