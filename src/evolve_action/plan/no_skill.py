"""The no-skill arm: which suites also run with their skill not installed (`baseline`).

Each case of such a suite runs a third time per repetition, on head's case and checks, with
no skill listed or loadable, everything else the same (prompt, fixtures, model, tools,
harness). Its runs are `Side.NO_SKILL`; they measure the skill's lift (head − no skill) and
never enter the regression verdict. Its fingerprint leaves the skill out
(`Fingerprinter.run(skill=False)`), so a case's no-skill runs are made once and served from
the cache to every later push and pull request.

`baseline: auto` (the default) turns the arm on for:
- a skill new in the pull request (no eval file of the base tree names it), since head's
  pass rates are otherwise compared with nothing;
- an eval file that asks for a without-skill run: skill-evaluator's
  `baseline_comparison: true`, or a Vally eval listed by a root `*.experiment.yaml` with an
  arm that loads no skill (`skills: []`).

Only task cases of suites that install a skill take part: a trigger case asks whether the
skill fires, which it cannot do when absent, and a suite that evaluates a model has no
skill to leave out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from evolve_action.model.evals import CaseKind, Suite
from evolve_action.settings.inputs import Baseline

# Keys of `Suite.policy` with which a format's file asks for a run without its skill.
ASKING_KEYS = ("baseline_comparison", "no_skill_arm")


def asks_for_it(suite: Suite) -> bool:
    """The eval file itself asks for a without-skill run."""
    return any(suite.policy.doc().get(key) is True for key in ASKING_KEYS)


def new_skills(head: Iterable[Suite], base: Iterable[Suite] | None) -> frozenset[str]:
    """Names of the skills head's eval files evaluate and no eval file of base does; nothing
    when there is no base tree (then nothing is new *in a change*)."""
    if base is None:
        return frozenset()
    before = {s.skill.name for s in base}
    return frozenset(s.skill.name for s in head if s.skill.name not in before)


def arm_suites(
    chosen: Sequence[Suite],
    baseline: Baseline,
    *,
    all_base: Iterable[Suite] | None,
) -> list[Suite]:
    """The suites of `chosen` (head's, selected) whose task cases also run without the skill,
    each narrowed to those cases. `all_base`: every suite loaded from the base tree (not only
    the selected ones), None without a base tree."""
    if baseline is Baseline.NONE:
        return []
    fresh = new_skills(chosen, all_base) if baseline is Baseline.AUTO else frozenset()
    out = []
    for suite in chosen:
        if not suite.agent or suite.skill.dir is None:
            continue
        wanted = baseline is Baseline.NO_SKILL or suite.skill.name in fresh or asks_for_it(suite)
        tasks = tuple(c for c in suite.cases if c.kind is CaseKind.TASK)
        if wanted and tasks:
            out.append(suite if len(tasks) == len(suite.cases) else replace(suite, cases=tasks))
    return out
