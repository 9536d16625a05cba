"""agentv's `{{ variable }}` templates: judge prompts, and the `prompts:` of later files.

A judge prompt, inline or in a file, is read by one rule, AgentV 4's: with variables it is the
judge's template; without any it is the criteria the judge grades by. Either way the judge
sees the agent's answer in its own section, so no prompt is refused for not showing it.
Every generation named the judge's inputs differently (`candidate_answer` in 2.x, `answer` in
the later spec, `output` in 4.x), so all their names are filled. What the case knows
(`input`, `criteria`, `expected_output`, `metadata`, ...) is filled at load time. What only the
run knows reaches the judge in its own section of the judge call, below the items: the answer,
the files the agent changed, its tool calls. Their variables become a pointer to that section,
and the judge item asks for the tool-call section when its template uses it. A variable no
generation defines stays as written, as AgentV leaves it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

VARIABLE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
ANSWER_VARIABLES = ("output", "candidate_answer", "answer", "output_messages")
ANSWER_PLACEHOLDER = "[the agent's final response, shown below]"
# Known when the judge is called: variable → the pointer to the section the judge prompt adds.
RUN_VARIABLES = {
    "file_changes": "[the files the agent changed, listed below; inspect them in the workspace]",
    "tool_calls": "[the agent's tool calls, listed below]",
}
CASE_VARIABLES = (
    # AgentV 4.x
    "input",
    "expected_output",
    "criteria",
    "metadata",
    "metadata_json",
    "rubrics",
    "rubrics_json",
    # AgentV 2.x and the spec
    "question",
    "expected_outcome",
    "reference_answer",
    "note",
    "expected_messages",
    "input_messages",
)
TEMPLATE_VARIABLES = (*ANSWER_VARIABLES, *RUN_VARIABLES, *CASE_VARIABLES)


def variables_in(template: str) -> set[str]:
    return set(VARIABLE.findall(template))


def render(
    template: str, known: Mapping[str, str], *, answer: str | None = ANSWER_PLACEHOLDER
) -> str:
    """Fill `{{name}}` from `known`; answer variables become `answer` unless it is None, run
    variables their pointer."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in ANSWER_VARIABLES and answer is not None:
            return answer
        if name in RUN_VARIABLES and answer is not None and name not in known:
            return RUN_VARIABLES[name]
        return known.get(name, match.group(0))

    return VARIABLE.sub(fill, template)


def prompt_template(prompts: list[str]) -> str | None:
    """The template of a later file's `prompts:`; None when it is just the input itself."""
    first = prompts[0]
    return None if VARIABLE.fullmatch(first.strip()) and "input" in first else first
