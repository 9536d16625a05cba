"""mgechev's skillgrade: an `eval.yaml` beside SKILL.md with `version`, `defaults` and
`tasks[] {instruction, workspace, graders}`; deterministic graders are commands printing a
score, `llm_rubric` graders judged."""

from __future__ import annotations

from typing import Any


# Here, not in `load`: every `eval.yaml` is asked (`formats.SHARED_NAME`), and the loader's
# imports are for skillgrade's files alone.
def is_skillgrade(data: Any) -> bool:
    """`tasks` of which one has an `instruction`."""
    tasks = data.get("tasks") if isinstance(data, dict) else None
    return isinstance(tasks, list) and any(
        isinstance(t, dict) and "instruction" in t for t in tasks
    )
