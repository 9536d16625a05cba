"""Run fingerprints: what a run's result depends on, hashed, so unchanged work is never redone.

A fingerprint covers the normalized case (its prompt, items and limits, not where it sits in
the file), the bytes of its fixtures, every file of the skill directory, the model, the judge
model, the format's grading policy, the repetition and the tool's version (docs/design.md
§Sides). Paths enter relative to the tree they come from, so the same skill in the base and the head
worktree hashes the same, and so does a second checkout on another runner.

A run of the no-skill arm (`skill=False`) leaves the skill out: it depends on the case, its
fixtures, the model, the judge, the harness and the tool's version only, so it is made once
and then served from the cache to every later push and every other pull request.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from evolve_action import __version__
from evolve_action.model.evals import Case, Origin, Suite

# Bump when grading changes meaning without the version changing (development builds).
GRADING_REVISION = 1


# Fields added to the model after fingerprints were first kept: hashed only when set, so a
# case that does not use them keeps the fingerprint (and the cached runs) it had.
_ONLY_WHEN_SET = frozenset({"follow_ups", "setup_commands", "content", "mcp_servers"})


_LEAVES = frozenset({str, int, float, bool, type(None)})  # exact types: an Enum is not one
_hashed_fields: dict[type, tuple[str, ...]] = {}  # per dataclass, the fields `plain` keeps


def plain(value: Any) -> Any:
    """The JSON-able content of a model value; `Origin`s and absolute paths are left out
    (`plan.ruler` compares cases by it too)."""
    kind = type(value)
    if kind in _LEAVES:  # most of a case's values: tested first, a job makes 100,000s of calls
        return value
    shape = _shapes.get(kind)
    if shape is None:
        shape = _shapes[kind] = _shape(kind)
    if shape is _Shape.DATACLASS:
        out = {}
        for name in _fields_of(kind):
            field_value = getattr(value, name)
            if not (name in _ONLY_WHEN_SET and field_value in ((), None)):
                out[name] = field_value if type(field_value) in _LEAVES else plain(field_value)
        return out
    if shape is _Shape.SEQUENCE:
        return [v if type(v) in _LEAVES else plain(v) for v in value]
    if shape is _Shape.ENUM:
        return value.value
    if shape is _Shape.MAPPING:
        return {str(k): plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if shape is _Shape.SET:
        return sorted(plain(v) for v in value)
    if shape is _Shape.DROPPED:
        return None  # an `Origin`; a path (fixture sources are hashed by content below)
    return value


class _Shape(Enum):
    """How `plain` reads a value, by its type: what the type is never changes, so each type
    is asked once (the `isinstance` chain was a third of a fingerprint's time)."""

    DATACLASS = 1
    SEQUENCE = 2
    ENUM = 3
    MAPPING = 4
    SET = 5
    DROPPED = 6
    AS_IS = 7


_shapes: dict[type, _Shape] = {}


def _shape(kind: type) -> _Shape:
    # In this order: an `Origin` is a dataclass too, and a dataclass may also be a mapping.
    if issubclass(kind, Origin | Path):
        return _Shape.DROPPED
    if is_dataclass(kind):
        return _Shape.DATACLASS
    for base, shape in _BY_BASE:
        if issubclass(kind, base):
            return shape
    return _Shape.AS_IS


_BY_BASE = (
    (Enum, _Shape.ENUM),
    (Mapping, _Shape.MAPPING),
    (list | tuple, _Shape.SEQUENCE),
    (frozenset | set, _Shape.SET),
)


def _fields_of(kind: type) -> tuple[str, ...]:
    names = _hashed_fields.get(kind)
    if names is None:
        names = tuple(
            f.name for f in fields(kind) if f.name != "origin" and not f.metadata.get("location")
        )
        _hashed_fields[kind] = names
    return names


def digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "missing"


def tree_digest(root: Path | None) -> str:
    """Hash of every regular file below `root` (relative path and bytes), symlinks by target."""
    if root is None or not root.is_dir():
        return "missing"
    entries: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "__pycache__"))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                entries.append((rel, "link:" + str(path.readlink())))
            else:
                entries.append((rel, file_digest(path)))
    return digest(entries)


def case_digest(suite: Suite, case: Case) -> str:
    fixtures = [(f.dest, file_digest(f.source)) for f in case.files]
    return digest(
        {
            "format": suite.format.value,
            "policy": plain(suite.policy),
            "case": plain(case),
            "fixtures": fixtures,
            # Only when set, so every other suite keeps the fingerprints it had.
            **({} if suite.agent else {"agent": False}),
        }
    )


# Fields of a case that make its task: what the agent is asked to do and within what limits.
# Everything else a case holds (its items, expected output, format fields) is how it is graded.
TASK_FIELDS = ("kind", "prompt", "messages", "system", "should_trigger", "max_turns")


def task_digest(case: Case) -> str:
    """What the agent is asked to do: the task fields and the bytes of its staged files."""
    fixtures = sorted((f.dest, file_digest(f.source)) for f in case.files)
    return digest({**{n: plain(getattr(case, n)) for n in TASK_FIELDS}, "files": fixtures})


class Fingerprinter:
    """Fingerprints for one pipeline run; directory and case hashes are computed once each.

    Trees are hashed once per instance, so make a new instance whenever files may have
    changed (each `run` does).
    """

    def __init__(
        self, judge_model: str, harness: str = "", agents: Mapping[str, str] | None = None
    ) -> None:
        self.judge_model = judge_model
        self.harness = harness  # "" for the SDK loop; the CLIs and their versions otherwise
        # With several agents: each one's CLI and version, for the runs that name it.
        self.agents = dict(agents or {})
        self._trees: dict[Path | None, str] = {}
        self._cases: dict[tuple[str, str, str, bool, str], str] = {}
        self._tasks: dict[tuple[str, str, str, bool, str], str] = {}

    def _harness(self, agent: str) -> str:
        return self.agents.get(agent, self.harness) if agent else self.harness

    def tree(self, root: Path | None) -> str:
        if root not in self._trees:
            self._trees[root] = tree_digest(root)
        return self._trees[root]

    def run(
        self,
        suite: Suite,
        case: Case,
        *,
        model: str,
        repetition: int,
        skill: bool = True,
        agent: str = "",
    ) -> str:
        """What the run's result depends on; `agent` (a job of several agents) is part of it."""
        key = (str(suite.path), suite.rel, case.id, skill, agent)
        harness = self._harness(agent)
        if key not in self._cases:
            installed = (
                {"skill": self.tree(suite.skill.dir), "plugin_skills": self._plugin_skills(suite)}
                if skill
                else {"arm": "no-skill"}
            )
            self._cases[key] = digest(
                {
                    "case": case_digest(suite, case),
                    **installed,
                    "judge": self.judge_model,
                    "tool": __version__,
                    "grading": GRADING_REVISION,
                    # Only when set, so the SDK loop's runs keep the fingerprints they had.
                    **({"harness": harness} if harness else {}),
                }
            )
        return digest([self._cases[key], model, repetition, *([agent] if agent else [])])

    def task(
        self,
        suite: Suite,
        case: Case,
        *,
        model: str,
        repetition: int,
        skill: bool = True,
        agent: str = "",
    ) -> str:
        """What the agent's part of a run depends on, and not its grading: two runs with this
        fingerprint did the same work, so a stored one can be graded again under other checks
        (`pipeline.regrade`) instead of paying its agent again. The no-skill arm's work is its
        own (`skill=False`)."""
        key = (str(suite.path), suite.rel, case.id, skill, agent)
        if key not in self._tasks:
            installed = (
                {"skill": self.tree(suite.skill.dir), "plugin_skills": self._plugin_skills(suite)}
                if skill
                else {"arm": "no-skill"}
            )
            self._tasks[key] = digest(
                {
                    "task": task_digest(case),
                    "timeout": case.timeout_seconds,
                    "format": suite.format.value,
                    "agent": suite.agent,
                    **installed,
                    "tool": __version__,
                    "harness": self._harness(agent),
                }
            )
        return digest(["task", self._tasks[key], model, repetition, *([agent] if agent else [])])

    def _plugin_skills(self, suite: Suite) -> str:
        # Trigger runs install every skill of the plugin: any of them can change the outcome.
        if suite.skill.plugin_dir is None or not any(
            c.kind.value == "trigger" for c in suite.cases
        ):
            return ""
        return self.tree(suite.skill.plugin_dir / "skills")
