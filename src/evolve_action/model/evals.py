"""The normalized eval model: every supported format loads into these types (docs/design.md §Model).

A `Suite` is one eval file; it holds `Case`s. A case's graded items keep their authored
order in `Case.items` (evolve writes results in that order), while grading runs the
deterministic `Check`s first and the `JudgeItem`s in one batched judge call afterwards.

Everything here is immutable and free of I/O, so loaders can be tested alone and the same
suite can be fingerprinted, planned and graded without surprises.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType

# Re-exported: the family extras and the suite policy moved to their own modules, and
# `from evolve_action.model.evals import ...` stays the one place loaders import from.
from evolve_action.model.extras import EMPTY as EMPTY
from evolve_action.model.extras import NO_EXTRA as NO_EXTRA
from evolve_action.model.extras import NO_JUDGE_PARAMS as NO_JUDGE_PARAMS
from evolve_action.model.extras import CaseExtra as CaseExtra
from evolve_action.model.extras import ExtractField as ExtractField
from evolve_action.model.extras import ExtractSection as ExtractSection
from evolve_action.model.extras import ExtractTier as ExtractTier
from evolve_action.model.extras import ItemGroup as ItemGroup
from evolve_action.model.extras import JsonObject as JsonObject
from evolve_action.model.extras import JsonValue as JsonValue
from evolve_action.model.extras import JudgeParams as JudgeParams
from evolve_action.model.mcp import McpServer
from evolve_action.model.policy import AGENTV_THRESHOLD as AGENTV_THRESHOLD
from evolve_action.model.policy import CLAUDITOR_MIN_MEAN_SCORE as CLAUDITOR_MIN_MEAN_SCORE
from evolve_action.model.policy import CLAUDITOR_MIN_PASS_RATE as CLAUDITOR_MIN_PASS_RATE
from evolve_action.model.policy import SuitePolicy as SuitePolicy


def _empty_str() -> Mapping[str, str]:
    return MappingProxyType({})


class Format(StrEnum):
    """The eval file formats we read (docs/formats.md)."""

    EVOLVE = "evolve"  # evolve evals.*; skill-creator evals.json loads through it (a subset)
    SKILL_EVALUATOR = "skill-evaluator"
    AGENTV = "agentv"
    CLAUDITOR = "clauditor"
    TRIGGERS = "triggers"
    VALLY = "vally"  # Microsoft's Vally: `eval.yaml` / `*.vally.yaml` holding `stimuli:`
    PROMPTFOO = "promptfoo"  # `promptfooconfig.yaml` testing a skill through an agent SDK
    TESSL = "tessl"  # tessl scenarios: `evals/<scenario>/criteria.json` beside `task.md`
    WAZA = "waza"  # Microsoft's waza: `eval.yaml` with `tasks:`, `trigger_tests.yaml`
    SKILL_VALIDATOR = "skill-validator"  # dotnet's skill-validator: `eval.yaml` with `scenarios:`
    CLAUDE_PLUGIN = "claude-plugin"  # `claude plugin eval`: `evals/<case>/case.yaml`, prompt.md
    AXIS = "axis"  # Netlify's AXIS: `axis.config.json` and its JSON scenarios
    BEST_PRACTICE = "best-practice"  # Anthropic's authoring guide: `evals/*.json` {query, ...}
    CALIPER = "caliper"  # caliper: `<name>.eval.yaml` with inline `tasks` (prompt, expect)
    SKILLGRADE = "skillgrade"  # skillgrade: `eval.yaml` with `tasks[].instruction`
    SKILL_TESTS = "skill-test-action"  # `skill-tests.yaml`: prompts and `should_trigger`
    EVAL_MD = "eval-md"  # `*.eval.md` with `<prompt>` and `<expectation>` blocks


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    # A file named like an eval file that is not one of a format we read (another tool's, a CI
    # workflow): said once, never an error, never a failed check.
    NOTICE = "notice"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where something was written: the eval file (repository-relative), its line, its field."""

    path: str
    line: int | None = None
    pointer: str = ""  # e.g. "evals[2].assertions[0].pattern"

    def at(self, pointer: str, line: int | None) -> Origin:
        return Origin(self.path, line if line is not None else self.line, pointer)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else self.path


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong (or suspicious) in an eval file, phrased for its author."""

    origin: Origin
    message: str
    severity: Severity = Severity.ERROR

    @property
    def field(self) -> str:
        return self.origin.pointer

    def render(self) -> str:
        """`file:line: field: message`, the shape editors and CI logs understand."""
        where = str(self.origin)
        prefix = f"{where}: {self.field}: " if self.field else f"{where}: "
        tag = "" if self.severity is Severity.ERROR else f"{self.severity.value}: "
        return f"{prefix}{tag}{self.message}"


class CaseKind(StrEnum):
    TASK = "task"  # the agent works on a task in a workspace with the skill installed
    TRIGGER = "trigger"  # does the skill fire for this query (Skill and Read only, two turns)


class Scale(StrEnum):
    """How the judge scores a judge item."""

    BINARY = "binary"  # passed or failed, with evidence (expectations, llm assertions, checklists)
    LIKERT5 = "1-5"  # skill-evaluator quality_rubric dimensions (anchors 1/3/5)
    RANGE10 = "0-10"  # agentv score_ranges rubrics
    UNIT = "0-1"  # clauditor grading_criteria, agentv freeform llm_judge


@dataclass(frozen=True, slots=True)
class Fixture:
    """A file staged into the run's workspace before the agent starts."""

    source: Path  # absolute path on disk; for inline content, the eval file that holds it
    dest: str  # POSIX path relative to the workspace root
    origin: Origin
    # The file's text written in the eval file itself (skill-validator's `content`), staged
    # as UTF-8 instead of a copy of `source`; `model.fixtures.inline_refusal` bounds it.
    content: str | None = None


class CheckParams:
    """The parameters of a check kind: each kind declares a frozen dataclass subclass of this
    (registered with the kind, `model.checking.register`), which its family's loader builds
    from the authored fields, so a check reads attributes, never keys."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class NoParams(CheckParams):
    """The parameters of a kind that reads none (skill-evaluator's `no_errors`)."""


@dataclass(frozen=True, slots=True)
class Check:
    """A deterministic check, graded by the function registered under `kind`.

    `kind` is `<format>.<type>` (for example `evolve.regex`, `clauditor.min_count`);
    `params` are the authored fields the check reads, already validated by the loader, as
    the kind's `CheckParams` (`tests/unit/test_families.py` holds every kind to one).
    """

    id: str
    kind: str
    text: str  # stable description shown in results (evolve's derived text templates)
    origin: Origin
    params: CheckParams = field(default_factory=NoParams)
    weight: float = 1.0
    required: float | None = None  # a floor: the run fails when this item scores below it
    critical: bool = False  # skill-evaluator: a failure closes the structural gate
    group: str = ""  # agentv evaluator / composite path, clauditor layer, ...
    source: str = "assertion"


@dataclass(frozen=True, slots=True)
class JudgeItem:
    """Something only the LLM judge can grade; all of a run's items go in one judge call."""

    id: str
    text: str  # the statement, dimension or criterion, shown to the judge verbatim
    origin: Origin
    scale: Scale = Scale.BINARY
    kind: str = "assertion"  # assertion | rubric | criterion | freeform | extract
    weight: float = 1.0
    required: float | None = None
    # Scale anchors, e.g. {"1": ..., "3": ..., "5": ...}.
    anchors: Mapping[str, str] = field(default_factory=_empty_str)
    params: JudgeParams = field(default_factory=lambda: NO_JUDGE_PARAMS)
    group: str = ""
    source: str = "assertion"  # evolve: "expectation" | "assertion"


Item = Check | JudgeItem


@dataclass(frozen=True, slots=True)
class SetupCommand:
    """A shell command that prepares the workspace before the agent starts."""

    run: str
    origin: Origin
    # Vally fails a trial whose setup command exits non-zero; skill-validator never looks at
    # the exit code. A command that cannot start or times out is an error either way.
    check_exit: bool = True


@dataclass(frozen=True, slots=True)
class Message:
    """One message of an authored conversation (agentv `input` with several turns)."""

    role: str  # system | user | assistant
    content: str


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    prompt: str  # the user's task; for a conversation, its last user message
    origin: Origin
    name: str = ""
    kind: CaseKind = CaseKind.TASK
    messages: tuple[Message, ...] = ()  # earlier turns before `prompt`, when authored
    # User turns sent one at a time after `prompt`, each once the agent has answered the one
    # before (Vally `turns`). Unlike `messages`, whose assistant turns are authored and sent
    # as history, every answer here is the agent's own.
    follow_ups: tuple[str, ...] = ()
    # Shell commands run in the workspace, in the confinement, before the agent starts
    # (Vally `environment.commands`, skill-validator `setup.commands`).
    setup_commands: tuple[SetupCommand, ...] = ()
    system: str | None = None  # an inline system prompt replaces the skill listing
    expected_output: str = ""  # judge context only, never graded on its own
    files: tuple[Fixture, ...] = ()
    items: tuple[Item, ...] = ()
    skip_providers: frozenset[str] = frozenset()
    max_turns: int | None = None
    timeout_seconds: float | None = None
    should_trigger: bool | None = None  # TRIGGER cases only
    output_files: tuple[str, ...] = ()  # read these (globs) instead of the final answer
    mcp_servers: tuple[McpServer, ...] = ()  # the MCP servers the case declares (`model.mcp`)
    extra: CaseExtra = field(default_factory=lambda: NO_EXTRA)

    @property
    def checks(self) -> tuple[Check, ...]:
        return tuple(i for i in self.items if isinstance(i, Check))

    @property
    def judge_items(self) -> tuple[JudgeItem, ...]:
        return tuple(i for i in self.items if isinstance(i, JudgeItem))

    @property
    def label(self) -> str:
        return self.name or self.id


@dataclass(frozen=True, slots=True)
class Skill:
    """The skill a suite evaluates, and the plugin it belongs to."""

    name: str
    dir: Path | None  # None when the eval file names a skill that does not exist
    plugin: str = ""
    plugin_dir: Path | None = None  # where the plugin's other skills live (for triggers)


@dataclass(frozen=True, slots=True)
class Suite:
    """One eval file, loaded and normalized."""

    format: Format
    path: Path  # absolute
    rel: str  # repository-relative POSIX path, used in messages and links
    skill: Skill
    cases: tuple[Case, ...]
    name: str = ""
    models: tuple[str, ...] = ()  # restriction tokens; empty means every configured model
    runs: int | None = None  # the file's own default (runs_per_eval, variance.n_runs)
    judge_model: str | None = None  # a file may ask for a judge; the input still wins
    # False: the file evaluates a model, not a skill (an AgentV file that names no skill, as
    # with AgentV's plain LLM targets): no skill is installed and the model gets no tools, so
    # a single-turn case is one chat call.
    agent: bool = True
    # Verdict policy parameters of this format (docs/design.md §Pass rate).
    policy: SuitePolicy = field(default_factory=SuitePolicy)
    warnings: tuple[Problem, ...] = field(default=())

    @property
    def label(self) -> str:
        return self.name or self.skill.name or self.rel


def split_model(model: str) -> tuple[str, str]:
    """`anthropic/claude-sonnet-4-6` → (`anthropic`, `claude-sonnet-4-6`); a bare id → ("", id)."""
    provider, sep, bare = model.partition("/")
    return (provider, bare) if sep else ("", model)


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What loading one eval file gave: a suite when it is usable, and every problem found."""

    rel: str
    format: Format | None
    suite: Suite | None
    problems: tuple[Problem, ...] = ()

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity is Severity.ERROR)

    @property
    def ok(self) -> bool:
        return self.suite is not None and not self.errors

    @property
    def failed(self) -> bool:
        """Fails the check: an error, or nothing usable and nothing said why. A file without a
        suite whose problems are only warnings is not run (its reason is the first warning),
        and fails nothing."""
        return bool(self.errors) or (self.suite is None and not self.problems)

    @property
    def not_eval(self) -> bool:
        """The file is named like an eval file but is none we read: it only has a notice."""
        return (
            self.suite is None
            and bool(self.problems)
            and all(p.severity is Severity.NOTICE for p in self.problems)
        )
