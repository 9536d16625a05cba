"""A run's trajectory: its tool calls as one typed sequence, whatever harness ran it.

Every harness fills `Transcript.tool_calls`; `trajectory_of` turns them into `ToolStep`s that
say which tool was called (the name as the agent saw it, and split into the MCP server and the
bare tool name), with what arguments (parsed JSON when they parse) and what came back. Every
format's tool assertion is a check over this sequence (`formats/trajectory/`).

MCP tools reach us under each agent's own naming: Claude Code and the SDK loop call them
`mcp__<server>__<tool>`; Codex reports `server` and `tool` separately (kept in
`ToolCall.server`); OpenCode joins them as `<server>_<tool>`, Copilot as `<server>-<tool>`,
Gemini CLI as `<server>__<tool>` on a clash. The last three can only be split knowing the
servers the case declares, so `trajectory_of` takes their names.

An eval may name a step by any of its `forms`: the full name, the bare tool name, or
`server/tool`, `server.tool`, `mcp__server__tool`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from evolve_action.model.outcomes import ToolCall, Transcript

MCP_PREFIX = "mcp__"
# Where a trajectory check's evidence says how the run went wrong, after the expected and the
# observed sequences: the comment keeps this conclusion whole when it must shorten the rest.
CONCLUSIONS = ("; parted at ", "; missing: ")
OBSERVED = "; observed: "  # between the expected sequence (or the rule) and the observed one
# How agents other than Claude join a server's name to its tool's, most specific first.
_JOINS = ("__", "_", "-", ".", "/")


@dataclass(frozen=True, slots=True)
class ToolStep:
    """One tool call in a run's trajectory."""

    index: int  # 1-based position among the run's tool calls
    name: str  # as the agent saw it (and the harness reported it)
    server: str  # the MCP server's name; "" for a built-in tool
    tool: str  # the bare tool name (the name itself for a built-in tool)
    arguments: Any  # the arguments parsed as JSON; the raw text when they do not parse
    raw_arguments: str  # exactly as the model sent them
    result: str = ""
    is_error: bool = False

    @property
    def forms(self) -> tuple[str, ...]:
        """Every name an eval may write for this step."""
        return name_forms(self.name, self.server, self.tool)

    @property
    def label(self) -> str:
        """The step's name as evidence shows it: `server/tool` for an MCP tool."""
        return f"{self.server}/{self.tool}" if self.server else self.name


@dataclass(frozen=True, slots=True)
class Trajectory:
    steps: tuple[ToolStep, ...] = ()
    turns: int = 0  # the model turns the run took

    @property
    def labels(self) -> list[str]:
        return [s.label for s in self.steps]


def trajectory_of(transcript: Transcript, servers: Iterable[str] = ()) -> Trajectory:
    """The run's trajectory; `servers` are the MCP servers the case declares (their names
    split the joined names some agents report)."""
    known = tuple(sorted(set(servers), key=len, reverse=True))
    steps = tuple(_step(i, call, known) for i, call in enumerate(transcript.tool_calls, 1))
    return Trajectory(steps, transcript.turns)


def name_forms(name: str, server: str, tool: str) -> tuple[str, ...]:
    """The names a call reported as `name` (of `tool` on `server`) answers to."""
    if not server:
        return (name,) if name == tool else (name, tool)
    names = (name, tool, f"{server}/{tool}", f"{server}.{tool}", f"{MCP_PREFIX}{server}__{tool}")
    return tuple(dict.fromkeys(names))


def call_forms(call: ToolCall, servers: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Every name an eval may write for one reported call."""
    return name_forms(call.name, *split_name(call.name, call.server, servers))


def split_name(name: str, server: str = "", servers: tuple[str, ...] = ()) -> tuple[str, str]:
    """(server, bare tool) of a reported tool name; ("", name) for a built-in tool."""
    if server:
        prefixed = f"{MCP_PREFIX}{server}__"
        return server, name.removeprefix(prefixed) if name.startswith(prefixed) else name
    if name.startswith(MCP_PREFIX):
        rest = name.removeprefix(MCP_PREFIX)
        for known in servers:  # a server name may itself hold `__`
            if rest.startswith(f"{known}__") and len(rest) > len(known) + 2:
                return known, rest[len(known) + 2 :]
        head, sep, tail = rest.partition("__")
        if sep and head and tail:
            return head, tail
    for known in servers:
        for join in _JOINS:
            lead = f"{known}{join}"
            if name.startswith(lead) and len(name) > len(lead):
                return known, name[len(lead) :]
    return "", name


def _step(index: int, call: ToolCall, servers: tuple[str, ...]) -> ToolStep:
    server, tool = split_name(call.name, call.server, servers)
    return ToolStep(
        index, call.name, server, tool, parse_arguments(call.arguments), call.arguments,
        call.result, call.is_error,
    )  # fmt: skip


def conclusion(evidence: str) -> tuple[str, str, str]:
    """(what was expected, the observed calls, the conclusion) of a trajectory check's
    evidence; (evidence, "", "") for any other evidence."""
    at = max(evidence.rfind(mark) for mark in CONCLUSIONS)
    seen = evidence.find(OBSERVED)
    if at <= 0 or not 0 < seen < at:
        return evidence, "", ""
    return evidence[:seen], evidence[seen + len(OBSERVED) : at], evidence[at + 2 :]


def parse_arguments(raw: str) -> Any:
    """The arguments as JSON values, or the raw text when they are not JSON."""
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        return raw
