"""Importing a module by name when its first use comes, not when its caller is imported.

A job imports only what it uses: the loader of a format the repository has files of, the
adapter of a provider it calls, the family modules a check kind needs. Each registry names
those modules as data (`formats/families.py`, `model/provider_table.py`), and every one of them
resolves the name here, so a module that is not there is told apart from one that is broken
the same way everywhere.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


def module(name: str) -> ModuleType:
    """The module `name`, imported now if it was not (a dictionary look-up once it was)."""
    return importlib.import_module(name)


def attribute(reference: str) -> Any:
    """`package.module:name` → that module's attribute, importing the module first."""
    name, _, attr = reference.partition(":")
    return getattr(importlib.import_module(name), attr)


def optional(name: str) -> ModuleType | None:
    """The module `name`, or None when it is not in this build; an import error raised from
    inside the module (a missing dependency of its own, a bug) still raises."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise
