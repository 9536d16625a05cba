"""The Actions runner's file commands: step outputs and the job summary, one helper each.

Outputs use the `name<<DELIMITER` form with a random delimiter that cannot occur in the value
(a fixed one can be forged by the value). The job summary is capped at GitHub's 1 MiB per step:
past it GitHub drops the upload, so we cut first and say so.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SUMMARY_LIMIT = 1024 * 1024
_CUT_NOTE = "\n\n_…the summary was cut at GitHub's 1 MiB limit; results.json has everything._\n"


@dataclass(frozen=True, slots=True)
class RunnerFiles:
    """The runner's file commands (`$GITHUB_OUTPUT`, `$GITHUB_STEP_SUMMARY`); None outside."""

    output: str | None = None
    summary: str | None = None


def format_outputs(values: Mapping[str, str]) -> str:
    lines = []
    for name, value in values.items():
        delimiter = f"EOF_{secrets.token_hex(8)}"
        while delimiter in value:
            delimiter = f"EOF_{secrets.token_hex(8)}"
        lines.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(lines)


def set_outputs(path: str | None, values: Mapping[str, str]) -> None:
    """Append outputs to `$GITHUB_OUTPUT`; outside Actions (no path) this does nothing."""
    if not path:
        return
    with Path(path).open("a", encoding="utf-8") as handle:
        handle.write(format_outputs(values))


def fit_summary(markdown: str, limit: int = SUMMARY_LIMIT) -> str:
    data = markdown.encode("utf-8")
    if len(data) <= limit:
        return markdown
    room = limit - len(_CUT_NOTE.encode("utf-8"))
    return data[:room].decode("utf-8", "ignore") + _CUT_NOTE


def write_summary(path: str | None, markdown: str) -> None:
    """Append to `$GITHUB_STEP_SUMMARY` (one step's summary: at most 1 MiB)."""
    if not path:
        return
    with Path(path).open("a", encoding="utf-8") as handle:
        handle.write(fit_summary(markdown))
