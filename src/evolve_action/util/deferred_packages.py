"""Re-export packages whose body runs at the first use of one of their names, not at import.

The SDKs' `types` packages (`openai.types`, `anthropic.types` and their sub-packages) are
generated hubs: each `__init__.py` only imports every model class of the API from its own
module and re-exports it. `import openai` imports `openai.types`, so a job that calls one
endpoint paid for all of them: 385 of the 520 `openai` modules a run loaded before its first
request went unused, about 0.2 s of the 0.36 s `import openai` took (`bench/README.md`,
§ The SDKs' type hubs). Nothing else in those packages does work at import.

`defer(prefixes)` puts a finder first on `sys.meta_path` that, for a package named by a
prefix (the prefix itself or a package under it), creates the module as usual (`__path__`
set, so its submodules import normally) but runs its body only when code asks the package
for a name it does not hold yet (PEP 562's module `__getattr__`): `from openai.types import
ChatCompletion`, `openai.types.shared`. Then the body runs once, whole, and the name is
looked up as it would have been. A module imported by its full name (`openai.types.chat.
chat_completion`, as the SDK's own modules import them) never runs the hub's body.

What that moves is when the body's imports run, nothing else: the test that pins the SDKs
(`tests/unit/test_deferred_packages.py`) fails if a hub's body ever does more than import.
Because a body of imports can run twice without harm, the hook takes no lock of its own:
two threads that ask at once both run it (the import system's module locks order their
imports as always), and no lock of ours can join a deadlock with those. A name asked for from
inside the body itself (`from . import sub` while the body runs) is not there yet, so the
import system goes on to import it as a submodule, as it does for any package.

Only the program installs this (`commands/cli.py`, once the command is known), never a caller
that imports us.
"""

from __future__ import annotations

import importlib.machinery
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # `importlib.abc` imports `importlib.resources`: 20 ms for two base classes
    from importlib.abc import Loader

_FILE_LOADERS = (importlib.machinery.SourceFileLoader, importlib.machinery.SourcelessFileLoader)
_installed: dict[tuple[str, ...], _Finder] = {}
_install_lock = threading.Lock()


def defer(prefixes: Iterable[str]) -> Callable[[], None]:
    """Defer the bodies of the packages under these dotted prefixes imported from now on;
    returns the function that takes the hook away again (for tests). Installing the same
    prefixes twice installs one hook."""
    key = tuple(sorted(set(prefixes)))
    with _install_lock:
        finder = _installed.get(key)
        if finder is None:
            finder = _installed[key] = _Finder(key)
            sys.meta_path.insert(0, finder)

    def remove() -> None:
        with _install_lock:
            if _installed.pop(key, None) is finder and finder in sys.meta_path:
                sys.meta_path.remove(finder)

    return remove


class _Finder:
    def __init__(self, prefixes: tuple[str, ...]) -> None:
        self.prefixes = prefixes

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not any(fullname == p or fullname.startswith(p + ".") for p in self.prefixes):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.submodule_search_locations is None:
            return spec  # not found, or a plain module: the usual import
        if not isinstance(spec.loader, _FILE_LOADERS):
            return spec  # a namespace package or an unusual loader: left alone
        spec.loader = cast("Loader", _DeferredBody(spec.loader))  # the protocol, not the ABC
        return spec


class _DeferredBody:
    """Creates the package as its own loader would; runs its body on first need."""

    def __init__(self, real: Loader) -> None:
        self.real = real

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.real.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__dict__["__getattr__"] = _first_use(module, self.real)


def _first_use(module: ModuleType, real: Loader) -> Callable[[str], Any]:
    running: set[int] = set()  # threads running the body now
    done = threading.Event()

    def __getattr__(name: str) -> Any:
        if not done.is_set() and threading.get_ident() not in running:
            running.add(threading.get_ident())
            try:
                real.exec_module(module)
            finally:
                running.discard(threading.get_ident())
            done.set()
            if module.__dict__.get("__getattr__") is __getattr__:
                del module.__dict__["__getattr__"]
        try:
            return module.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}") from None

    return __getattr__
