"""Reading a provider's answer from the JSON the server sent, for every wire.

The adapters ask their SDK for the answer's JSON (`cast_to=object`), not its response models:
the SDKs do not validate answers anyway, building the models cost more CPU than reading the
few fields we use, and JSON is what the courier process hands back (`courier.py`). A field of
the wrong type raises `TypeError` (a missing one `KeyError`), which the adapter reports as a
malformed answer (`sdk.SdkAdapter.complete`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def object_of(value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected a JSON object, got {type(value).__name__}")
    return value


def text_of(value: object) -> str:
    """A string field, or "" when it is absent or not a string (some servers send null)."""
    return value if isinstance(value, str) else ""


def tokens(value: object, *, optional: bool = False) -> int:
    """A token count; an optional one may be absent or null (0)."""
    if optional and value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise TypeError(f"a token count is {type(value).__name__}, not an integer")
