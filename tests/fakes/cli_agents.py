"""Helpers for tests that run the real agent CLIs (`harness: cli`) against the fake LLM server.

`cli_dir()` is where `./dev test` installed the pinned `claude` and `codex` (`.cache/clis`, or
`EVOLVE_CLI_DIR`); tests skip, saying why, when they are not there. `agent()` scripts one
agent for both CLIs: Claude Code calls the tools by Claude Code's names on the Messages API,
Codex has one shell tool (`exec_command`) on the Responses API, so each step is given in
both forms. A request that offers `submit_grading` is our SDK judge, answered as such.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from evolve_action.execute.harness.install import clis, installed
from evolve_action.formats import load_all
from evolve_action.model.evals import Case, Suite
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.fakes.scripts import grading, tool_names

ROOT = Path(__file__).resolve().parents[2]
MODELS = {"claude": "anthropic/claude-sonnet-4-6", "codex": "openai/gpt-5.4"}


def cli_dir() -> Path:
    """The install of the pinned CLIs, or a skip that says what is missing."""
    directory = Path(os.environ.get("EVOLVE_CLI_DIR") or ROOT / ".cache" / "clis")
    missing = [s.name for s in clis().values() if installed(s, directory) is None]
    if missing:
        pytest.skip(
            f"the agent CLIs ({', '.join(missing)}) are not installed in {directory}: "
            "`./dev test` installs them with npm, and npm is missing or the install failed"
        )
    return directory


@dataclass(frozen=True)
class Step:
    """One agent turn, in Claude Code's form and in Codex's."""

    claude: Answer
    codex: Answer


def harness_environ(fake: FakeLLM, keys: Mapping[str, str], **more: str) -> dict[str, str]:
    """What a harness is given in these tests: each key of `keys` (provider → key) with the
    fake's base URL for it, the pinned CLIs, quick retries and the PATH; `more` added."""
    urls = {
        "anthropic": ("ANTHROPIC_BASE_URL", fake.anthropic_base_url),
        "openai": ("OPENAI_BASE_URL", fake.openai_base_url),
        "gemini": ("GOOGLE_GEMINI_BASE_URL", fake.gemini_base_url),
    }
    environ = {"EVOLVE_CLI_DIR": str(cli_dir()), "EVOLVE_RETRY_BASE_DELAY_S": "0.01"}
    for provider, key in keys.items():
        name, url = urls[provider]
        environ |= {f"{provider.upper()}_API_KEY": key, name: url}
    return environ | {"PATH": os.environ.get("PATH", "/usr/bin:/bin")} | more


def bash(command: str) -> Step:
    return Step(call("Bash", command=command), call("exec_command", cmd=command))


def load_skill(name: str) -> Step:
    return Step(
        call("Skill", skill=name), call("exec_command", cmd=f"cat .agents/skills/{name}/SKILL.md")
    )


def write(path: str, content: str) -> Step:
    quoted = content.replace("'", "'\\''")
    return Step(
        call("Write", file_path=path, content=content),
        call("exec_command", cmd=f"printf '%s' '{quoted}' > {path}"),
    )


def say(words: str) -> Step:
    return Step(text(words), text(words))


def agent(
    steps: Sequence[Step] | Callable[[Request], Sequence[Step]],
    judge: Callable[[Request], Answer] = grading,
) -> Callable[[Request], Answer]:
    """A script: the judge's requests graded, every other request the agent's next step."""

    def script(request: Request) -> Answer:
        if "submit_grading" in tool_names(request):
            return judge(request)
        chosen = steps(request) if callable(steps) else steps
        if request.turn >= len(chosen):
            return text("(script exhausted)")
        step = chosen[request.turn]
        return step.codex if request.api == "responses" else step.claude

    return script


# --- a one-skill repository and its suite, for runs driven by hand ---------------------

SKILL = "---\nname: greeter\ndescription: Greets people in hello.txt.\n---\n{body}\n"


def make_repo(root: Path, evals: dict[str, Any], body: str = "Write `Hello, Ada!`.") -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin/plugin.json").write_text('{"name": "demo"}')
    (root / "skills/greeter").mkdir(parents=True)
    (root / "skills/greeter/SKILL.md").write_text(SKILL.format(body=body))
    for name, doc in evals.items():
        (root / "evals/greeter").mkdir(parents=True, exist_ok=True)
        (root / "evals/greeter" / name).write_text(json.dumps(doc))
    return root


def suite_and_case(root: Path, file: str = "evals.json") -> tuple[Suite, Case]:
    suites = [r.suite for r in load_all(root) if r.suite is not None and r.rel.endswith(file)]
    assert suites, [r.problems for r in load_all(root)]
    return suites[0], suites[0].cases[0]


TASK = {
    "evals": [
        {
            "id": "greet",
            "prompt": "Greet Ada.",
            "assertions": [
                {"type": "file_exists", "path": "out.txt"},
                {"type": "regex", "path": "hello.txt", "pattern": "^Hello, Ada!$"},
            ],
        }
    ]
}
