"""What running and grading make: transcripts, item verdicts, run results (docs/design.md §Model).

A *run* is one case, on one model, on one side (base, head, or head without its skill: the
no-skill arm), one repetition. It ends as
`pass`, `fail` or `error`; an error (no gradable output: provider outage after retries,
crash, timeout with nothing produced) is never counted as a failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evolve_action.model.snapshot import Snapshot


class Status(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"


class Side(StrEnum):
    BASE = "base"
    HEAD = "head"
    # Head's case and checks with the skill not installed (not listed, not loadable): the arm
    # a skill's lift is measured against. It never enters the regression verdict.
    NO_SKILL = "no-skill"


COMPARED = (Side.BASE, Side.HEAD)  # the sides the regression verdict compares


class ErrorKind(StrEnum):
    """Why a run produced nothing gradable; shown to users, never graded as a failure."""

    AUTH = "auth"  # the key is missing, wrong or not allowed this model
    QUOTA = "quota"  # rate limit or quota still exhausted after retries
    BAD_REQUEST = "bad_request"  # the provider rejected the request itself
    TIMEOUT = "timeout"  # no answer within the deadline
    SERVER = "server"  # 5xx / overload after retries, or a malformed answer
    REPLAY_MISS = "replay_miss"  # replay mode, and the cassette has no such exchange
    WORKSPACE = "workspace"  # the workspace could not be prepared (fixtures, skill)
    BUDGET = "budget"  # not run: the cost budget was spent
    HARNESS = "harness"  # the agent CLI (`harness: cli`) is missing, crashed or printed nothing
    INTERNAL = "internal"  # a bug of ours; reported, never hidden


@dataclass(slots=True)
class Usage:
    """Tokens and money of one or more provider calls."""

    input_tokens: int = 0  # fresh (uncached) input
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None  # None when the model is unpriced
    calls: int = 0

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens
        self.calls += other.calls
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd

    @property
    def total_tokens(self) -> int:
        fresh = self.input_tokens + self.output_tokens
        return fresh + self.cache_read_tokens + self.cache_write_tokens


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call of the agent, with its raw JSON arguments exactly as the model sent them."""

    name: str
    arguments: str  # raw JSON text; `tool_call` assertions match regexes against it
    result: str = ""
    is_error: bool = False
    call_id: str = ""
    duration_s: float = 0.0
    # The MCP server of the tool, when the harness reports it apart from the name (Codex);
    # else "" (a built-in tool, or a server named in `name`: `model.trajectory` splits it).
    server: str = ""


@dataclass(slots=True)
class Transcript:
    """Everything the agent did in one run."""

    final_text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    duration_s: float = 0.0
    stop_reason: str = ""  # end_turn | max_turns | timeout | error
    changed_files: list[str] = field(default_factory=list)  # `git status` after the run
    notes: list[str] = field(default_factory=list)  # e.g. "output capped", "sandbox off"
    # A conversation of several user turns (`Case.follow_ups`): the agent's last text and the
    # seconds taken for each user turn it answered, in order. Empty for a single turn.
    answers: list[str] = field(default_factory=list)
    answer_durations_s: list[float] = field(default_factory=list)
    # The model the provider said served the run's last answer (a dated snapshot behind the
    # alias asked for); "" when no answer said (every call failed, an old cassette).
    served_by: str = ""


@dataclass(frozen=True, slots=True)
class ItemResult:
    """The verdict on one check or judge item. `passed is None` means skipped."""

    item_id: str
    text: str
    passed: bool | None
    evidence: str = ""
    score: float | None = None  # in [0, 1]; None when the item is binary only
    kind: str = ""  # the check kind, or "judge"
    source: str = "assertion"
    raw_score: float | None = None  # the judge's score on the item's own scale (1-5, 0-10)


@dataclass(slots=True)
class Feedback:
    """The judge's critique of the eval itself (skill-creator's `eval_feedback`)."""

    suggestions: list[dict[str, str]] = field(default_factory=list)  # {assertion?, reason}
    overall: str = ""


@dataclass(slots=True)
class JudgeReport:
    """What the one judge call of a run returned, beyond the per-item verdicts."""

    model: str = ""
    called: bool = False
    error: str = ""
    # Set when the judge's provider failed (after retries): the run could not be graded.
    error_kind: ErrorKind | None = None
    claims: list[dict[str, Any]] = field(default_factory=list)
    feedback: Feedback = field(default_factory=Feedback)
    extractions: dict[str, Any] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    duration_s: float = 0.0


@dataclass(frozen=True, slots=True)
class RulerGrade:
    """A head run graded with base's checks too, when the PR changed them."""

    key: str  # the ruler's identity (`plan.ruler.ruler_key`)
    case_id: str  # the case's id on base
    status: Status  # PASS or FAIL under base's checks
    score: float = 0.0
    items: tuple[ItemResult, ...] = ()


@dataclass(slots=True)
class RunResult:
    suite: str  # Suite.rel
    case_id: str
    model: str  # provider-qualified
    side: Side
    repetition: int  # 1-based
    status: Status
    score: float = 0.0
    items: list[ItemResult] = field(default_factory=list)
    transcript: Transcript = field(default_factory=Transcript)
    judge: JudgeReport = field(default_factory=JudgeReport)
    error: str = ""
    error_kind: ErrorKind | None = None
    fingerprint: str = ""
    cached: bool = False
    ruler: RulerGrade | None = None  # the same run under base's checks, when they changed
    # What re-grading needs, from the run's end until the cache has it (never in results).
    snapshot: Snapshot | None = None
    # The agent CLI it ran on, when the job ran several (`agents`); "" otherwise.
    agent: str = ""


@dataclass(frozen=True, slots=True)
class CommandResult:
    """A finished shell command (agent `Bash`, `command` checks, judge scripts)."""

    exit_code: int  # -1 when killed at the timeout
    stdout: str
    stderr: str
    timed_out: bool = False
    truncated: bool = False  # output went past the cap and was cut (with a note in stdout)
    duration_s: float = 0.0
    error: str = ""  # the command could not start (missing cwd, sandbox helper missing)
