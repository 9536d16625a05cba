"""waza 0.35's follow-up prompts: the user's next messages in the same task, answered in the
same session (`Case.follow_ups`), as `continue_session` asks by default."""

from __future__ import annotations

from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.graders.fields import At

FOLLOW_UP_KEYS = ("follow_ups", "followups", "follow_up_prompts")


def follow_ups(
    problems: Problems, at: At, rel: str, raw: dict[str, Any], inputs: dict[str, Any]
) -> tuple[str, ...]:
    """Follow-up prompts (waza 0.35), answered in the same session; `continue_session: false`
    (each in a new session) is not how a case runs here: warned."""
    found = next((v for k in FOLLOW_UP_KEYS for v in (inputs.get(k), raw.get(k)) if v), None)
    prompts = [p for p in found if isinstance(p, str)] if isinstance(found, list) else []
    if prompts and raw.get("continue_session", inputs.get("continue_session")) is False:
        problems.warn(at, f"{rel}: continue_session: false is not applied; the follow-ups are"
                      " answered in the same session")  # fmt: skip
    return tuple(prompts)
