"""One agentv case (an `evalcases` / `tests` entry or a JSONL row) → `model.Case`.

The input comes from `agentv_input.py`; here are the case's id, outcome, expected output,
limits and graders. The test's `vars` are rendered into its fields first. Graders follow each
generation's rule: AgentV 4 runs the case's own and then the suite's `assertions` (unless the
case sets `execution.skip_defaults`); before it, a case's own `evaluators` replaced the
suite's. Inline `rubrics` come first (AgentV's order); a case with no grader at all is graded
against its criteria and expected output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from evolve_action.formats.agentv import items as agentv_items
from evolve_action.formats.agentv.common import (
    At,
    Src,
    number,
    text,
)
from evolve_action.formats.agentv.composite import Evaluator
from evolve_action.formats.agentv.evaluators import parse_list
from evolve_action.formats.agentv.input import (
    Preset,
    Prompt,
    conversation,
    input_at,
    input_text,
    plain_input,
    read_input,
)
from evolve_action.formats.agentv.keys import check_keys
from evolve_action.formats.agentv.kinds import CodeJudge
from evolve_action.formats.agentv.rubrics import parse_rubrics
from evolve_action.formats.agentv.vars import with_vars
from evolve_action.formats.documents_json import parse_json
from evolve_action.model.evals import Case, CaseExtra, Check, Fixture
from evolve_action.util.limits import InputError
from evolve_action.util.text import json_kind

OUTCOME_KEYS = ("expected_outcome", "criteria", "outcome")


@dataclass(frozen=True)
class Defaults:
    """Suite-level settings every case inherits unless it sets its own."""

    evaluators: tuple[Evaluator, ...] = ()
    append: bool = False  # AgentV 4: the suite's graders run after each case's own
    timeout_s: float | None = None
    prompt: Prompt | None = None  # the file's prompt, when it is more than the input itself
    preset: Preset = field(default_factory=Preset)  # the suite's `input` and `input_files`
    variables: dict[str, Any] | None = None  # AgentV 5 `default_test.vars`
    threshold: float | None = None  # AgentV 5 `default_test.threshold`


def build_case(src: Src, at: At, row: Any, defaults: Defaults) -> Case | None:
    if not isinstance(row, dict):
        src.error(at, f"a case is a mapping with id, input and criteria, not {json_kind(row)}")
        return None
    check_keys(src, row, at=at, scope="case")
    variables = {**(defaults.variables or {}), **_dict_of(row, "vars")}
    row = with_vars(row, variables)
    variables = {**(defaults.variables or {}), **_dict_of(row, "vars")}
    skip = _dict_of(row, "execution").get("skip_defaults") is True
    case_id = _case_id(src, at, row)
    outcome = _outcome(src, at, row)
    files: list[Fixture] = []
    preset = Preset() if skip else defaults.preset
    turns = read_input(src, at, row, variables, files, defaults.prompt, preset)
    reference, data, expected = _expected(src, at, row, variables)
    evaluators = _evaluators(src, at, row, defaults, skip=skip)
    authored = _authored(row) or (bool(defaults.evaluators) and not skip)
    timeout, threshold = _limits(src, at, row, defaults)
    if case_id is None or turns is None:
        return None
    talk = conversation(src, input_at(at, row, variables), turns)
    if talk is None:
        return None
    system, earlier, prompt = talk
    info = agentv_items.CaseInfo(
        outcome=outcome,
        question=" ".join(t.words for t in turns if t.words),
        reference=reference,
        expected_data=data,
        note=row["note"] if isinstance(row.get("note"), str) else "",
        expected_messages=tuple(expected),
        input_messages=tuple(plain_input(row, variables)),
        input_text=input_text(turns),
        metadata=row.get("metadata"),
    )
    built = agentv_items.build(src, at, evaluators, info, default=not authored)
    return Case(
        id=case_id,
        prompt=prompt,
        origin=src.origin(at),
        name=row["name"] if isinstance(row.get("name"), str) else "",
        messages=earlier,
        system=system,
        expected_output=reference,
        files=tuple(files),
        items=tuple(built.items),
        timeout_seconds=timeout,
        extra=_extra(row, info, files, built, threshold),
    )


def _limits(
    src: Src, at: At, row: dict[str, Any], defaults: Defaults
) -> tuple[float | None, float | None]:
    """(timeout in seconds, pass threshold) of the case's own `execution`, else the suite's."""
    execution = _dict_of(row, "execution")
    timeout, threshold = defaults.timeout_s, defaults.threshold
    if "timeout_seconds" in execution:
        where = (*at, "execution", "timeout_seconds")
        timeout = number(src, where, execution["timeout_seconds"], lo=1, hi=3600, integer=True)
    if "threshold" in execution:
        where = (*at, "execution", "threshold")
        threshold = number(src, where, execution["threshold"], lo=0.0, hi=1.0)
    elif "threshold" in row:  # AgentV 5 writes a test's threshold at the top of the test
        threshold = number(src, (*at, "threshold"), row["threshold"], lo=0.0, hi=1.0)
    return timeout, threshold


def _extra(
    row: dict[str, Any],
    info: agentv_items.CaseInfo,
    files: list[Fixture],
    built: agentv_items.Built,
    threshold: float | None,
) -> CaseExtra:
    """What the verdict policy, judge scripts and the judge read besides the model fields."""
    staged = {
        entry.dest
        for item in built.items
        if isinstance(item, Check) and isinstance(item.params, CodeJudge)
        for entry in item.params.stage
    }
    return CaseExtra(
        threshold=threshold,
        description=row.get("description"),
        groups=tuple(built.groups),
        expected_outcome=info.outcome,
        question=info.question,
        reference_answer=info.reference,
        note=info.note,
        expected_messages=info.expected_messages,
        input_messages=info.input_messages,
        input_files=tuple(f.dest for f in files),
        grader_files=tuple(sorted(staged)),
        conversation_id=row.get("conversation_id"),
        metadata=row.get("metadata"),
    )


def _case_id(src: Src, at: At, row: dict[str, Any]) -> str | None:
    value = row.get("id")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        src.error((*at, "id") if "id" in row else at, "a case needs `id:`, a non-empty string")
        return None
    return value.strip()


def _outcome(src: Src, at: At, row: dict[str, Any]) -> str:
    key = next((k for k in OUTCOME_KEYS if k in row), None)
    if key is None:
        return ""
    return text(src, (*at, key), row[key]) or ""


def _dict_of(row: dict[str, Any], key: str) -> dict[str, Any]:
    value = row.get(key)
    return value if isinstance(value, dict) else {}


def _expected(
    src: Src, at: At, row: dict[str, Any], variables: dict[str, Any]
) -> tuple[str, Any, list[Any]]:
    """(reference text, structured expected data or None, expected messages)."""
    if "expected_messages" in row:
        where, value = (*at, "expected_messages"), row["expected_messages"]
    elif "expected_output" in row:
        where, value = (*at, "expected_output"), row["expected_output"]
    elif "reference_answer" in row:  # AgentV 2's SDK examples
        where, value = (*at, "reference_answer"), row["reference_answer"]
    elif "expected_output" in variables:
        where, value = (*at, "vars", "expected_output"), variables["expected_output"]
    else:
        return "", None, []
    if isinstance(value, str):
        return value, _json_object(value), [{"role": "assistant", "content": value}]
    if isinstance(value, dict):
        messages = [value] if "role" in value else [{"role": "assistant", "content": value}]
    elif isinstance(value, list) and value and isinstance(value[0], dict) and "role" in value[0]:
        messages = value
    elif isinstance(value, list):
        messages = [{"role": "assistant", "content": value}]
    else:
        src.error(where, "expected output is a string, an object or a list of messages")
        return "", None, []
    content = messages[-1].get("content") if isinstance(messages[-1], dict) else None
    if isinstance(content, str):
        return content, _json_object(content), messages
    if content is None:
        return "", None, messages
    return json.dumps(content, indent=2, ensure_ascii=False), content, messages


def _json_object(words: str) -> Any:
    if not words.strip().startswith("{"):
        return None
    try:
        return parse_json(words)
    except InputError:  # not JSON (or over a limit): the expected output stays text
        return None


def _authored(row: dict[str, Any]) -> bool:
    """Whether the case wrote evaluators of its own (even ones that failed to load)."""
    execution = row.get("execution")
    lists = [row.get("assertions"), row.get("evaluators"), row.get("assert"), row.get("rubrics")]
    if isinstance(execution, dict):
        lists.append(execution.get("evaluators"))
    return any(isinstance(v, list) and v for v in lists)


def _own_list(src: Src, at: At, row: dict[str, Any]) -> tuple[Evaluator, ...] | None:
    """The case's own graders, in AgentV 4's order of names; None when it names none."""
    execution = row.get("execution")
    if "assertions" in row:
        return parse_list(src, (*at, "assertions"), row["assertions"])
    if "assert" in row:
        return parse_list(src, (*at, "assert"), row["assert"])
    if isinstance(execution, dict) and "evaluators" in execution:
        return parse_list(src, (*at, "execution", "evaluators"), execution["evaluators"])
    if "evaluators" in row:
        return parse_list(src, (*at, "evaluators"), row["evaluators"])
    return None


def _evaluators(
    src: Src, at: At, row: dict[str, Any], defaults: Defaults, *, skip: bool
) -> tuple[Evaluator, ...]:
    """The case's graders, then the suite's (AgentV 4) or instead of them (before); inline
    rubrics come first (AgentV)."""
    own = _own_list(src, at, row)
    suite = () if skip else defaults.evaluators
    if own is None:
        own = suite
    elif defaults.append:
        taken = {ev.name for ev in own}
        own = (*own, *(_renamed(ev, taken) for ev in suite))
    if "rubrics" not in row:
        return own
    rubrics = parse_rubrics(src, (*at, "rubrics"), row["rubrics"])
    if not rubrics:
        return own
    taken = {ev.name for ev in own}
    name, n = "rubric", 1
    while name in taken:
        n += 1
        name = f"rubric-{n}"
    inline = Evaluator(name, "rubric", src.origin((*at, "rubrics")), rubrics=rubrics)
    return (inline, *own)


def _renamed(ev: Evaluator, taken: set[str]) -> Evaluator:
    """A suite grader whose name a case grader already uses gets the next free `name-N`."""
    name, n = ev.name, 1
    while name in taken:
        n += 1
        name = f"{ev.name}-{n}"
    taken.add(name)
    return ev if name == ev.name else replace(ev, name=name)
