"""The skill a Vally eval evaluates.

Vally loads the skills `environment.skills` names (paths relative to the eval spec, to a
skill folder or its SKILL.md), at the root or per stimulus. A repository such as dotnet/skills
names none in its evals and runs them through a `*.experiment.yaml` instead, whose skilled
arm derives the skill from the eval's place (`plugins/${eval.grandparent}/skills/${eval.parent}`,
its `evals:` globs choosing the evals, `!(agent.*)` included). evolve-action installs one skill
under test; when an eval names several, the first is it and the others are named in a warning.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.graders.fields import At, strings
from evolve_action.formats.placement import inside, relative
from evolve_action.model.evals import Skill
from evolve_action.util import globs

EXPERIMENT_SUFFIXES = (".experiment.yaml", ".experiment.yml")
_EXPERIMENT_BYTES = 256 * 1024
_TEMPLATE = re.compile(r"\$\{eval\.(parent|grandparent|name|dir)\}")


def skill_for(doc: Document, ctx: LoadContext, problems: Problems) -> Skill:
    named = _named(doc, ctx, problems)
    if named:
        first, *others = named
        if others:
            listed = ", ".join(relative(p, ctx.root.resolve()) for p in others)
            problems.warn(
                ("environment",),
                f"names several skills; {first.name} is installed as the skill under test and"
                f" {listed} are not (evolve-action evaluates one skill per eval file)",
            )
        return _skill(first)
    found = _from_experiment(doc.path, ctx.root)
    if found is not None:
        return _skill(found)
    if ctx.skill.dir is None:
        problems.warn(
            ("environment",),
            f"no skill found to evaluate (looked for {ctx.skill.name!r}): name it in"
            " environment.skills (a skill folder, relative to this file); until then runs of"
            " this file end in an error",
        )
    return ctx.skill


def _named(doc: Document, ctx: LoadContext, problems: Problems) -> list[Path]:
    """Every skill folder the spec names, in order, each once."""
    data = doc.data if isinstance(doc.data, dict) else {}
    places: list[tuple[At, Any]] = [(("environment",), data.get("environment"))]
    stimuli = data.get("stimuli")
    for i, stimulus in enumerate(stimuli if isinstance(stimuli, list) else []):
        if isinstance(stimulus, dict):
            places.append((("stimuli", i, "environment"), stimulus.get("environment")))
    found: list[Path] = []
    root = ctx.root.resolve()
    for at, env in places:
        if not isinstance(env, dict) or env.get("skills") is None:
            continue
        names = strings(problems, (*at, "skills"), env["skills"]) or []
        for j, name in enumerate(names):
            folder = _located(doc.path, name, root)
            if folder is None:
                # A path of the author's machine (`/Volumes/...`) is common: the skill beside
                # the file is tested instead, and the author is told.
                problems.warn(
                    (*at, "skills", j),
                    f"{name!r} is no skill folder inside the repository (no SKILL.md there),"
                    " so the skill beside the eval file is tested; give the path of a skill"
                    " folder, relative to the eval file",
                )
                continue
            if folder.resolve() not in [f.resolve() for f in found]:
                found.append(folder)
    return found


def _located(spec: Path, name: str, root: Path) -> Path | None:
    """The skill folder a path names: relative to the eval spec's folder (Vally's docs), else
    to the folder above it (how dotnet/skills and hve-core write `../../plugins/...` from
    `tests/<plugin>/<skill>/`), else a bare skill name found as `**/skills/<name>/` (the one
    in the eval's plugin when several share the name)."""
    for base in (spec.parent, spec.parent.parent):
        folder = _folder(Path(os.path.normpath(base / name)))
        if inside(folder, root) and (folder / "SKILL.md").is_file():
            return folder
    if "/" in name.strip("/") or not name.strip():
        return None
    found = sorted(p.parent for p in root.glob(f"**/skills/{name.strip('/')}/SKILL.md"))
    found = [p for p in found if inside(p, root)]
    if len(found) > 1:
        plugin = spec.parent.parent.name
        found = [p for p in found if p.parent.parent.name == plugin] or found
    return found[0] if found else None


def _folder(path: Path) -> Path:
    return path.parent if path.name == "SKILL.md" else path


def _skill(folder: Path) -> Skill:
    folder = folder.resolve()
    if folder.parent.name == "skills":
        plugin_dir = folder.parent.parent
        return Skill(folder.name, folder, plugin_dir.name, plugin_dir)
    return Skill(folder.name, folder)


def _from_experiment(eval_path: Path, root: Path) -> Path | None:
    """The skill folder the skilled arm of a root experiment gives this eval, if any."""
    root = root.resolve()
    rel = relative(eval_path.resolve(), root)
    for spec in _experiments_for(eval_path, root):
        for template in _skilled_arms(spec):
            folder = _folder(root / _fill(template, PurePosixPath(rel)))
            if inside(folder, root) and (folder / "SKILL.md").is_file():
                return folder
    return None


def has_bare_arm(eval_path: Path, root: Path) -> bool:
    """A root experiment that lists this eval has an arm with no skill (`skills: []`, as
    dotnet/skills' `baseline`): it asks for the no-skill arm (`plan.no_skill`)."""
    for spec in _experiments_for(eval_path, root):
        variants = spec.get("variants")
        for variant in variants.values() if isinstance(variants, dict) else ():
            env = variant.get("environment") if isinstance(variant, dict) else None
            if isinstance(env, dict) and env.get("skills") == []:
                return True
    return False


def _experiments_for(eval_path: Path, root: Path) -> list[dict[str, Any]]:
    """The root `*.experiment.yaml` specs whose `evals:` globs list this eval, by name."""
    root = root.resolve()
    rel = relative(eval_path.resolve(), root)
    try:
        names = sorted(p for p in root.iterdir() if p.name.endswith(EXPERIMENT_SUFFIXES))
    except OSError:
        return []
    out = []
    for path in names:
        spec = _read(path)
        globs = spec.get("evals") if isinstance(spec, dict) else None
        if isinstance(globs, list) and any(
            isinstance(g, str) and _glob(g).fullmatch(rel) for g in globs
        ):
            out.append(spec)
    return out


def _read(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as handle:
            text = handle.read(_EXPERIMENT_BYTES)
        return yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return None


def _skilled_arms(spec: dict[str, Any]) -> list[str]:
    """The skill templates of every variant but the baseline, in the file's order."""
    variants = spec.get("variants")
    if not isinstance(variants, dict):
        return []
    baseline = spec.get("baseline")
    out: list[str] = []
    for name, variant in variants.items():
        env = variant.get("environment") if isinstance(variant, dict) else None
        skills = env.get("skills") if isinstance(env, dict) else None
        if name != baseline and isinstance(skills, list):
            out += [s for s in skills if isinstance(s, str)]
    return out


def _fill(template: str, rel: PurePosixPath) -> str:
    values = {
        "parent": rel.parent.name,
        "grandparent": rel.parent.parent.name,
        "name": rel.name,
        "dir": rel.parent.as_posix(),
    }
    return _TEMPLATE.sub(lambda m: values[m.group(1)], template)


def _glob(pattern: str) -> re.Pattern[str]:
    """A path glob as Vally's experiments write them: `*`, `**`, `?` and extglob `!(x|y)`
    (a segment that is none of them), matched against a repository-relative path."""
    return re.compile(globs.regex(pattern, globs.EXPERIMENTS))
