"""The Vally loader: Microsoft's `eval.yaml` / `*.vally.yaml` holding `stimuli:`.

A Vally eval spec (microsoft.github.io/vally, reference/eval-spec) is `name`, `description`,
`version`, `type` (capability | regression), a root `environment` (skills, files, commands)
merged into every stimulus, `config` / `defaults` (runs, timeout, model, judge_model,
executor), `stimuli` and `scoring` (`weights` per grader type, `threshold`). Each stimulus
becomes one case (`vally_stimulus.py`); its static graders become checks and its `prompt`
graders judge items of the one judge call (`vally_graders.py`).

A stimulus of several `turns` is a conversation the agent answers turn by turn
(`vally_turns`); `environment.commands` run in the confinement before the agent starts.
What Vally does that a run here cannot is said, never skipped quietly: a custom executor is
warned (the action's agent runs); a setting that does not read leaves its default (warned);
a grader that does not read is left out and a stimulus that does not read is not run, each
warned while the rest of the file runs; a file none of whose stimuli can run is not run.
The skill under test is the one `environment.skills` names, else the skilled arm of a
`*.experiment.yaml` at the repository root that lists this eval (`vally_skills.py`), else
the one discovery found beside the file.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.graders.fields import At, seconds
from evolve_action.formats.vally import environments
from evolve_action.formats.vally import skills as vally_skills
from evolve_action.formats.vally.stimulus import Shared, build_case, root_servers
from evolve_action.model.evals import Case, Format, LoadResult, Origin, Suite, SuitePolicy
from evolve_action.util.text import json_kind

TOP_READ = frozenset(
    {"name", "description", "version", "type", "environment", "config", "defaults"}
    | {"stimuli", "scoring"}
)
# Read by Vally's own tooling around a run, without effect on one: sharding of the dotnet
# workflow, the hve-core surface signatures its driver compares.
TOP_NO_EFFECT = frozenset({"executionShard", "surface_signatures", "tags", "metadata", "area"})
CONFIG_READ = frozenset({"runs", "timeout", "executor"})
CONFIG_NO_EFFECT = {
    "model": "the action's `models` input chooses the models",
    "judge_model": "the action's `judge-model` input chooses the one judge",
    "judge_reasoning_effort": "the action's `judge-model` input chooses the one judge",
}
EXECUTORS = ("copilot-sdk",)  # built in; a run here is the action's own agent loop
TYPES = ("capability", "regression")


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    problems = Problems(doc)
    suite = _suite(environments.resolved(doc, ctx, problems), ctx, problems)
    return problems.result(Format.VALLY, suite)


def _suite(doc: Document, ctx: LoadContext, problems: Problems) -> Suite | None:
    data = doc.data
    if not isinstance(data, dict):
        problems.error((), f"a Vally eval spec is a mapping with `stimuli:`, not {json_kind(data)}")
        return None
    for key in data:
        if key not in TOP_READ and key not in TOP_NO_EFFECT:
            problems.warn((key,), f"unknown Vally key {key!r} is ignored; check its spelling")
    kind = data.get("type")
    if kind is not None and kind not in TYPES:
        problems.warn(
            ("type",), f"read as capability: Vally's types are {', '.join(TYPES)}, not {kind!r}"
        )
        kind = None
    mark = problems.mark()  # settings that tune a run: a bad one leaves the default
    runs, timeout = _config(data, problems)
    scoring = _scoring(data.get("scoring"), problems)
    problems.demote_since(mark, "left out; the default applies and the stimuli run")
    skill = vally_skills.skill_for(doc, ctx, problems)
    env = data.get("environment")
    shared = Shared(doc, ctx, problems, skill, timeout, env, root_servers(problems, env))
    stimuli = data.get("stimuli")
    if not isinstance(stimuli, list) or not stimuli:
        problems.error(("stimuli",), "must be a non-empty list of stimuli (Vally needs one)")
        return None
    cases = _cases(shared, stimuli, problems)
    if not cases and not problems.has_errors:
        problems.not_run(("stimuli",), "no stimulus of this file can run here (below, why)")
        return None
    name = data.get("name") if isinstance(data.get("name"), str) else ""
    return Suite(
        format=Format.VALLY,
        path=doc.path,
        rel=doc.rel,
        skill=skill,
        cases=tuple(cases),
        name=name or skill.name,
        runs=runs,
        policy=SuitePolicy.from_doc(
            {**scoring, "type": kind or "capability", **_bare_arm(doc, ctx)}
        ),
        agent=True,
        warnings=problems.warnings(),
    )


def _cases(shared: Shared, stimuli: list[Any], problems: Problems) -> list[Case]:
    """The file's stimuli as cases, one id per case: a stimulus with a problem is left out."""
    cases: list[Case] = []
    seen: dict[str, Origin] = {}
    for i, raw in enumerate(stimuli):
        mark = problems.mark()
        case = build_case(shared, ("stimuli", i), raw)
        if problems.demote_since(mark, "this stimulus is not run; the file's other stimuli run"):
            continue
        if case is None:
            continue
        if case.id in seen:  # Vally runs both; results here need one id per case
            where = seen[case.id]
            new_id = _free_id(case.id, seen)
            problems.warn(
                ("stimuli", i, "name"),
                f"stimulus {case.id!r} is already at {where}; this one is reported as"
                f" {new_id!r}. Give each stimulus its own name",
            )
            case = replace(case, id=new_id)
        seen[case.id] = case.origin
        cases.append(case)
    return cases


def _bare_arm(doc: Document, ctx: LoadContext) -> dict[str, bool]:
    """An experiment's skill-free arm asks for the no-skill arm; set only then, so the other
    suites keep their fingerprints."""
    return {"no_skill_arm": True} if vally_skills.has_bare_arm(doc.path, ctx.root) else {}


def _free_id(name: str, seen: dict[str, Origin]) -> str:
    n = 2
    while f"{name} ({n})" in seen:
        n += 1
    return f"{name} ({n})"


def _config(data: dict[str, Any], problems: Problems) -> tuple[int | None, float | None]:
    """`defaults` then `config` (the documented name wins where both set a key)."""
    merged: dict[str, tuple[At, Any]] = {}
    for block in ("defaults", "config"):
        value = data.get(block)
        if value is None:
            continue
        if not isinstance(value, dict):
            problems.error((block,), f"must be a mapping, not {json_kind(value)}")
            continue
        for key, item in value.items():
            merged[key] = ((block, key), item)
    runs: int | None = None
    timeout: float | None = None
    for key, (at, value) in merged.items():
        if key == "runs":
            runs = _runs(at, value, problems)
        elif key == "timeout":
            timeout = seconds(problems, at, value)
        elif key == "executor":
            if value not in EXECUTORS:
                problems.warn(
                    at,
                    f"not applied: executor {value!r} is a Vally executor plugin, which cannot"
                    " run here; the action's own agent runs the stimuli with its models"
                    " (copilot-sdk, the built-in one, is read as the action's agent)",
                )
        elif key in CONFIG_NO_EFFECT:
            problems.warn(at, f"not applied: {CONFIG_NO_EFFECT[key]}")
        else:
            problems.warn(at, f"unknown config key {key!r} is ignored; check its spelling")
    return runs, timeout


def _runs(at: At, value: Any, problems: Problems) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.error(at, f"must be a whole number of runs, not {value!r}")
        return None
    if value == 0:
        problems.warn(at, "runs: 0 is Vally's lint-only mode; here the `runs` input decides")
        return None
    return value


def _scoring(value: Any, problems: Problems) -> dict[str, Any]:
    """`weights` per grader type and a `threshold` in [0, 1]; without a threshold Vally's
    verdict is binary (every grader passes)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.error(("scoring",), f"must be a mapping, not {json_kind(value)}")
        return {}
    out: dict[str, Any] = {}
    threshold = value.get("threshold")
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            problems.error(("scoring", "threshold"), f"must be a number, not {threshold!r}")
        elif not 0 <= threshold <= 1:
            problems.error(("scoring", "threshold"), f"must be between 0 and 1, not {threshold}")
        else:
            out["threshold"] = float(threshold)
    weights = value.get("weights")
    if weights is not None:
        if not isinstance(weights, dict):
            problems.error(("scoring", "weights"), f"must be a mapping, not {json_kind(weights)}")
        else:
            good: dict[str, float] = {}
            for key, weight in weights.items():
                ok = isinstance(weight, int | float) and not isinstance(weight, bool)
                if not ok or weight < 0:
                    problems.error(("scoring", "weights", key), "must be a number ≥ 0")
                    continue
                good[str(key)] = float(weight)
            out["weights"] = good
    for key in value:
        if key not in ("threshold", "weights"):
            problems.warn(("scoring", key), f"unknown scoring key {key!r} is ignored")
    return out
