"""Every agentv grader type this loader reads, by group, with the spellings of each generation.

One table serves both the loader (a written type → the kind it is graded as) and the message
for an unknown type, so the message always lists exactly what is accepted. Spellings are
compared with `-` and `_` folded together and case ignored (`code-grader` = `code_grader`).
"""

from __future__ import annotations

# group → {the name shown: (the kind it loads as, other spellings)}
CATALOGUE: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {
    "judged by the model": {
        "llm-grader": ("llm_judge", ("llm-judge",)),
        "rubrics": ("rubric", ("rubric", "llm-rubric")),
    },
    "scripts": {
        "code-grader": ("code_judge", ("code-judge", "script")),
    },
    "groups of graders": {
        "composite": ("composite", ()),
    },
    "the answer's text": {
        **{
            name: (name.replace("-", "_"), ())
            for name in (
                "contains",
                "contains-any",
                "contains-all",
                "icontains",
                "icontains-any",
                "icontains-all",
                "starts-with",
                "ends-with",
                "equals",
                "regex",
                "is-json",
            )
        },
    },
    "what the agent did": {
        "tool-trajectory": ("tool_trajectory", ()),
        "execution-metrics": ("execution_metrics", ()),
        "latency": ("latency", ()),
        "cost": ("cost", ()),
        "token-usage": ("token_usage", ()),
        "skill-trigger": ("skill_trigger", ()),
        "skill-used": ("skill_used", ()),
        "not-skill-used": ("not_skill_used", ()),
        # AgentV 5 took these from promptfoo (tool-trajectory's successors).
        "trajectory:tool-used": ("trajectory_tool_used", ()),
        "trajectory:tool-sequence": ("trajectory_tool_sequence", ()),
    },
    "structured answers": {
        "field-accuracy": ("field_accuracy", ()),
    },
}
NEGATABLE_GROUP = "the answer's text"  # `not-contains`, `not-regex`, ...


def _fold(name: str) -> str:
    return name.strip().lower().replace("-", "_")


KINDS: dict[str, str] = {
    _fold(spelling): kind
    for group in CATALOGUE.values()
    for shown, (kind, others) in group.items()
    for spelling in (shown, *others)
}
KINDS.update(
    {
        f"not_{_fold(shown)}": f"not_{kind}"
        for shown, (kind, _) in CATALOGUE[NEGATABLE_GROUP].items()
    }
)


def kind_of_type(written: str) -> str | None:
    """The kind a written type loads as, or None when no generation has it."""
    return KINDS.get(_fold(written))


def accepted_types() -> str:
    """Every accepted type, grouped, for an unknown-type message."""
    parts = []
    for group, names in CATALOGUE.items():
        shown = []
        for name, (_, others) in names.items():
            shown.append(f"{name} ({', '.join(others)})" if others else name)
        parts.append(f"{group}: {', '.join(shown)}")
    negatable = "; any of the answer's text types also as not-<type> (not-contains, ...)"
    return "; ".join(parts) + negatable
