"""caliper (`caliper-eval`): a `<name>.eval.yaml` beside a SKILL.md whose `tasks` each hold a
prompt, an `expect` for the judge, `activates` (which skill the agent should pick) and an
inline Python `assert`, which is not run here."""

from __future__ import annotations

from typing import Any

TASK_MARKS = ("expect", "assert", "activates")


# Here, not in `load`: every `*.eval.yaml` is asked (`formats.SHARED_NAME`), and the loader's
# imports are for caliper's files alone.
def is_caliper(data: Any) -> bool:
    """`tasks` of inline tasks with a prompt and one of caliper's graders."""
    tasks = data.get("tasks") if isinstance(data, dict) else None
    return isinstance(tasks, list) and any(
        isinstance(t, dict) and "prompt" in t and any(k in t for k in TASK_MARKS) for t in tasks
    )
