"""Eval files that several tests write: AgentV keyword cases for a plain model (no skill), and
evolve's greeter cases, which check that the agent wrote `hello.txt`."""

from __future__ import annotations

from collections.abc import Collection

GREETER_SKILL = "---\nname: greeter\ndescription: Greets people in hello.txt.\n---\n{body}\n"
# The skill of the other formats' end-to-end tests (AgentV, Vally, waza, promptfoo).
GREETER_SKILL_MD = """---
name: greeter
description: Writes a greeting file when asked to greet someone.
---
Write `hello.txt` containing `Hello, <name>!`.
"""


def keyword_eval(description: str, count: int, judged: Collection[int] | None = None) -> str:
    """An AgentV suite of `count` cases `case-i`: the reply must name `kwix` (a regex), and the
    cases in `judged` (all by default) also have an `llm-grader`."""
    lines = [f"description: {description}", "tests:"]
    for i in range(count):
        lines += [
            f"  - id: case-{i}",
            f"    criteria: The reply mentions kw{i}x",
            f"    input: 'Reply in one sentence about the keyword. Keyword: kw{i}x'",
            "    assertions:",
            f"      - {{type: regex, value: '\\bkw{i}x\\b'}}",
        ]
        if judged is None or i in judged:
            lines.append("      - {type: llm-grader, name: judge}")
    return "\n".join(lines) + "\n"


def greeter_case(case_id: str, pattern: str, prompt: str | None = None) -> dict[str, object]:
    """An evolve case: greet Ada, and `hello.txt` must match `pattern`."""
    return {
        "id": case_id,
        "prompt": prompt or f"Greet Ada ({case_id}).",
        "assertions": [{"type": "regex", "path": "hello.txt", "pattern": pattern}],
    }
