"""The agent's input for a skill-evaluator eval: its prompt (or conversation script) and fixtures.

`files` are relative to the skill root and staged like evolve's fixtures (docs/design.md
§Running): one leading `evals/` is dropped, a path under `files/` keeps its path below
`files/`, anything else lands by basename; a source must be an existing regular file inside the
repository.

A `mode: "guided-conversation"` eval has `rounds[]` of planner prompts and scripted user
replies instead of a prompt. skill-evaluator's runner calls the agent once per planner round,
feeding it the earlier output and the reply. Our agent loop runs one task per run and a
`Case` can only carry authored turns, not replies to turns the agent has yet to take, so the
rounds run as ONE prompt, in order, and the loader warns that the interview itself is not
exercised. The script is kept in `Case.extra.rounds` for a loop that can play it.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.skill_evaluator.items import At, Fields
from evolve_action.model.evals import NO_EXTRA, CaseExtra, Fixture
from evolve_action.util.text import json_kind

GUIDED = "guided-conversation"


def task_prompt(p: Problems, f: Fields) -> tuple[str | None, CaseExtra]:
    """The task text: `prompt` (plus `context`), or the rounds of a guided conversation."""
    rounds = f.obj.get("rounds")
    mode = f.text("mode")
    context = f.text("context")
    if rounds is None:
        if mode == GUIDED:
            p.error((*f.at, "rounds"), "a guided-conversation eval needs its rounds list")
            return None, NO_EXTRA
        prompt = f.text("prompt", required=True)
        if prompt is None:
            return None, NO_EXTRA
        return _with_context(prompt, context), NO_EXTRA
    if f.obj.get("prompt") is not None:
        p.error((*f.at, "prompt"), "give either prompt or rounds, not both")
        return None, NO_EXTRA
    if mode != GUIDED:
        p.warn((*f.at, "rounds"), f'rounds are read as mode "{GUIDED}"')
    script = _rounds(p, rounds, (*f.at, "rounds"))
    if script is None:
        return None, NO_EXTRA
    p.warn(
        (*f.at, "rounds"),
        f"the {len(script)} rounds run as one prompt (planner prompts and scripted user"
        " replies in order): the agent sees every reply up front, so only the final"
        " round's work is really exercised",
    )
    return _with_context(_flatten(script), context), CaseExtra(mode=GUIDED, rounds=script)


def _with_context(prompt: str, context: str | None) -> str:
    return f"{prompt}\n\n{context}" if context and context.strip() else prompt


def _rounds(p: Problems, raw: Any, at: At) -> tuple[dict[str, str], ...] | None:
    if not isinstance(raw, list) or not raw:
        p.error(at, "rounds must be a non-empty list of planner and user rounds")
        return None
    script: list[dict[str, str]] = []
    for i, entry in enumerate(raw):
        here = (*at, i)
        if not isinstance(entry, dict):
            p.error(here, f"a round must be an object, not {json_kind(entry)}")
            return None
        f = Fields(p, entry, here)
        role = entry.get("role")
        if role == "planner":
            text = f.text("prompt", required=True)
            phase = f.text("phase") or ""
            if text is None:
                return None
            script.append({"role": "planner", "phase": phase, "prompt": text})
        elif role == "user":
            text = f.text("response", required=True)
            if text is None:
                return None
            script.append({"role": "user", "response": text})
        else:
            p.error((*here, "role"), f'role must be "planner" or "user", not {role!r}')
            return None
    if script[-1]["role"] != "planner":
        p.error((*at, len(raw) - 1), "the last round must be a planner round: no one answers it")
        return None
    return tuple(script)


def _flatten(script: tuple[dict[str, str], ...]) -> str:
    parts = [
        "This task is a scripted planning conversation. The planner rounds and the user's"
        " replies follow in order; work through them and do what the last round asks."
    ]
    planner = 0
    for entry in script:
        if entry["role"] == "planner":
            planner += 1
            phase = f", phase {entry['phase']}" if entry["phase"] else ""
            parts.append(f"## Round {planner} (planner{phase})\n\n{entry['prompt']}")
        else:
            parts.append(f"## The user's reply\n\n{entry['response']}")
    return "\n\n".join(parts)


class Staging:
    """Resolves `files` (relative to the skill root) into fixtures, rejecting escapes."""

    def __init__(self, doc: Document, ctx: LoadContext) -> None:
        self.root = ctx.root.resolve()
        evals_dir = doc.path.resolve().parent
        fallback = ctx.skill.dir or evals_dir
        self.skill_root = evals_dir.parent if evals_dir.name == "evals" else fallback

    def stage(self, p: Problems, raw: Any, at: At) -> tuple[Fixture, ...] | None:
        if raw is None:
            return ()
        if not isinstance(raw, list):
            p.error(at, f"must be a list of paths relative to the skill, not {json_kind(raw)}")
            return None
        fixtures: list[Fixture] = []
        dests: dict[str, str] = {}
        ok = True
        for i, entry in enumerate(raw):
            fixture = self._one(p, entry, (*at, i))
            if fixture is None:
                ok = False
                continue
            if fixture.dest in dests:
                p.error(
                    (*at, i), f"{entry!r} and {dests[fixture.dest]!r} both stage to {fixture.dest}"
                )
                ok = False
                continue
            dests[fixture.dest] = str(entry)
            fixtures.append(fixture)
        return tuple(fixtures) if ok else None

    def _one(self, p: Problems, entry: Any, at: At) -> Fixture | None:
        if not isinstance(entry, str) or not entry.strip():
            what = "inline file content is not supported" if isinstance(entry, dict) else ""
            p.error(at, what or f"must be a path string, not {json_kind(entry)}")
            return None
        clean = posixpath.normpath(entry.strip().replace("\\", "/"))
        if clean.startswith("/"):
            p.error(at, f"{entry!r} is absolute: write it relative to the skill directory")
            return None
        try:
            source = (self.skill_root / clean).resolve()
            regular = source.is_file()
        except OSError as exc:  # a name too long for the OS, say
            p.error(at, f"{entry[:80]!r} cannot be looked up: {exc.strerror}")
            return None
        if not source.is_relative_to(self.root):
            p.error(at, f"{entry!r} escapes the repository: keep fixtures inside it")
            return None
        if not regular:
            p.error(at, f"{entry!r} is not a file in the skill directory ({self._shown(source)})")
            return None
        return Fixture(source=source, dest=_dest(clean), origin=p.origin(*at))

    def _shown(self, source: Path) -> str:
        return source.relative_to(self.root).as_posix()


def _dest(clean: str) -> str:
    """evolve's staging rule: drop one `evals/`; keep the path below `files/`; else basename."""
    if clean.startswith("evals/"):
        clean = clean[len("evals/") :]
    if clean.startswith("files/"):
        return clean[len("files/") :]
    return posixpath.basename(clean)
