"""Vally graders, constraints and `expect_activation` as checks and judge items.

Static graders (reference/graders in Vally's docs) become `vally.<family>` checks; the
`not-` forms are the same check negated. A `prompt` grader is one judge item of the run's one
judge call: its own `prompt`, else the stimulus's `rubric`, scored on its `scoring` scale
(binary, scale_1_5 by default, scale_1_10) and passing at its `threshold` (0.5 once
normalized). Each item's `group` is its grader type, which `scoring.weights` names.

Constraints and `expect_activation` are gates, not graders (`formats/graders/gates.py`,
shared with skill-validator and waza). Graders that need what a run here does not have (a
second trajectory for `pairwise`, a judge panel, a grader plugin) are rejected with the
reason.
"""

from __future__ import annotations

from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.graders.fields import (
    At,
    grader_head,
    js_regex,
    seconds,
    strings,
    text,
)
from evolve_action.formats.graders.gates import LIKERT_ANCHORS
from evolve_action.formats.graders.params import grader
from evolve_action.formats.graders.tool_calls import label
from evolve_action.formats.vally.tool_calls import LISTS, tool_calls_params
from evolve_action.formats.vally.turns import grader_turn
from evolve_action.model.evals import Check, Item, JudgeItem, JudgeParams, Scale
from evolve_action.util.text import json_kind

# type → (check family, negated, the config key holding its subject)
STATIC = {
    "output-contains": ("output-contains", False, "substring"),
    "output-not-contains": ("output-contains", True, "substring"),
    "output-matches": ("output-matches", False, "pattern"),
    "output-not-matches": ("output-matches", True, "pattern"),
    "file-exists": ("file-exists", False, "path"),
    "file-not-exists": ("file-exists", True, "path"),
    "file-contains": ("file-contains", False, "value"),
    "file-not-contains": ("file-contains", True, "value"),
    "file-matches": ("file-matches", False, "pattern"),
    "file-not-matches": ("file-matches", True, "pattern"),
    "exit-success": ("exit-success", False, ""),
    "completed": ("completed", False, ""),
}
UNSUPPORTED = {
    "pairwise": "compares two trajectories of `vally compare`; here base and head are compared"
    " by the action itself, so remove it from the eval spec",
    "panel": "a panel of judges is not supported: the action makes one judge call per run;"
    " use a `prompt` grader",
    "program": "runs a grader program, which is not supported yet; use `run-command`",
    "code-review": "asks a reviewing agent for a code review, which a run here does not make;"
    " use a `prompt` grader with the review's criteria",
    "error-count": "counts the Copilot session's error events, which a run here does not"
    " record; use `completed`",
}
SCALES = {"binary": Scale.BINARY, "scale_1_5": Scale.LIKERT5, "scale_1_10": Scale.RANGE10}
DEFAULT_PROMPT = "The response does what the user asked, correctly and completely."


def grader_items(
    problems: Problems, at: At, value: Any, rubric: list[str], turns: int = 1
) -> list[Item]:
    if value is None:
        graders: list[Any] = []
    elif isinstance(value, list):
        graders = value
    else:
        problems.error((*at, "graders"), f"must be a list of graders, not {json_kind(value)}")
        return []
    items: list[Item] = []
    ids: set[str] = set()
    for j, raw in enumerate(graders):
        mark = problems.mark()
        item = _grader(problems, (*at, "graders", j), raw, rubric, j, turns)
        if problems.demote_since(mark, "this grader is not run; the stimulus's other graders run"):
            continue
        if item is None:
            continue
        if item.id in ids:  # Vally names need not be unique; results here need them to be
            item = _renamed(item, f"{item.id}-{j + 1}")
        ids.add(item.id)
        items.append(item)
    if rubric and not any(isinstance(i, JudgeItem) for i in items):
        problems.warn(
            (*at, "rubric"),
            "not graded: a rubric is read by a `prompt` grader, and this stimulus has none;"
            " add `- type: prompt` to its graders",
        )
    return items


def _renamed(item: Item, new_id: str) -> Item:
    if isinstance(item, Check):
        return Check(new_id, item.kind, item.text, item.origin, item.params, group=item.group)
    return JudgeItem(
        new_id, item.text, item.origin, item.scale, item.kind, anchors=item.anchors,
        params=item.params, group=item.group,
    )  # fmt: skip


def _grader(
    problems: Problems, at: At, raw: Any, rubric: list[str], j: int, turns: int
) -> Item | None:
    head = grader_head(problems, at, raw)
    if head is None:
        return None
    kind, config = head
    for key in raw:
        if key not in ("type", "config", "name", "turn", "description"):
            problems.warn((*at, key), f"unknown grader key {key!r} is ignored")
    turn = grader_turn(problems, (*at, "turn"), raw.get("turn"), turns, kind)
    if turn is False:
        return None
    name = raw.get("name") if isinstance(raw.get("name"), str) and raw.get("name") else ""
    item_id = name or f"{kind}-{j + 1}"
    origin = problems.origin(*at)
    if kind == "prompt":
        return _prompt(problems, at, config, rubric, item_id, turn)
    if kind in UNSUPPORTED:
        problems.warn((*at, "type"), f"grader {kind!r} is not run here: {UNSUPPORTED[kind]}")
        return None
    params = _params(problems, at, kind, config)
    if params is None:
        return None
    family = STATIC[kind][0] if kind in STATIC else kind
    if turn is not None:
        params["turn"] = turn
    typed = grader(family, params)
    if typed.skip:  # graded as skipped, with the reason, so the comment says so
        family = "skipped"
    return Check(item_id, f"vally.{family}", _describe(kind, params), origin, typed, group=kind)


def _params(problems: Problems, at: At, kind: str, config: dict[str, Any]) -> dict[str, Any] | None:
    cat = (*at, "config")
    if kind in STATIC:
        _family, negate, subject = STATIC[kind]
        params: dict[str, Any] = {"negate": negate}
        if kind == "output-matches" and config.get("negate") is True:
            params["negate"] = True
        if subject:
            value = text(problems, (*cat, subject), config.get(subject))
            if value is None:
                return None
            params[subject] = value
        if kind.startswith("file-") and subject != "path":
            path = text(problems, (*cat, "path"), config.get("path"))
            if path is None:
                return None
            params["path"] = path
        if subject == "pattern":
            params["pattern"] = _pattern(problems, (*cat, "pattern"), params["pattern"], params)
        return params
    if kind == "run-command":
        return _run_command(problems, cat, config)
    if kind == "wall-time":
        limit = seconds(problems, (*cat, "max"), config.get("max"))
        return None if limit is None else {"max_s": limit}
    if kind == "tool-calls":
        return tool_calls_params(problems, cat, config)
    if kind == "skill-invocation":
        return {
            "required": strings(problems, (*cat, "required"), config.get("required", [])) or [],
            "disallowed": strings(problems, (*cat, "disallowed"), config.get("disallowed", []))
            or [],
        }
    problems.warn(
        (*at, "type"),
        f"grader type {kind!r} is not run: a Vally grader plugin cannot run here; use a built-in"
        " grader (output-*, file-*, run-command, wall-time, prompt, ...)",
    )
    return None


def _run_command(problems: Problems, cat: At, config: dict[str, Any]) -> dict[str, Any] | None:
    before = len(problems.items)
    command = text(problems, (*cat, "command"), config.get("command"))
    code = config.get("expected_exit_code", 0)
    if isinstance(code, bool) or not isinstance(code, int):
        problems.error((*cat, "expected_exit_code"), f"must be a whole number, not {code!r}")
    limit = seconds(problems, (*cat, "timeout"), config["timeout"]) if "timeout" in config else None
    params: dict[str, Any] = {"command": command, "expected_exit_code": code, "timeout_s": limit}
    for key in ("stdout_contains", "stdout_matches"):
        if config.get(key) is not None:
            params[key] = text(problems, (*cat, key), config[key])
    if isinstance(params.get("stdout_matches"), str):
        at = (*cat, "stdout_matches")
        params["stdout_matches"] = _pattern(problems, at, params["stdout_matches"], params)
    return params if len(problems.items) == before else None


def _pattern(problems: Problems, at: At, pattern: str, params: dict[str, Any]) -> str:
    """The pattern in RE2's syntax; one RE2 cannot run marks the grader skipped (warned)."""
    translated, why = js_regex(pattern)
    if why is not None:
        params["skip"] = why
        problems.warn(
            at,
            f"this grader is not run and counts in no verdict: {why}. Vally's JavaScript"
            " regexes allow more; rewrite it without them to have it graded here",
        )
    return translated


def _describe(kind: str, p: dict[str, Any]) -> str:
    subject = p.get("substring") or p.get("pattern") or p.get("value") or p.get("command") or ""
    where = f" in {p['path']}" if "path" in p and kind != "file-exists" else ""
    if kind in ("file-exists", "file-not-exists"):
        return f"{kind} {p['path']}"
    if kind == "wall-time":
        return f"wall-time ≤ {p['max_s']:g} s"
    if kind == "skill-invocation":
        return f"skill-invocation required {p['required']} disallowed {p['disallowed']}"
    if kind == "tool-calls":
        said = [f"{k} {', '.join(label(m) for m in p[k])}" for k in LISTS if p.get(k)]
        return f"tool-calls {'; '.join(said)}"
    return f"{kind} {subject!r}{where}" if subject else kind


def _prompt(
    problems: Problems,
    at: At,
    config: dict[str, Any],
    rubric: list[str],
    item_id: str,
    turn: int | None = None,
) -> JudgeItem | None:
    cat = (*at, "config")
    scoring = config.get("scoring", "scale_1_5")
    if scoring not in SCALES:
        problems.error((*cat, "scoring"), f"must be one of {', '.join(SCALES)}, not {scoring!r}")
        return None
    threshold = config.get("threshold", 0.5)
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not 0 <= threshold <= 1
    ):
        problems.error((*cat, "threshold"), f"must be a number from 0 to 1, not {threshold!r}")
        return None
    if config.get("model") is not None:
        problems.warn(
            (*cat, "model"), "not applied: the action's `judge-model` input chooses the judge"
        )
    own = config.get("prompt")
    if own is not None and text(problems, (*cat, "prompt"), own) is None:
        return None
    lines = [own.strip()] if isinstance(own, str) else []
    if rubric:
        lines.append("Rubric:\n" + "\n".join(f"- {r.strip()}" for r in rubric))
    scale = SCALES[scoring]
    body = "\n".join(lines) or DEFAULT_PROMPT
    if turn is not None:  # the judge sees every user turn and answer, numbered from 1
        body = f"About the agent's answer to user turn {turn + 1}: {body}"
    return JudgeItem(
        item_id,
        body,
        problems.origin(*at),
        scale,
        kind="rubric",
        anchors=LIKERT_ANCHORS if scale is Scale.LIKERT5 else {},
        params=JudgeParams(threshold=float(threshold), scoring=scoring, turn=turn),
        group="prompt",
        source="prompt",
    )
