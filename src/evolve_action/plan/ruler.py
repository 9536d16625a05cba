"""What a pull request changed in its own evals, case by case.

Base runs are graded with base's checks and head runs with head's, so a PR could break its
skill and, in the same PR, delete or relax the check that would have caught it. This module
says, per case, what changed between the base and the head eval file:

- a *changed case*: the task differs (prompt, conversation, system prompt, staged files); the
  two sides measure different things and are not compared;
- a *changed ruler*: the same task with other checks, thresholds or required flags;
- a *renamed* case: its id is gone but a head case has the very same task (matched by task,
  never by id); its checks may have changed as well;
- a *removed* case: gone, and no head case has its task.

For a changed ruler and a rename, head's runs are graded with base's checks too
(`RunSpec.ruler`), and each difference is named in words ("removed: …", "regex /a/ → /b/",
"min_pass_rate 0.8 → 0.2"). Everything here compares the normalized model, so every format
is covered by the same rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

from evolve_action.model.evals import Case, Check, Item, JudgeItem, Suite
from evolve_action.model.outcomes import Side
from evolve_action.plan.fingerprints import (
    TASK_FIELDS,
    case_digest,
    digest,
    file_digest,
    plain,
    task_digest,
)
from evolve_action.plan.planning import Plan, Ruler
from evolve_action.util import frontmatter


class CaseChange(StrEnum):
    CHANGED_CASE = "changed case"  # another task: not compared
    CHANGED_RULER = "changed ruler"  # the same task, other checks
    RENAMED = "renamed"  # the same task under another id
    REMOVED = "removed"  # gone, no head case has its task


@dataclass(frozen=True, slots=True)
class CaseDiff:
    """One case's change between base and head, with each changed check in words."""

    suite: str  # Suite.rel
    change: CaseChange
    base_case: str  # its id on base
    head_case: str  # its id on head; "" when removed
    diffs: tuple[str, ...] = ()  # "removed: …", "regex /a/ → /b/", "min_pass_rate 0.8 → 0.2"
    gating: bool = True  # the PR touched the skill: a regression under base's checks fails
    what: str = ""  # for a changed case: which part of the task changed

    @property
    def compared(self) -> bool:
        """Head's runs are graded with base's checks too."""
        return self.change in (CaseChange.CHANGED_RULER, CaseChange.RENAMED)


SKILL = "<the skill>"


@lru_cache(maxsize=256)
def _skill_body(skill_dir: Path | None) -> str:
    if skill_dir is None:
        return ""
    try:
        text = (skill_dir / "SKILL.md").read_text(encoding="utf-8")
    except (OSError, UnicodeError):
        return ""
    return frontmatter.split(text)[1].strip()


def without_skill(suite: Suite, case: Case) -> Case:
    """The case with its skill's own text taken out: a format that makes the skill its system
    prompt (clauditor) or keeps it among its fields would otherwise read a change of the skill
    as a change of the task or of the checks."""
    body = _skill_body(suite.skill.dir)
    if not body or (body not in (case.system or "") and body not in repr(case.extra)):
        return case
    said = {f.name: getattr(case.extra, f.name) for f in fields(case.extra)}
    texts: dict[str, Any] = {
        k: v.replace(body, SKILL) for k, v in said.items() if isinstance(v, str)
    }
    extra = replace(case.extra, **texts)
    system = case.system.replace(body, SKILL) if case.system is not None else None
    return replace(case, system=system, extra=extra)


def _task_parts(base: Case, head: Case) -> str:
    changed = [n for n in TASK_FIELDS if plain(getattr(base, n)) != plain(getattr(head, n))]
    files = sorted((f.dest, file_digest(f.source)) for f in base.files)
    if files != sorted((f.dest, file_digest(f.source)) for f in head.files):
        changed.append("input files")
    return ", ".join(changed)


def item_key(item: Item) -> str:
    """What an item says and how it is graded, not its id or place: two items with the same
    key are the same check (and are graded once when two rulers share it).

    Kept by the item's identity (items are frozen): grading asks it for every item of every
    run, and canonical JSON of the item each time was a tenth of a millisecond per ask. Not
    by equality: `1 == True`, yet their keys differ."""
    hit = _item_keys.get(id(item))
    if hit is not None and hit[0] is item:
        return hit[1]
    if len(_item_keys) >= _ITEM_KEYS_KEPT:  # bounded, whatever the job
        _item_keys.clear()
    key = _item_content(item)
    _item_keys[id(item)] = (item, key)  # the item held, so its id is not reused meanwhile
    return key


_ITEM_KEYS_KEPT = 20_000
_item_keys: dict[int, tuple[Item, str]] = {}


def _item_content(item: Item) -> str:
    doc = plain(item)
    doc.pop("id", None)
    return digest([type(item).__name__, doc])


def _ruler_doc(suite: Suite, case: Case) -> Any:
    items = sorted(item_key(i) for i in case.items)
    rest = {n: plain(getattr(case, n)) for n in ("expected_output", "output_files", "extra")}
    return {"items": items, "policy": plain(suite.policy), **rest}


def ruler_key(suite: Suite, case: Case) -> str:
    """The identity of a ruler: the case as base wrote it, in its file's policy."""
    return case_digest(suite, case)


def classify(base: Suite, head: Suite, *, gating: bool) -> list[CaseDiff]:
    """Every case of `base` that changed in `head` (same eval file), with its differences."""
    heads = {c.id: without_skill(head, c) for c in head.cases}
    base_ids = {c.id for c in base.cases}
    by_task: dict[str, list[Case]] = {}
    for c in heads.values():
        if c.id not in base_ids:
            by_task.setdefault(task_digest(c), []).append(c)
    out: list[CaseDiff] = []
    for b in (without_skill(base, c) for c in base.cases):
        h = heads.get(b.id)
        if h is None:
            twins = by_task.get(task_digest(b), [])
            if twins:
                h = twins.pop(0)
                diffs = describe(base, b, head, h)
                out.append(CaseDiff(base.rel, CaseChange.RENAMED, b.id, h.id, diffs, gating))
            else:
                out.append(CaseDiff(base.rel, CaseChange.REMOVED, b.id, "", (), gating))
        elif task_digest(b) != task_digest(h):
            what = _task_parts(b, h)
            out.append(CaseDiff(base.rel, CaseChange.CHANGED_CASE, b.id, h.id, (), gating, what))
        elif _ruler_doc(base, b) != _ruler_doc(head, h):
            diffs = describe(base, b, head, h)
            out.append(CaseDiff(base.rel, CaseChange.CHANGED_RULER, b.id, h.id, diffs, gating))
    return out


def classify_all(
    base: Iterable[Suite], head: Iterable[Suite], touched: Mapping[str, bool]
) -> list[CaseDiff]:
    """`classify` for every eval file run on both sides, and every case of a deleted one;
    `touched`: suite rel → whether the PR changed its skill (a PR that changes only evals is
    reported, never failed, by this)."""
    heads = {s.rel: s for s in head}
    out: list[CaseDiff] = []
    for b in base:
        if b.rel in heads:
            out += classify(b, heads[b.rel], gating=touched.get(b.rel, False))
        else:  # the eval file was deleted: every case of it is removed
            out += [CaseDiff(b.rel, CaseChange.REMOVED, c.id, "") for c in b.cases]
    return out


def with_rulers(plan: Plan, base: Sequence[Suite], diffs: Sequence[CaseDiff]) -> Plan:
    """The plan, each head run of a changed ruler or a renamed case carrying base's case."""
    cases = {(s.rel, c.id): (s, c) for s in base for c in s.cases}
    rulers: dict[tuple[str, str], Ruler] = {}
    for d in diffs:
        if d.compared and (d.suite, d.base_case) in cases:
            suite, case = cases[(d.suite, d.base_case)]
            rulers[(d.suite, d.head_case)] = Ruler(suite, case, ruler_key(suite, case))
    runs = [
        replace(r, ruler=rulers[(r.suite.rel, r.case.id)])
        if r.side is Side.HEAD and (r.suite.rel, r.case.id) in rulers
        else r
        for r in plan.runs
    ]
    return Plan(runs, plan.skipped, plan.adaptive)


def _relative(path: Path, tree: Path) -> str | None:
    try:
        return path.resolve().relative_to(tree.resolve()).as_posix()
    except ValueError:
        return None


def skill_touched(suite: Suite, tree: Path, changed: Sequence[str]) -> bool:
    """Whether the change touched a file of the suite's skill. The eval file and the files it
    stages are evals, even inside the skill's folder (clauditor keeps them there); a suite
    with no skill (a model-only AgentV file) has no skill to touch."""
    rel = _relative(suite.skill.dir, tree) if suite.skill.dir is not None else None
    if rel is None:
        return False
    evals = {suite.rel} | {
        r for c in suite.cases for f in c.files if (r := _relative(f.source, tree)) is not None
    }
    prefix = "" if rel == "." else rel + "/"
    return any(p.startswith(prefix) and p not in evals for p in changed)


# --- the differences in words --------------------------------------------------------------


def _show(value: Any) -> str:
    if value is None:
        return "optional"
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= 80 else text[:77] + "…"


def _keys(before: Any, after: Any) -> list[str]:
    """`key a → b` for each key of two mappings that differs (thresholds, format fields)."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return [] if before == after else [f"{_show(before)} → {_show(after)}"]
    return [
        f"{key} {_show(before.get(key))} → {_show(after.get(key))}"
        for key in sorted(set(before) | set(after))
        if before.get(key) != after.get(key)
    ]


def _param(kind: str, key: str, before: Any, after: Any) -> str:
    if key in ("pattern", "regex") or (key == "value" and "regex" in kind):
        return f"regex /{_show(before)}/ → /{_show(after)}/"
    return f"{key} {_show(before)} → {_show(after)}"


def _changed(b: Item, h: Item) -> list[str]:
    out: list[str] = []
    if isinstance(b, Check) and isinstance(h, Check) and b.kind != h.kind:
        return [f"`{b.text}` → `{h.text}`"]
    params_b, params_h = plain(b.params), plain(h.params)
    for key in sorted(set(params_b) | set(params_h)):
        if params_b.get(key) != params_h.get(key):
            out.append(_param(getattr(b, "kind", ""), key, params_b.get(key), params_h.get(key)))
    if isinstance(b, JudgeItem) and b.text != h.text:
        out.append(f"“{_show(b.text)}” → “{_show(h.text)}”")
    for name in ("required", "weight", "critical", "scale", "anchors"):
        before, after = plain(getattr(b, name, None)), plain(getattr(h, name, None))
        if before != after:
            out.append(f"{name} {_show(before)} → {_show(after)}")
    label = f"`{b.text}`" if isinstance(b, Check) else f"“{_show(b.text)}”"
    return [f"{label}: {d}" if not d.startswith(label) else d for d in out] or [f"{label} changed"]


def describe(base: Suite, b: Case, head: Suite, h: Case) -> tuple[str, ...]:
    """Each check base has and head lacks or changed, then the thresholds, in words."""
    left = list(h.items)
    unmatched: list[Item] = []
    for item in b.items:
        same = next((x for x in left if item_key(x) == item_key(item)), None)
        if same is None:
            unmatched.append(item)
        else:
            left.remove(same)
    out: list[str] = []
    for item in unmatched:
        twin = next((x for x in left if x.id == item.id and type(x) is type(item)), None)
        if twin is None:
            quoted = f"`{item.text}`" if isinstance(item, Check) else f"“{_show(item.text)}”"
            out.append(f"removed: {quoted}")
        else:
            left.remove(twin)
            out += _changed(item, twin)
    for item in left:
        out.append(f"added: `{item.text}`" if isinstance(item, Check) else f"added: “{item.text}”")
    out += _keys(plain(base.policy), plain(head.policy))
    out += _keys(plain(b.extra), plain(h.extra))
    for name in ("expected_output", "output_files"):
        if plain(getattr(b, name)) != plain(getattr(h, name)):
            out.append(f"{name} changed")
    return tuple(out)
