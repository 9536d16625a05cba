"""The promptfoo loader: a `promptfooconfig.yaml` that tests a skill through the Claude Agent
SDK (`anthropic:claude-agent-sdk`) or the Codex SDK (`openai:codex-sdk`) provider.

Every test × prompt is one case: the prompt rendered with the test's `vars` (and
`defaultTest.vars`; list vars fan out into one case per combination unless
`options.disableVarExpansion`), graded by the test's and `defaultTest`'s `assert` lists
(`promptfoo_asserts.py`). The provider's `working_dir` is the workspace (staged file by file,
the skill folders left out); the skill is the one `skills:` or a `skill-used` assertion names,
found in the working dir's `.claude/skills/`, `.agents/skills/` or `.codex/skills/`, or in a
local plugin. A config of several providers compares skill versions or models; here base and
head are compared, so the first agent provider is used (warned).
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

from evolve_action.formats import shapes
from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.graders.fields import At
from evolve_action.formats.placement import inside, manifest_name
from evolve_action.formats.promptfoo import asserts as promptfoo_asserts
from evolve_action.model.evals import (
    Case,
    CaseExtra,
    Fixture,
    Format,
    Item,
    LoadResult,
    Skill,
    Suite,
)
from evolve_action.util.text import json_kind

AGENT_PROVIDERS = shapes.AGENT_PROVIDERS
SKILL_DIRS = (".claude/skills", ".agents/skills", ".codex/skills", "skills")
# Provider settings the action's own agent replaces (its tools, session, environment).
CONFIG_NO_EFFECT = frozenset(
    {"model", "setting_sources", "append_allowed_tools", "custom_allowed_tools", "persist_session"}
    | {"skip_git_repo_check", "enable_streaming", "cli_env", "max_turns", "permission_mode"}
)
TOP_KEYS = frozenset({"description", "providers", "prompts", "tests", "defaultTest", "$schema"})
_VAR = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
_ENV_DEFAULT = re.compile(r"""^env\.\w+\s*\|\s*default\(\s*(['"])(.*)\1\s*\)$""")
MAX_FILES = 2000


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    problems = Problems(doc)
    suite = _suite(doc, ctx, problems)
    return problems.result(Format.PROMPTFOO, suite)


def is_agent_provider(entry: Any) -> bool:
    provider = entry.get("id") if isinstance(entry, dict) else entry
    return isinstance(provider, str) and provider in AGENT_PROVIDERS


def _suite(doc: Document, ctx: LoadContext, problems: Problems) -> Suite | None:
    data = doc.data
    if not isinstance(data, dict):
        problems.error((), f"a promptfoo config is a mapping, not {json_kind(data)}")
        return None
    for key in data:
        if key not in TOP_KEYS and not str(key).startswith("x-"):  # `x-` keys hold anchors
            problems.warn((key,), f"unknown promptfoo key {key!r} is ignored here")
    config = _provider(problems, data.get("providers"))
    prompts = _prompts(doc, problems, data.get("prompts"))
    default: dict[str, Any] = (
        data["defaultTest"] if isinstance(data.get("defaultTest"), dict) else {}
    )
    tests = data.get("tests")
    if not isinstance(tests, list) or not tests:
        problems.error(
            ("tests",), "must be a non-empty list of tests (inline; file:// lists are not read yet)"
        )
        return None
    workdir = _workdir(doc, ctx, problems, config)
    names = promptfoo_asserts.skill_names(config, default, tests)
    skill = _skill(workdir, config, names, doc, ctx, problems)
    files = _fixtures(workdir, problems) if workdir is not None else []
    shared = promptfoo_asserts.items(
        problems, ("defaultTest", "assert"), default.get("assert"), "default-"
    )
    cases: list[Case] = []
    for i, test in enumerate(tests):
        cases += _cases(problems, ("tests", i), test, default, prompts, files, shared)
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            problems.error(
                (), f"two cases are named {case.id!r}; give the tests distinct descriptions"
            )
        seen.add(case.id)
    return Suite(
        format=Format.PROMPTFOO,
        path=doc.path,
        rel=doc.rel,
        skill=skill,
        cases=tuple(cases),
        name=data["description"] if isinstance(data.get("description"), str) else skill.name,
        warnings=problems.warnings(),
    )


def _provider(problems: Problems, value: Any) -> dict[str, Any]:
    providers = value if isinstance(value, list) else [value]
    agents = [(i, p) for i, p in enumerate(providers) if is_agent_provider(p)]
    if not agents:
        problems.error(
            ("providers",), f"names no agent SDK provider ({', '.join(AGENT_PROVIDERS)})"
        )
        return {}
    if len(providers) > 1:
        problems.warn(
            ("providers",),
            f"{len(providers)} providers compare skill versions or models; here the PR's base and"
            " head are compared, so the first agent provider is used and the models input"
            " chooses the models",
        )
    at, entry = agents[0]
    config = entry.get("config") if isinstance(entry, dict) else None
    config = config if isinstance(config, dict) else {}
    for key in config:
        if key == "output_format":
            problems.warn(
                ("providers", at, "config", key), "not applied: the agent answers in text"
            )
        elif key not in CONFIG_NO_EFFECT and key not in ("working_dir", "skills", "plugins"):
            problems.warn(
                ("providers", at, "config", key), f"provider setting {key!r} has no effect here"
            )
    return config


def _prompts(doc: Document, problems: Problems, value: Any) -> list[str]:
    raw = value if isinstance(value, list) else [value] if value is not None else ["{{prompt}}"]
    prompts: list[str] = []
    for i, entry in enumerate(raw):
        if isinstance(entry, dict):
            entry = entry.get("raw", entry.get("id"))
        if not isinstance(entry, str) or not entry.strip():
            problems.error(("prompts", i), "a prompt is text (or {raw: <text>}, or file://<path>)")
            continue
        if entry.startswith("file://"):
            path = doc.path.parent / entry.removeprefix("file://")
            if path.suffix not in (".txt", ".md") or not path.is_file():
                problems.error(
                    ("prompts", i), f"{entry} is no text or Markdown file beside the config"
                )
                continue
            entry = path.read_text(encoding="utf-8", errors="replace")
        prompts.append(entry)
    return prompts


def render(template: str, variables: dict[str, Any]) -> str | None:
    """`{{ name }}` filled from the vars; None when a tag is more than a name (or env default)."""
    failed = False

    def fill(match: re.Match[str]) -> str:
        nonlocal failed
        expr = match.group(1)
        default = _ENV_DEFAULT.match(expr)
        if default:  # the job's environment never reaches PR content: the default it is
            return default.group(2)
        if expr in variables:
            value = variables[expr]
            return value if isinstance(value, str) else str(value)
        failed = True
        return match.group(0)

    rendered = _VAR.sub(fill, template)
    return None if failed else rendered


def _workdir(
    doc: Document, ctx: LoadContext, problems: Problems, config: dict[str, Any]
) -> Path | None:
    value = config.get("working_dir")
    if value is None:
        return None
    said = render(value, {}) if isinstance(value, str) else None
    if said is None:
        problems.error(
            ("providers",), f"working_dir {value!r} is no path (only env defaults are filled)"
        )
        return None
    path = (doc.path.parent / said).resolve()
    if not inside(path, ctx.root.resolve()) or not path.is_dir():
        problems.error(("providers",), f"working_dir {said!r} is no folder inside the repository")
        return None
    return path


def _skill(
    workdir: Path | None, config: dict[str, Any], names: list[str], doc: Document,
    ctx: LoadContext, problems: Problems,
) -> Skill:  # fmt: skip
    roots: list[tuple[Path, Path | None]] = []  # (skills folder, plugin folder)
    for base in [workdir] if workdir is not None else []:
        roots += [(base / d, None) for d in SKILL_DIRS]
    for plugin in config.get("plugins") or []:
        path = plugin.get("path") if isinstance(plugin, dict) else None
        if isinstance(path, str):
            folder = (doc.path.parent / path).resolve()
            if inside(folder, ctx.root.resolve()):
                roots.append((folder / "skills", folder))
    found = [(d, plugin) for root, plugin in roots for d in sorted(root.glob("*/SKILL.md"))]
    for name in names:
        bare = name.rpartition(":")[2]
        for skill_md, plugin in found:
            if skill_md.parent.name == bare:
                return _made(skill_md.parent, plugin)
    if len(found) == 1:
        return _made(found[0][0].parent, found[0][1])
    if names or found:
        problems.warn(
            (),
            f"no skill folder found for {names or 'this config'}; the skill beside"
            " the config is used",
        )
    return ctx.skill


def _made(folder: Path, plugin: Path | None) -> Skill:
    if plugin is None:
        return Skill(folder.name, folder)
    return Skill(folder.name, folder, manifest_name(plugin) or plugin.name, plugin)


def _fixtures(workdir: Path, problems: Problems) -> list[Fixture]:
    """The working dir's files, but its skill folders (the skill is installed on its own)."""
    files = []
    origin = problems.origin("providers")
    for path in sorted(workdir.rglob("*")):
        rel = path.relative_to(workdir).as_posix()
        if (
            not path.is_file()
            or path.is_symlink()
            or any(rel.startswith(d + "/") for d in SKILL_DIRS)
        ):
            continue
        files.append(Fixture(path, rel, origin))
        if len(files) > MAX_FILES:
            problems.error(
                ("providers",), f"working_dir holds over {MAX_FILES} files; use a smaller one"
            )
            return []
    return files


def _cases(
    problems: Problems, at: At, test: Any, default: dict[str, Any], prompts: list[str],
    files: list[Fixture], shared: list[Item],
) -> list[Case]:  # fmt: skip
    if not isinstance(test, dict):
        problems.error(at, f"a test is a mapping with vars and assert, not {json_kind(test)}")
        return []
    variables = {**(default.get("vars") or {}), **(test.get("vars") or {})}
    options = {**(default.get("options") or {}), **(test.get("options") or {})}
    items: list[Item] = promptfoo_asserts.items(problems, (*at, "assert"), test.get("assert"))
    items += shared
    threshold = test.get("threshold", default.get("threshold"))
    combos = _combinations(variables, expand=not options.get("disableVarExpansion"))
    described = test.get("description")
    label = described if isinstance(described, str) else f"test {at[-1]}"
    cases = []
    for p, prompt in enumerate(prompts):
        for c, values in enumerate(combos):
            text = render(prompt, values)
            if text is None:
                problems.error(
                    at,
                    f"prompt {p + 1} uses a template tag the vars do not fill, or a"
                    " filter; only {{ name }} is read",
                )
                return []
            suffix = (f" [prompt {p + 1}]" if len(prompts) > 1 else "") + (
                f" [vars {c + 1}]" if len(combos) > 1 else ""
            )
            mark = None
            if isinstance(threshold, int | float) and not isinstance(threshold, bool):
                mark = float(threshold)
            extra = CaseExtra(threshold=mark, vars=values)  # javascript reads context.vars
            cases.append(
                Case(
                    label + suffix,
                    text,
                    problems.origin(*at),
                    files=tuple(files),
                    items=tuple(items),
                    extra=extra,
                )
            )
    return cases


def _combinations(variables: dict[str, Any], *, expand: bool) -> list[dict[str, Any]]:
    lists = {k: v for k, v in variables.items() if isinstance(v, list)} if expand else {}
    if not lists:
        return [variables]
    keys = list(lists)
    return [
        {**variables, **dict(zip(keys, combo, strict=True))}
        for combo in itertools.product(*lists.values())
    ]
