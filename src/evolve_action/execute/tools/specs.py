"""The JSON-schema specs of the tools, shaped like Claude Code's (names and fields).

Kept apart from their implementations so the requests we send (and record) change only when
these texts do.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from evolve_action.model.provider import ToolSpec

_PATH_RULE = (
    "Paths are relative to the workspace (the current directory); absolute paths must start "
    "with /workspace. Nothing outside the workspace can be reached."
)


def _schema(properties: Mapping[str, Any], required: tuple[str, ...]) -> Mapping[str, Any]:
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }


_STR = {"type": "string"}

# The tool sets, by name, written once: our SDK loop offers them as `SPECS`, and the CLI
# harnesses grant the same names to the real agents (Claude Code's `--allowedTools`).
AGENT_TOOLS = ("Bash", "Read", "Write", "Edit", "Glob", "Grep", "Skill")
TRIGGER_TOOLS = ("Skill", "Read")  # as evolve's trigger runs: load the skill, or not
JUDGE_TOOLS = ("Read", "Glob", "Grep")  # read-only

SPECS: Mapping[str, ToolSpec] = MappingProxyType(
    {
        "Bash": ToolSpec(
            "Bash",
            "Run a shell command (/bin/sh) in the workspace and return its output. "
            "Commands have no network access and no credentials; background processes end "
            "with the command.",
            _schema(
                {
                    "command": {**_STR, "description": "The command to run."},
                    "timeout": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Timeout in milliseconds (default 120000, max 600000).",
                    },
                    "description": {**_STR, "description": "What the command does, in 5-10 words."},
                },
                ("command",),
            ),
        ),
        "Read": ToolSpec(
            "Read",
            "Read a text file, with line numbers (like cat -n). Reads up to 2000 lines; use "
            "offset (first line, 1-based) and limit for more. " + _PATH_RULE,
            _schema(
                {
                    "file_path": {**_STR, "description": "The file to read."},
                    "offset": {"type": "integer", "description": "The line to start at (1-based)."},
                    "limit": {"type": "integer", "description": "How many lines to read."},
                },
                ("file_path",),
            ),
        ),
        "Write": ToolSpec(
            "Write",
            "Write a file, replacing it if it exists; parent directories are created. "
            + _PATH_RULE,
            _schema(
                {
                    "file_path": {**_STR, "description": "The file to write."},
                    "content": {**_STR, "description": "The complete new content."},
                },
                ("file_path", "content"),
            ),
        ),
        "Edit": ToolSpec(
            "Edit",
            "Replace exact text in a file. old_string must occur exactly once unless "
            "replace_all is true. " + _PATH_RULE,
            _schema(
                {
                    "file_path": {**_STR, "description": "The file to change."},
                    "old_string": {**_STR, "description": "The exact text to replace."},
                    "new_string": {**_STR, "description": "The text to put in its place."},
                    "replace_all": {
                        "type": "boolean",
                        "description": "Replace every occurrence (default false).",
                    },
                },
                ("file_path", "old_string", "new_string"),
            ),
        ),
        "Glob": ToolSpec(
            "Glob",
            "List files matching a glob pattern such as **/*.py or src/*.{ts,tsx}, sorted by "
            "path. " + _PATH_RULE,
            _schema(
                {
                    "pattern": {**_STR, "description": "The glob to match file paths against."},
                    "path": {**_STR, "description": "The directory to search (default: all)."},
                },
                ("pattern",),
            ),
        ),
        "Grep": ToolSpec(
            "Grep",
            "Search file contents with a regular expression (RE2 syntax) and return matching "
            "lines as file:line:text. " + _PATH_RULE,
            _schema(
                {
                    "pattern": {**_STR, "description": "The regular expression to search for."},
                    "path": {**_STR, "description": "A file or directory (default: all)."},
                    "glob": {**_STR, "description": "Only search files matching this glob."},
                },
                ("pattern",),
            ),
        ),
        "Skill": ToolSpec(
            "Skill",
            "Load an installed skill by name: returns its instructions (SKILL.md) and where "
            "its other files are.",
            _schema({"skill": {**_STR, "description": "The skill's name."}}, ("skill",)),
        ),
    }
)
