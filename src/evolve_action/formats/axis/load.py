"""The AXIS loader: `axis.config.json` (or the literal object an `axis.config.ts`/`.js`
exports, read without running it) and the scenarios its `scenarios` names.

A scenario is `{name, prompt, judge: [{check, weight}], setup, variants}` (`rubric` in older
documents) in a JSON file, or the same object exported by a TypeScript or JavaScript module.
JSON scenarios are cases: each `check` a weighted judge item, `setup` copy actions fixtures
and `run_script` actions setup commands, a variant without skills the no-skill arm and the
skilled variant's first skill the skill under test; a scenario's own `skills` (or the
config's) name it too, and `skip: true` leaves a scenario out. Of a module only its literal
fields are read; the fields written as code are left out and named, and a module with no
literal prompt is counted and warned, never run. `agents`, `judging` and `settings` are the
action's inputs' to decide; `env` is never passed to the agent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evolve_action.formats.axis import config
from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document, DocumentError, read
from evolve_action.formats.documents_js import CODE_KEY, EXPORT
from evolve_action.formats.placement import inside
from evolve_action.model.evals import (
    Case,
    Fixture,
    Format,
    JudgeItem,
    LoadResult,
    Origin,
    Problem,
    Scale,
    SetupCommand,
    Severity,
    Skill,
    Suite,
    SuitePolicy,
)
from evolve_action.util.text import json_kind

MAX_SETUP_FILES = 500
CODE = config.CODE
SCENARIO_KEYS = frozenset(
    {"name", "prompt", "judge", "rubric", "setup", "variants", "id", "skills", "skip", "agents"}
    | {"artifacts", "teardown", "limits", "mcp_servers"}
)
NOT_MINE = config.NOT_MINE
CODE_CONFIG = (
    "not run: the module exports no literal object (`export default {...}`, `module.exports ="
    " {...}`, `defineConfig({...})` or a `const` exported by name) but code, which a run here"
    " never executes; no check fails for it"
)


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    data = doc.data
    if isinstance(data, dict) and data.get(CODE_KEY) == [EXPORT]:
        said = Problem(Origin(doc.rel, doc.line()), CODE_CONFIG, Severity.WARNING)
        return LoadResult(doc.rel, Format.AXIS, None, (said,))
    if not config.is_axis(data):
        notice = Problem(Origin(doc.rel, doc.line()), NOT_MINE, Severity.NOTICE)
        return LoadResult(doc.rel, None, None, (notice,))
    problems = Problems(doc)
    config.check_keys(problems, data)
    found = config.scenario_files(
        doc, ctx, problems, data.get("scenarios", config.DEFAULT_SCENARIOS)
    )
    reader = _Scenarios(doc, ctx, problems)
    if isinstance(data.get("skills"), list) and data["skills"]:
        reader.skill = reader.named_skill(problems, ("skills",), doc.path, data["skills"])
    cases = [c for p in found if (c := reader.case(p)) is not None]
    reader.say_what_code_left_out()
    if not cases:
        lead = Problem(
            Origin(doc.rel, doc.line()),
            "not run: no scenario reads (JSON, or a module's literal object), so nothing of"
            " this config runs here",
            Severity.WARNING,
        )
        return LoadResult(doc.rel, Format.AXIS, None, (lead, *problems.items))
    suite = Suite(
        format=Format.AXIS, path=doc.path, rel=doc.rel, skill=reader.skill or ctx.skill,
        cases=tuple(cases), name=doc.path.parent.name,
        policy=SuitePolicy(no_skill_arm=True if reader.bare else None),
        warnings=problems.warnings(),
    )  # fmt: skip
    return problems.result(Format.AXIS, suite)


class _Scenarios:
    def __init__(self, doc: Document, ctx: LoadContext, problems: Problems) -> None:
        self.doc, self.ctx, self.problems = doc, ctx, problems
        self.skill: Skill | None = None
        self.bare = False  # a variant without skills: the no-skill arm
        self.unread: list[str] = []  # modules with no literal scenario
        self.coded: set[str] = set()  # fields written as code in the modules read

    def _json(self, path: Path, rel: str) -> Document | None:
        try:
            return read(path, rel)
        except DocumentError as exc:
            self._warn(rel, exc.line, f"the scenario does not read ({exc.message}); not run")
            return None

    def _module(self, path: Path, rel: str) -> Document | None:
        """A module's literal scenario; its fields written as code are left out (said once)."""
        try:
            sdoc = read(path, rel)
        except DocumentError:
            sdoc = None
        if sdoc is None or not isinstance(sdoc.data.get("prompt"), str):
            self.unread.append(path.name)
            return None
        coded = sdoc.data.pop(CODE_KEY, [])
        if "skip" in coded:  # AXIS decides it when the module runs; a run here cannot
            self._warn(rel, sdoc.line(), "`skip` is written as code, so whether AXIS runs"
                       " this scenario depends on running it; not run here")  # fmt: skip
            return None
        self.coded |= set(coded)
        return sdoc

    def say_what_code_left_out(self) -> None:
        if self.unread:
            self.problems.warn(("scenarios",), f"{len(self.unread)} scenario module(s) (such as"
                               f" {self.unread[0]}) have no literal `export default` object"
                               " with a prompt: they are code, not run here")  # fmt: skip
        if self.coded:
            said = ", ".join(sorted(self.coded))
            self.problems.warn(("scenarios",), f"scenario modules write {said} as code, which"
                               " is not run here: their cases run without it (the skill is the"
                               " one beside the config, and the no-skill arm runs under"
                               " `baseline: auto` only)")  # fmt: skip

    def case(self, path: Path) -> Case | None:
        rel = self._rel(path)
        sdoc = self._module(path, rel) if path.suffix in CODE else self._json(path, rel)
        if sdoc is None:
            return None
        data = sdoc.data
        if not isinstance(data, dict) or not isinstance(data.get("prompt"), str):
            return None  # a helper or data file beside the scenarios, not a scenario
        sub = Problems(sdoc)
        if data.get("skip") is True:  # AXIS leaves it out of a run; so does a run here
            self._warn(rel, sdoc.line("skip"), "`skip: true`: the scenario is not run")
            return None
        for key in data:
            if key not in SCENARIO_KEYS:
                sub.warn((key,), f"unknown scenario key {key!r} is ignored")
        if "agents" in data:
            sub.warn(("agents",), "not applied: the action's inputs choose the agent")
        if data.get("mcp_servers"):
            sub.warn(("mcp_servers",), "not started: a scenario's MCP servers are not run for"
                     " a pull request's eval; it runs without them")  # fmt: skip
        if data.get("teardown"):
            sub.warn(("teardown",), "not run: a run's workspace is discarded after grading")
        if isinstance(data.get("skills"), list) and data["skills"]:
            named = self.named_skill(sub, ("skills",), path, data["skills"])
            if self.skill is None:
                self.skill = named
            elif named is not None and named.dir != self.skill.dir:
                sub.warn(
                    ("skills",),
                    f"the config's scenarios test {self.skill.name!r}; this scenario runs"
                    f" with it too, not with {named.name!r} (one skill per config here)",
                )
        items = _judge(sub, data.get("judge", data.get("rubric")))
        self._variants(sub, path, data.get("variants"))
        files, commands = self._setup(sub, data.get("setup"))
        for p in sub.items:
            self.problems.add(replace_severity(p))
        if not items:
            self._warn(rel, 1, "the scenario has no judge check; not run")
            return None
        given = data.get("name")
        name = given if isinstance(given, str) else path.stem
        origin = Origin(rel, sdoc.line())
        return Case(id=path.stem, prompt=data["prompt"], origin=origin, name=name,
                    items=tuple(items), files=files, setup_commands=commands,
                    timeout_seconds=_minutes(data.get("limits")))  # fmt: skip

    def _variants(self, sub: Problems, path: Path, raw: Any) -> None:
        for i, variant in enumerate(raw if isinstance(raw, list) else []):
            if not isinstance(variant, dict):
                continue
            skills = variant.get("skills")
            if not skills:
                self.bare = True
            elif isinstance(skills, list) and self.skill is None:
                self.skill = self._skill(path, skills)
            if "prompt" in variant:
                sub.warn(("variants", i, "prompt"), "a variant's own prompt is not run: every"
                         " arm runs the scenario's prompt")  # fmt: skip
            if "judge" in variant:
                sub.warn(
                    ("variants", i, "judge"),
                    "a variant's own judge is not applied: every"
                    " arm is judged by the scenario's checks",
                )

    def named_skill(
        self, sub: Problems, at: tuple[str | int, ...], path: Path, skills: list[Any]
    ) -> Skill | None:
        """The first of `skills` that is a skill folder of the repository, else None (warned:
        the skill beside the config is tested)."""
        found = self._skill(path, skills)
        if found is None:
            sub.warn(at, f"{skills[0]!r} is no skill folder of the repository (no SKILL.md);"
                     " the skill beside the config is tested")  # fmt: skip
        elif len(skills) > 1:
            sub.warn(at, f"only the first skill found, {found.name!r}, is installed")
        return found

    def _skill(self, path: Path, skills: list[Any]) -> Skill | None:
        for entry in skills:
            if not isinstance(entry, str):
                continue
            for base in (self.doc.path.parent, path.parent):
                folder = (base / entry).resolve()
                if folder.name == "SKILL.md":
                    folder = folder.parent
                if (folder / "SKILL.md").is_file() and inside(folder, self.ctx.root.resolve()):
                    return Skill(folder.name, folder)
        return None

    def _setup(
        self, sub: Problems, raw: Any
    ) -> tuple[tuple[Fixture, ...], tuple[SetupCommand, ...]]:
        """`copy` actions staged as files; `run_script` actions run as the case's setup
        commands (confined, in the workspace, as every format's setup commands are)."""
        files: list[Fixture] = []
        commands: list[SetupCommand] = []
        for i, action in enumerate(raw if isinstance(raw, list) else []):
            at = ("setup", i)
            kind = action.get("action") if isinstance(action, dict) else None
            if kind == "run_script" and isinstance(action.get("command"), str):
                commands.append(SetupCommand(action["command"], sub.origin(*at)))
                if "$AXIS_" in action["command"] or "${AXIS_" in action["command"]:
                    sub.warn((*at, "command"), "AXIS's own variables (`AXIS_*`) are not set"
                             " here; the command runs without them")  # fmt: skip
                continue
            if kind != "copy":
                sub.warn(at, "a setup action is `copy` or `run_script` (with `command`); this"
                         " one is not run")  # fmt: skip
                continue
            match, dest = action.get("match"), str(action.get("destination") or "")
            if not isinstance(match, str) or match.startswith("/"):
                sub.warn((*at, "match"), "a copy action needs `match`, a glob relative to the"
                         " config; not staged")  # fmt: skip
                continue
            files += self._copied(sub, at, match, dest)
        if files and commands:
            sub.warn(("setup",), "copied files are staged before the `run_script` commands"
                     " run, whatever their order in `setup`")  # fmt: skip
        return tuple(files), tuple(commands)

    def _copied(
        self, sub: Problems, at: tuple[str | int, ...], match: str, dest: str
    ) -> list[Fixture]:
        """The files `match` finds, each at its path below the glob's fixed leading folders
        (as AXIS copies them), under `dest`."""
        base = self.doc.path.parent
        root = self.ctx.root.resolve()
        try:
            found = [p for p in sorted(base.glob(match)) if p.is_file() and inside(p, root)]
        except (ValueError, NotImplementedError, OSError):
            found = []
        if not found:
            sub.warn((*at, "match"), f"{match!r} matches no file; the scenario runs without it")
        fixed = base / _fixed_prefix(match)
        folder = dest.strip("/").removeprefix("./").strip(".")
        origin = sub.origin(*at)
        out = []
        for path in found[:MAX_SETUP_FILES]:
            inner = path.relative_to(fixed).as_posix() if path.is_relative_to(fixed) else path.name
            out.append(Fixture(path.absolute(), f"{folder}/{inner}" if folder else inner, origin))
        return out

    def _rel(self, path: Path) -> str:
        folder = self.doc.rel.rpartition("/")[0]
        inner = path.relative_to(self.doc.path.parent).as_posix()
        return f"{folder}/{inner}" if folder else inner

    def _warn(self, rel: str, line: int | None, message: str) -> None:
        self.problems.add(Problem(Origin(rel, line), message, Severity.WARNING))


def _judge(sub: Problems, raw: Any) -> list[JudgeItem]:
    if isinstance(raw, str) and raw.strip():  # a plain-text rubric: one check, judged whole
        return [JudgeItem("check-1", raw.strip(), sub.origin("rubric"), Scale.BINARY,
                          source="judge")]  # fmt: skip
    if not isinstance(raw, list):
        if raw is not None:
            sub.warn(("judge",), f"must be a list of {{check, weight}}, not {json_kind(raw)}")
        return []
    items = []
    for j, entry in enumerate(raw):
        check = entry.get("check") if isinstance(entry, dict) else entry
        if not isinstance(check, str) or not check.strip():
            sub.warn(("judge", j), "a judge entry is {check, weight}; this one is not judged")
            continue
        weight = entry.get("weight", 1) if isinstance(entry, dict) else 1
        ok = isinstance(weight, int | float) and not isinstance(weight, bool) and weight > 0
        items.append(
            JudgeItem(
                f"check-{j + 1}",
                check.strip(),
                sub.origin("judge", j),
                Scale.BINARY,
                weight=float(weight) if ok else 1.0,
                source="judge",
            )
        )
    return items


def _fixed_prefix(match: str) -> str:
    """The leading folders of a glob before its first wildcard (a plain file's folder)."""
    parts = match.removeprefix("./").split("/")
    fixed = []
    for part in parts[:-1]:
        if any(c in part for c in "*?[{"):
            break
        fixed.append(part)
    return "/".join(fixed)


def _minutes(limits: Any) -> float | None:
    """A scenario's `limits.time_minutes` as its timeout in seconds."""
    minutes = limits.get("time_minutes") if isinstance(limits, dict) else None
    if isinstance(minutes, bool) or not isinstance(minutes, int | float) or minutes <= 0:
        return None
    return float(minutes) * 60


def replace_severity(problem: Problem) -> Problem:
    """A scenario's problem is a warning: one bad scenario must not stop the others."""
    if problem.severity is Severity.ERROR:
        return Problem(problem.origin, problem.message, Severity.WARNING)
    return problem
