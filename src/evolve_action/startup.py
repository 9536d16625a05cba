"""The process's garbage collector around start-up and exit (the program only, never a caller).

Start-up allocates a few hundred thousand long-lived objects (our modules, the SDKs' pydantic
types) and no garbage worth collecting, yet every few hundred allocations the collector
runs, and its older generations walk the whole growing heap: about a fifth of the time
`import openai` takes. So the entry point pauses the collector (`begin`); once the job has
loaded what it needs (`started`: the providers are built), that heap is frozen, so no later
collection walks it, and the collector comes back on for the job, whose asyncio tasks and
tracebacks do make cycles that must be freed during a long run. `validate`, `report` and
`--version` never get there: they are short and their garbage is freed at exit.

At exit (`end`) the heap is frozen again, so the interpreter's final collection does not
walk it either.
"""

from __future__ import annotations

import gc

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


def end() -> None:
    """The program is about to exit: the final collection need not walk what is left."""
    gc.freeze()
