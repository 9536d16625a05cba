"""agentv's `{{variable}}` templates: judge prompts, and the `prompts:` of later files.

Judge prompts are filled before the run with what the case knows (`question`,
`expected_outcome`, `reference_answer`, ...). The answer is not known yet and reaches the judge
in its own section of the judge call, so answer variables become a pointer to that section.
A variable nobody defines stays as written, as AgentV leaves it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

VARIABLE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
ANSWER_VARIABLES = ("candidate_answer", "answer", "output_messages", "output")
ANSWER_PLACEHOLDER = "[the agent's final answer, shown above]"
TEMPLATE_VARIABLES = (
    *ANSWER_VARIABLES,
    "question",
    "expected_outcome",
    "criteria",
    "reference_answer",
    "note",
    "expected_messages",
    "input_messages",
)


def render(
    template: str, known: Mapping[str, str], *, answer: str | None = ANSWER_PLACEHOLDER
) -> str:
    """Fill `{{name}}` from `known`; answer variables become `answer` unless it is None."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in ANSWER_VARIABLES and answer is not None:
            return answer
        return known.get(name, match.group(0))

    return VARIABLE.sub(fill, template)


def prompt_template(prompts: list[str]) -> str | None:
    """The template of a later file's `prompts:`; None when it is just the input itself."""
    first = prompts[0]
    return None if VARIABLE.fullmatch(first.strip()) and "input" in first else first
