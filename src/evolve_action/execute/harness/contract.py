"""What an agent CLI must say about itself to run evals: the one contract every harness keeps.

A harness folder (`claude/`, `codex/`, ...) holds a `Harness` subclass, registered by one line
in `registry.py`; `run.py` does the rest the same way for all of them: it installs the pinned
CLI (`cli`, from `npm/package-lock.json`), stages the skill where the CLI looks
(`skills_dir`), gives the run a fresh HOME with what the CLI needs there (`prepare_home`),
opens a credential-proxy session (a dummy key; the real one stays with the proxy), starts the
CLI headless inside the confinement (`command`: argv, the variables that point it at the
proxy, the prompt on stdin or not) and reads its event stream into a `CliOutcome` (`parse`).

The CLI never sees a real key: `command` gets the proxy's base URL and the session's dummy
token, and whatever variables or config the CLI reads them from are its own business (an
environment variable, a `-c` option, a JSON config in a variable). What the CLI counts is not
trusted for cost: the proxy counts every call's usage.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from evolve_action.execute.harness.events import CliOutcome
from evolve_action.model.mcp import McpLaunch


@dataclass(frozen=True, slots=True)
class CliSpec:
    """How the CLI is installed (`install.py`): pinned in `npm/package-lock.json`."""

    name: str  # the command
    package: str  # the npm package people install
    # The lock entry holding this platform's native binary, and the binary inside it.
    native: Callable[[str, str, str], tuple[str, str]]
    # Folders beside the binary's folder the CLI expects on PATH (Codex's `rg`), if present.
    helper_dirs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Invocation:
    """One headless run, as a CLI's command line needs it."""

    binary: str  # the CLI's executable
    provider: str  # the model's provider: the proxy's route (`<base_url>/<provider>`)
    model: str  # the bare model id
    prompt: str
    max_turns: int
    trigger: bool  # a trigger case: only the skill tools (`tools.specs.TRIGGER_TOOLS`)
    sandboxed: bool  # our confinement is on: the CLI's own sandbox must stay off
    base_url: str  # the proxy, without the provider: `http://127.0.0.1:PORT`
    token: str  # the proxy session's dummy key
    system: str | None = None  # the case's extra system text
    # The case's MCP servers, resolved (`model.mcp`): the only servers the CLI may offer.
    mcp: tuple[McpLaunch, ...] = ()
    # Its `needs_on_path` programs as found on the job's PATH, links resolved (the sandbox
    # user may not reach a link that leads to them): Gemini CLI's `node`.
    helpers: Mapping[str, str] = field(default_factory=dict)

    @property
    def endpoint(self) -> str:
        """Where this provider's calls go: the proxy's route for it."""
        return f"{self.base_url}/{self.provider}"


@dataclass(frozen=True, slots=True)
class Command:
    argv: list[str]
    # Variables set for the CLI alone, by the relay inside the confinement: the proxy's URL
    # and the dummy key, however this CLI reads them.
    env: dict[str, str] = field(default_factory=dict)
    stdin: str | None = None  # the prompt, for CLIs that read it there


class Harness(ABC):
    """One agent CLI. Subclasses set the class attributes and implement `command` and
    `parse`; `prepare_home` has a default."""

    name: ClassVar[str]  # the command, and the harness's name in notes and fingerprints
    cli: ClassVar[CliSpec]  # its npm package and the native binary inside it
    providers: ClassVar[tuple[str, ...]]  # the model providers it can run, its own first
    skills_dir: ClassVar[str]  # where it looks for skills in its working directory
    home_dirs: ClassVar[tuple[str, ...]] = ()  # its state folders, made fresh in each HOME
    # Settings that are not credentials (telemetry and updates off, retries off: the proxy
    # retries), passed through the confinement's environment filter.
    env: ClassVar[Mapping[str, str]] = {}
    # False: it has no turn cap of its own, and the proxy refuses the call past the cap.
    caps_turns: ClassVar[bool] = True
    # False: one user message per run; a case of several turns runs on the SDK harness only.
    multi_turn: ClassVar[bool] = False
    # Programs its tools run that must be on the job's PATH (OpenCode's skill tool runs `rg`):
    # without one, its runs are errors that say so, never runs without the skill.
    needs_on_path: ClassVar[tuple[str, ...]] = ()
    # The machine-wide files it reads whatever its flags say (managed policy): an MCP server,
    # hook or setting of the machine's there would reach the runs, so while one exists its
    # runs are errors that name it, never runs with the operator's tools attached.
    machine_config: ClassVar[tuple[str, ...]] = ()

    def unusable(self, found: dict[str, str]) -> str | None:
        """Why the programs of `needs_on_path` found on the job's PATH (name → path) cannot
        serve it (Gemini CLI's Node.js too old, say), in words that name the CLI; None: they
        can."""
        return None

    def prepare_home(self, home: Path, run: Invocation) -> None:
        """Write what the CLI needs in its fresh HOME before it starts (its state folders;
        a settings file where a CLI refuses to start without one)."""
        for name in self.home_dirs:
            (home / name).mkdir(parents=True, exist_ok=True)

    def prepare_job(self, binary: Path, directory: Path) -> dict[str, str]:
        """Do once per job, in `directory` (made here: ours alone, which the runs may read but
        not change), what each run's fresh HOME would otherwise repeat; the variables that
        point every run at it. Default: nothing to share."""
        return {}

    @abstractmethod
    def command(self, run: Invocation) -> Command:
        """The headless command line, the proxy's variables, and the prompt's way in."""

    @abstractmethod
    def parse(self, stdout: str, *, exit_code: int, stderr: str = "") -> CliOutcome:
        """The CLI's event stream → tool calls (with inputs and outputs), the final answer,
        turns, its own usage figures, and an error when nothing gradable came out."""
