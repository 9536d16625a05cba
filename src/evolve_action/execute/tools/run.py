"""The agent's tools, with Claude Code's names and argument shapes (docs/design.md §Running).

`tool_call` assertions are written against real Claude Code transcripts (`^Bash$`, `Skill`,
`"file_path"`), so the names and JSON fields here match Claude Code's. Every call is
validated against the tool's JSON schema and confined to the workspace; a bad call comes back
as an `is_error` result the model can act on, never as an exception. Results are capped.

`WorkspaceTools` offers a subset, one of the sets `specs` names: `AGENT_TOOLS` for the agent,
`JUDGE_TOOLS` (read-only) for the judge, `TRIGGER_TOOLS` for trigger runs. `system_prompt` is
the stable text that tells the model where it works and which skills it can load.
"""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evolve_action.execute.sandbox.confine import SANDBOX_ROOT, Confinement
from evolve_action.execute.skill_install import SkillInfo
from evolve_action.execute.tools import fs as tools_fs
from evolve_action.execute.tools.specs import AGENT_TOOLS, SPECS
from evolve_action.model.provider import ToolResultPart, ToolSpec

RESULT_CAP = 30_000
BASH_DEFAULT_MS = 120_000
BASH_MAX_MS = 600_000
_SKILL_FILES_SHOWN = 50

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

    from evolve_action.execute.mcp.client import McpTools


class WorkspaceTools:
    """A `providers.base.ToolBox` over one workspace."""

    def __init__(
        self,
        workspace: Path,
        confinement: Confinement | None,
        skills: Sequence[SkillInfo] = (),
        offer: Sequence[str] = AGENT_TOOLS,
        *,
        deadline: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        result_cap: int = RESULT_CAP,
        mcp: McpTools | None = None,
    ) -> None:
        unknown = [name for name in offer if name not in SPECS]
        if unknown:
            raise ValueError(f"unknown tools {unknown}; the tools are {sorted(SPECS)}")
        if "Bash" in offer and confinement is None:
            raise ValueError("offering Bash needs a Confinement to run its commands in")
        self.workspace = workspace
        self.confinement = confinement
        self.skills = tuple(skills)
        self.offer = tuple(offer)
        self.deadline = deadline  # a `clock()` value; Bash timeouts never run past it
        self.clock = clock
        self.result_cap = result_cap
        self.mcp = mcp  # the case's MCP servers' tools, offered beside ours
        self._validators: dict[str, Draft202012Validator] = {}  # on each tool's first call

    def specs(self) -> tuple[ToolSpec, ...]:
        ours = tuple(SPECS[name] for name in self.offer)
        return ours + (self.mcp.specs() if self.mcp is not None else ())

    async def call(self, name: str, arguments: str) -> ToolResultPart:
        """Run one call; the `tool_use_id` is left empty for the agent loop to fill in."""
        if self.mcp is not None and self.mcp.offers(name):
            done = await self.mcp.call(name, arguments)
            return ToolResultPart("", self._cap(done.content), done.is_error)
        try:
            text = await self._dispatch(name, arguments)
            return ToolResultPart("", self._cap(text))
        except tools_fs.ToolFailure as exc:
            return ToolResultPart("", self._cap(f"Error: {exc}"), is_error=True)
        except OSError as exc:  # permissions, a full disk, a file vanishing under us
            reason = exc.strerror or type(exc).__name__
            return ToolResultPart("", f"Error: {name} failed: {reason}", is_error=True)
        except Exception as exc:  # a bug of ours must not end the run; the model sees it
            log.exception("tool %s failed on arguments %s", name, arguments[:500])
            detail = f"Error: internal error in tool {name}: {type(exc).__name__}"
            return ToolResultPart("", detail, is_error=True)

    async def _dispatch(self, name: str, arguments: str) -> str:
        if name not in self.offer:
            raise tools_fs.ToolFailure(
                f"there is no tool named {name!r}; the tools are {', '.join(self.offer)}"
            )
        args = self._arguments(name, arguments)
        if name == "Bash":
            return await self._bash(args["command"], args.get("timeout"))
        if name == "Skill":
            return self._skill(args["skill"])
        fn: Callable[..., str] = getattr(tools_fs, name.lower())
        return fn(self.paths, **args)

    @functools.cached_property
    def paths(self) -> tools_fs.Paths:
        """The workspace by its real path, found when a tool first needs it: most runs offer
        no tool, or never call one (a system call per path component)."""
        return tools_fs.Paths(self.workspace.resolve())

    def _arguments(self, name: str, raw: str) -> dict[str, Any]:
        try:
            args = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            raise tools_fs.ToolFailure(
                f"the arguments of {name} are not valid JSON ({exc.msg} at char {exc.pos})"
            ) from exc
        if not isinstance(args, dict):
            raise tools_fs.ToolFailure(f"the arguments of {name} must be a JSON object")
        errors = sorted(self._validator(name).iter_errors(args), key=lambda e: list(e.path))
        if errors:
            where = "/".join(str(p) for p in errors[0].path)
            prefix = f"{where}: " if where else ""
            raise tools_fs.ToolFailure(f"invalid arguments for {name}: {prefix}{errors[0].message}")
        args.pop("description", None)  # Claude Code's Bash note for the user; nothing to run
        return args

    def _validator(self, name: str) -> Draft202012Validator:
        # jsonschema takes about 0.1 s to import: a run whose model calls no tool never loads it.
        if name not in self._validators:
            from jsonschema import Draft202012Validator

            self._validators[name] = Draft202012Validator(SPECS[name].input_schema)
        return self._validators[name]

    async def _bash(self, command: str, timeout_ms: int | None) -> str:
        assert self.confinement is not None  # checked in __init__
        asked = min(timeout_ms or BASH_DEFAULT_MS, BASH_MAX_MS) / 1000
        wanted = asked
        if self.deadline is not None:
            left = self.deadline - self.clock()
            if left <= 0:
                raise tools_fs.ToolFailure("the run's time is up; no more commands can run")
            wanted = min(asked, left)
        done = await self.confinement.run(command, timeout_s=wanted)
        if done.error:
            raise tools_fs.ToolFailure(done.error)
        parts = [p.rstrip("\n") for p in (done.stdout, done.stderr) if p.strip()]
        # Only the requested timeout is quoted: the time left varies, and results must not.
        if done.timed_out and wanted < asked:
            parts.append("[the run's time ran out; the command and its children were killed]")
        elif done.timed_out:
            parts.append(f"[timed out after {asked:g} s; the command and its children were killed]")
        elif done.exit_code != 0:
            parts.append(f"[exit code {done.exit_code}]")
        text = "\n".join(parts) or "(no output)"
        if done.timed_out or done.exit_code != 0:
            raise tools_fs.ToolFailure(text)
        return text

    def _skill(self, wanted: str) -> str:
        skill = find_skill(self.skills, wanted)
        if skill is None:
            names = ", ".join(s.name for s in self.skills) or "none"
            raise tools_fs.ToolFailure(f"no skill named {wanted!r}; installed skills: {names}")
        lines = [
            f'Loaded skill "{skill.name}". Its directory is {skill.path_in_workspace}/ '
            "(relative to the workspace)."
        ]
        if skill.files:
            shown = ", ".join(skill.files[:_SKILL_FILES_SHOWN])
            more = len(skill.files) - _SKILL_FILES_SHOWN
            tail = f" and {more} more" if more > 0 else ""
            lines.append(
                f"Its other files: {shown}{tail}. Read them when the skill refers to them."
            )
        return "\n".join(lines) + "\n\n" + skill.body

    def _cap(self, text: str) -> str:
        if len(text) <= self.result_cap:
            return text
        return (
            text[: self.result_cap]
            + f"\n[result truncated: {self.result_cap} of {len(text)} characters shown]"
        )


def find_skill(skills: Sequence[SkillInfo], wanted: str) -> SkillInfo | None:
    """A skill by its name or directory name; `plugin:name` (Claude Code's form) works too."""
    key = wanted.strip().rsplit(":", 1)[-1].strip().strip("/")
    for skill in skills:
        if key in (skill.name, skill.dir_name):
            return skill
    return None


def system_prompt(skills: Sequence[SkillInfo], *, inline_body: str | None = None) -> str:
    """The agent's system prompt; the same skills always give the same text."""
    if inline_body is not None:
        return inline_body
    text = (
        "You are a coding agent working on a task in the current directory, the workspace "
        f"(also reachable as {SANDBOX_ROOT}). Use paths relative to it. Use the tools to "
        "inspect and change files and to run commands; when you are done, answer with a short "
        "summary of what you did."
    )
    if not skills:
        return text
    listing = "\n".join(f"- {s.name}: {s.description}" for s in sorted(skills, key=_by_name))
    return (
        f"{text}\n\nSkills give you instructions and files for specific tasks. When a task "
        "matches a skill below, load it first with the Skill tool, passing its name "
        '(for example {"skill": "' + sorted(skills, key=_by_name)[0].name + '"}), and follow '
        f"its instructions.\n\nAvailable skills:\n{listing}"
    )


def _by_name(skill: SkillInfo) -> str:
    return skill.name
