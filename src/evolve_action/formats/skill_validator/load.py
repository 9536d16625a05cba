"""The dotnet skill-validator loader: `tests/eval.yaml` (or dotnet/skills'
`tests/<plugin>/<skill>/eval.yaml`) holding `scenarios:`.

A scenario (eng/skill-validator/README.md) has `name`, `prompt`, `setup` (`copy_test_files`,
`files` with `source` relative to the eval file's folder (the tool's rule; the skill folder
is tried next, as older versions read it) or inline `content`, `commands`),
`assertions`, `rubric`, `expect_tools`, `reject_tools`, `max_turns`, `max_tokens`, `timeout`
(seconds) and `expect_activation`. Assertions are Vally's static graders under snake_case
names (`output_contains` ignores case), so they run as the same checks; constraints and
`expect_activation` are gates. Each rubric item is scored 1-5 by the judge, as the tool's
independent mode does, and passes at 3.

skill-validator's own verdict is the improvement of a run with the skill over one without;
here the PR's base is the comparison, and a run passes when its assertions and constraints
hold and every rubric item scores 3 or more. A setup file may be written inline (`content`,
staged as its text, size-bounded); `setup.commands` run in the confinement before the agent
starts, and, as skill-validator does, their exit codes are not checked.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.graders.fields import At, js_regex, label, statements, strings, text
from evolve_action.formats.graders.gates import LIKERT_ANCHORS, activation_check, constraint_items
from evolve_action.formats.graders.params import grader
from evolve_action.formats.placement import inside
from evolve_action.model.evals import (
    Case,
    Check,
    Fixture,
    Format,
    Item,
    JudgeItem,
    JudgeParams,
    LoadResult,
    Origin,
    Scale,
    SetupCommand,
    Skill,
    Suite,
)
from evolve_action.model.fixtures import fixture_dest, inline_refusal
from evolve_action.util.text import json_kind

SCENARIO_KEYS = frozenset(
    {"name", "prompt", "setup", "assertions", "rubric", "timeout", "expect_activation"}
    | {"expect_tools", "reject_tools", "max_turns", "max_tokens"}
)
CONSTRAINT_KEYS = ("expect_tools", "reject_tools", "max_turns", "max_tokens")
# assertion type → (vally check family, negated, subject key, the check's own subject key)
ASSERTIONS = {
    "output_contains": ("output-contains", False, "value", "substring"),
    "output_not_contains": ("output-contains", True, "value", "substring"),
    "output_matches": ("output-matches", False, "pattern", "pattern"),
    "output_not_matches": ("output-matches", True, "pattern", "pattern"),
    "file_exists": ("file-exists", False, "path", "path"),
    "file_not_exists": ("file-exists", True, "path", "path"),
    "file_contains": ("file-contains", False, "value", "value"),
    "file_not_contains": ("file-contains", True, "value", "value"),
    "exit_success": ("exit-success", False, "", ""),
}
MAX_COPIED = 2000


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    problems = Problems(doc)
    suite = _suite(doc, ctx, problems)
    fmt = Format.SKILL_VALIDATOR
    return problems.result(fmt, suite)


def _suite(doc: Document, ctx: LoadContext, problems: Problems) -> Suite | None:
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("scenarios"), list):
        problems.error((), "a skill-validator eval file is a mapping with a `scenarios:` list")
        return None
    for key in data:
        if key != "scenarios":
            problems.warn((key,), f"unknown key {key!r} is ignored; check its spelling")
    skill = skill_for(doc.path, ctx)
    cases: list[Case] = []
    seen: dict[str, Origin] = {}
    dropped = 0
    for i, raw in enumerate(data["scenarios"]):
        mark = problems.mark()
        case = _case(doc, ctx, problems, skill, ("scenarios", i), raw)
        if problems.demote_since(mark, "this scenario is not run; the file's other ones run"):
            dropped += 1
            continue
        if case is None:
            continue
        if case.id in seen:  # results need one id per case; the tool runs both
            new_id = next(
                f"{case.id} ({n})" for n in range(2, 10**6) if f"{case.id} ({n})" not in seen
            )
            problems.warn(
                ("scenarios", i, "name"),
                f"{case.id!r} is already at {seen[case.id]}; this one is reported as {new_id!r}",
            )
            case = replace(case, id=new_id)
        seen[case.id] = case.origin
        cases.append(case)
    if not data["scenarios"]:
        problems.warn(("scenarios",), "no scenarios: add some, or remove the file")
    if not cases and dropped and not problems.has_errors:
        problems.not_run(("scenarios",), "no scenario of this file can run here (below, why)")
        return None
    return Suite(
        format=Format.SKILL_VALIDATOR,
        path=doc.path,
        rel=doc.rel,
        skill=skill,
        cases=tuple(cases),
        name=skill.name,
        warnings=problems.warnings(),
    )


def skill_for(path: Path, ctx: LoadContext) -> Skill:
    """`<skill>/tests/eval.yaml`, or dotnet/skills' `tests/<plugin>/<skill>/eval.yaml` for
    `plugins/<plugin>/skills/<skill>/`; else the skill discovery found."""
    folder = path.parent
    candidates = [folder.parent] if folder.name == "tests" else []
    candidates.append(ctx.root / "plugins" / folder.parent.name / "skills" / folder.name)
    for candidate in candidates:
        if (candidate / "SKILL.md").is_file() and inside(candidate, ctx.root.resolve()):
            plugin = candidate.parent.parent if candidate.parent.name == "skills" else None
            return Skill(
                candidate.name,
                candidate.resolve(),
                plugin.name if plugin else "",
                plugin.resolve() if plugin else None,
            )
    return ctx.skill


def _case(
    doc: Document, ctx: LoadContext, problems: Problems, skill: Skill, at: At, raw: Any
) -> Case | None:
    if not isinstance(raw, dict):
        problems.error(at, f"a scenario is a mapping with name and prompt, not {json_kind(raw)}")
        return None
    for key in raw:
        if key not in SCENARIO_KEYS:
            problems.warn((*at, key), f"unknown scenario key {key!r} is ignored; check it")
    name = label(problems, (*at, "name"), raw.get("name"), f"scenario-{int(at[-1]) + 1}")
    prompt = text(problems, (*at, "prompt"), raw.get("prompt"))
    if prompt is None:
        return None
    files, commands = _setup(doc, ctx, problems, skill, (*at, "setup"), raw.get("setup"))
    items: list[Item] = _assertions(problems, (*at, "assertions"), raw.get("assertions"))
    items += _rubric(problems, (*at, "rubric"), raw.get("rubric"))
    limits = {k: raw[k] for k in CONSTRAINT_KEYS if k in raw}
    gates, max_turns = constraint_items(problems, at, limits or None, block="")
    items += gates
    if raw.get("expect_activation") is not None:
        check = activation_check(
            problems, (*at, "expect_activation"), raw["expect_activation"], skill
        )
        items += [check] if check is not None else []
    timeout = raw.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        problems.warn(
            (*at, "timeout"), f"not applied: must be a number of seconds, not {timeout!r}"
        )
        timeout = None
    return Case(
        id=name,
        prompt=prompt,
        origin=problems.origin(*at),
        files=tuple(files),
        setup_commands=tuple(commands),
        items=tuple(items),
        max_turns=max_turns,
        timeout_seconds=float(timeout) if timeout is not None else None,
    )


def _setup(
    doc: Document, ctx: LoadContext, problems: Problems, skill: Skill, at: At, value: Any
) -> tuple[list[Fixture], list[SetupCommand]]:
    """Files to stage and commands to run before the agent starts."""
    if value is None:
        return [], []
    if not isinstance(value, dict):
        problems.error(at, f"must be a mapping, not {json_kind(value)}")
        return [], []
    root = ctx.root.resolve()
    origin = problems.origin(*at)
    files: list[Fixture] = []
    commands = _commands(problems, (*at, "commands"), value.get("commands"))
    if value.get("copy_test_files") is True:
        copied = _copied(doc, problems, at, origin)
        if copied is None:
            return [], commands
        files += copied
    entries = value.get("files") or []
    if not isinstance(entries, list):
        problems.error((*at, "files"), f"must be a list, not {json_kind(entries)}")
        return files, commands
    # The tool reads `source` from the eval file's folder; older versions read the skill's.
    bases = [doc.path.parent, *([skill.dir] if skill.dir else [])]
    inline: list[str] = []
    for j, entry in enumerate(entries):
        where = (*at, "files", j)
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            problems.error(where, "a setup file is {path, source} or {path, content}")
            continue
        dest = entry["path"].rstrip("/")  # absolute is refused: the tool would write there
        bad_dest = fixture_dest(dest)
        if bad_dest is not None:
            problems.refuse((*where, "path"), f"{entry['path']!r}: {bad_dest}")
            continue
        if "content" in entry:
            fixture = _inline(problems, where, entry["content"], dest, doc, inline)
            files += [fixture] if fixture is not None else []
            continue
        source = text(problems, (*where, "source"), entry.get("source"))
        if source is None:
            continue
        found = [b / source for b in bases if inside(b / source, root) and (b / source).is_file()]
        if not found:
            problems.warn(
                (*where, "source"),
                f"{source!r} is no file inside the repository (read relative to the eval file's"
                " folder, then the skill's): the scenario runs without it; add it or fix the path",
            )
            continue
        files.append(Fixture(found[0].absolute(), dest, problems.origin(*where)))
    return files, commands


def _copied(doc: Document, problems: Problems, at: At, origin: Origin) -> list[Fixture] | None:
    """`copy_test_files: true`: the eval file's sibling files, or None (refused) when too many."""
    siblings = sorted(
        p for p in doc.path.parent.rglob("*")
        if p.is_file() and not p.is_symlink() and p != doc.path
    )  # fmt: skip
    if len(siblings) > MAX_COPIED:
        problems.refuse((*at, "copy_test_files"), f"copies over {MAX_COPIED} files; stage fewer")
        return None
    return [
        Fixture(p.absolute(), p.relative_to(doc.path.parent).as_posix(), origin) for p in siblings
    ]


def _inline(
    problems: Problems, at: At, content: Any, dest: str, doc: Document, inline: list[str]
) -> Fixture | None:
    """A file written inline (`{path, content}`), staged as its text, within the size limits."""
    if not isinstance(content, str):
        problems.refuse((*at, "content"), f"must be the file's text, not {json_kind(content)}")
        return None
    too_big = inline_refusal(content, inline)
    if too_big is not None:
        problems.refuse((*at, "content"), too_big)
        return None
    inline.append(content)
    return Fixture(doc.path.absolute(), dest, problems.origin(*at), content=content)


def _commands(problems: Problems, at: At, value: Any) -> list[SetupCommand]:
    """`setup.commands`, run before the agent; skill-validator ignores their exit codes."""
    if value is None:
        return []
    said = strings(problems, at, value) or []
    return [
        SetupCommand(run, problems.origin(*at, i), check_exit=False) for i, run in enumerate(said)
    ]


def _assertions(problems: Problems, at: At, value: Any) -> list[Item]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.error(at, f"must be a list of assertions, not {json_kind(value)}")
        return []
    items: list[Item] = []
    for j, raw in enumerate(value):
        kind = raw.get("type") if isinstance(raw, dict) else None
        if kind not in ASSERTIONS:
            # A type this reader does not run (a newer tool's `run_command_and_assert`, a
            # typo) leaves that assertion out; the scenario's other assertions still run.
            known = ", ".join(ASSERTIONS)
            problems.warn(
                (*at, j, "type"),
                f"assertion type {kind!r} is not run here (this reader runs {known});"
                " the scenario's other assertions and rubric run",
            )
            continue
        family, negate, subject, param = ASSERTIONS[kind]
        params: dict[str, Any] = {"negate": negate}
        if kind in ("output_contains", "output_not_contains"):
            params["ignore_case"] = True
        if subject:
            said = text(problems, (*at, j, subject), raw.get(subject))
            if said is None:
                continue
            params[param] = said
        if family.startswith("file-") and subject != "path":
            path = text(problems, (*at, j, "path"), raw.get("path"))
            if path is None:
                continue
            params["path"] = path
        if param == "pattern":
            params["pattern"], why = js_regex(params["pattern"])
            if why is not None:  # .NET regexes allow lookaround; RE2 does not
                problems.warn((*at, j, "pattern"), f"this assertion is not run: {why}")
                params["skip"] = why
                family = "skipped"
        text_ = f"{kind} {params.get(param, '')!r}".rstrip(" '")
        origin = problems.origin(*at, j)
        typed = grader(ASSERTIONS[kind][0], params)
        items.append(Check(f"{kind}-{j + 1}", f"vally.{family}", text_, origin, typed, group=kind))
    return items


def _rubric(problems: Problems, at: At, value: Any) -> list[Item]:
    if value is None:
        return []
    said = statements(problems, at, value) or []
    return [
        JudgeItem(
            f"rubric-{j + 1}",
            item,
            problems.origin(*at, j),
            Scale.LIKERT5,
            kind="rubric",
            anchors=LIKERT_ANCHORS,
            params=JudgeParams(threshold=0.5),
            group="rubric",
            source="rubric",
        )
        for j, item in enumerate(said)
    ]
