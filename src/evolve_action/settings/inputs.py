"""Action inputs and `run` flags → one frozen `Settings`, parsed once at the edge (DESIGN §2).

Inside Actions every input arrives as `INPUT_<NAME>` (upper-cased, hyphens kept). Locally the
same names are flags of `evolve-action run` (`--models`, `--results-dir`, …). `INPUTS` is the
single table of names, defaults and descriptions; `action.yml`, the README's inputs table and
the CLI flags are all checked against it, so they cannot drift apart. Nothing else in the
program reads `os.environ`: it is handed to `from_environ` once, in `cli.py`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

AUTO: Literal["auto"] = "auto"


class SettingsError(ValueError):
    """An input has a value we cannot use; the message names the input and what to write."""


class Mode(StrEnum):
    CHANGED = "changed"  # only the evals a PR touches
    ALL = "all"


class CommentMode(StrEnum):
    STICKY = "sticky"
    NEW = "new"
    OFF = "off"


class Harness(StrEnum):
    """What runs the agent: our loop over the SDKs, or the real Claude Code / Codex CLIs."""

    SDK = "sdk"
    CLI = "cli"


@dataclass(frozen=True, slots=True)
class Shard:
    index: int  # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass(frozen=True, slots=True)
class InputSpec:
    name: str  # kebab-case, as in action.yml
    default: str  # as action.yml writes it ("" when unset)
    description: str
    secret: bool = False


INPUTS: tuple[InputSpec, ...] = (
    InputSpec(
        "github-token", "${{ github.token }}", "Token for comments, check runs and statuses.", True
    ),
    InputSpec("anthropic-api-key", "", "Anthropic API key (else ANTHROPIC_API_KEY).", True),
    InputSpec("openai-api-key", "", "OpenAI API key (else OPENAI_API_KEY).", True),
    InputSpec(
        "models",
        "",
        "Comma-separated models (`anthropic/claude-sonnet-4-6`, or a provider id for its default"
        " model). Empty: the default model of every provider with a key.",
    ),
    InputSpec(
        "judge-model",
        "",
        "The one judge model for base and head. Empty: Anthropic's default model when an"
        " Anthropic key is set, else OpenAI's.",
    ),
    InputSpec(
        "runs",
        "",
        "Runs per case and side, or `auto`: a few runs, then more only where a verdict is still"
        " open (docs/adaptive.md). Empty: the eval file's own setting, else auto.",
    ),
    InputSpec("max-runs", "20", "With `runs: auto`, the most runs per case and side."),
    InputSpec("mode", "changed", "`changed`: the evals a PR touches; `all`: every eval."),
    InputSpec("paths", "", "Comma-separated globs that narrow which eval files are considered."),
    InputSpec("max-concurrency", "8", "Runs in flight at once (also bounded per provider)."),
    InputSpec("max-turns", "", "Agent turns per run unless the case sets `max_turns`. Empty: 20."),
    InputSpec("timeout-seconds", "", "Seconds per run unless the case sets its own. Empty: 600."),
    InputSpec(
        "fail-on-regression", "true", "Fail the check when any eval significantly regressed."
    ),
    InputSpec(
        "min-pass-rate", "", "Also fail the check when head's pass rate is below this (0–1)."
    ),
    InputSpec(
        "alpha",
        "0.05",
        "Chance of a false regressed verdict per pull request, over all its evals, skills and"
        " models.",
    ),
    InputSpec(
        "comment", "sticky", "`sticky` (edit one comment), `new` (a comment per run) or `off`."
    ),
    InputSpec(
        "comment-key", "default", "Key of the sticky comment, for several evolve jobs on a PR."
    ),
    InputSpec("check-name", "evolve", "Name of the check run."),
    InputSpec("review-comments", "false", "Also comment on the changed lines of regressed cases."),
    InputSpec("max-cost-usd", "", "Stop scheduling new runs once this much was spent."),
    InputSpec(
        "max-minutes",
        "30",
        "With `runs: auto`, start no new wave of extra runs after this many minutes.",
    ),
    InputSpec("cache-dir", "", "Directory of cached run results (persist it with actions/cache)."),
    InputSpec(
        "results-dir", "evolve-results", "Where results.json and the other files are written."
    ),
    InputSpec("shard", "1/1", "`i/n`: run the i-th of n stable parts of the plan."),
    InputSpec(
        "config", "", "Path of the repository config (default: .evolve.{yaml,yml,json,jsonc})."
    ),
    InputSpec("agent-network", "false", "Let the agent's commands reach the network."),
    InputSpec(
        "harness",
        "sdk",
        "`sdk`: our agent loop over the official SDKs; `cli`: the real `claude` (Anthropic) and"
        " `codex` (OpenAI) CLIs, behind a loopback key proxy (docs/harness.md).",
    ),
    InputSpec(
        "allow-untrusted-code",
        "false",
        "Under pull_request_target, run PR code with secrets. Only for trusted contributors.",
    ),
    InputSpec(
        "pending-check",
        "false",
        "Under pull_request_target: post the check on a fork PR's head as pending, waiting for"
        " a maintainer's `/evolve run`; nothing of the PR is checked out or run.",
    ),
    InputSpec(
        "allow-unconfined",
        "false",
        "Where commands cannot be confined (not root, no working bubblewrap), run the agent's"
        " commands and `command` checks unconfined anyway. Only for trusted code.",
    ),
    InputSpec("template", "", "Path of a Jinja2 template that replaces the comment template."),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    github_token: str = field(default="", repr=False)
    anthropic_api_key: str = field(default="", repr=False)
    openai_api_key: str = field(default="", repr=False)
    models: tuple[str, ...] = ()
    judge_model: str = ""
    runs: int | Literal["auto"] | None = None  # None: the eval file's own, else auto
    max_runs: int = 20
    mode: Mode = Mode.CHANGED
    paths: tuple[str, ...] = ()
    max_concurrency: int = 8
    max_turns: int | None = None
    timeout_seconds: float | None = None
    fail_on_regression: bool = True
    min_pass_rate: float | None = None
    alpha: float = 0.05
    comment: CommentMode = CommentMode.STICKY
    comment_key: str = "default"
    check_name: str = "evolve"
    review_comments: bool = False
    max_cost_usd: float | None = None
    max_minutes: float = 30.0
    cache_dir: Path | None = None
    results_dir: Path = Path("evolve-results")
    shard: Shard = Shard(1, 1)
    config: Path | None = None
    agent_network: bool = False
    harness: Harness = Harness.SDK
    allow_untrusted_code: bool = False
    pending_check: bool = False
    allow_unconfined: bool = False
    template: Path | None = None


# --- one small cleaner per kind of value ---------------------------------------------------


def _bool(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off"):
        return False
    raise SettingsError(f"input {name}: {raw!r} is not a boolean; write true or false")


def _positive_int(name: str, raw: str) -> int:
    try:
        value = int(raw.strip())
    except ValueError:
        raise SettingsError(f"input {name}: {raw!r} is not a whole number") from None
    if value < 1:
        raise SettingsError(f"input {name}: must be at least 1, got {value}")
    return value


def _runs(name: str, raw: str) -> int | Literal["auto"]:
    if raw.strip().lower() == AUTO:
        return AUTO
    if not raw.strip().lstrip("+-").isdigit():
        raise SettingsError(f"input {name}: {raw!r} is not a whole number of runs, nor `auto`")
    return _positive_int(name, raw)


def _positive_float(name: str, raw: str) -> float:
    try:
        value = float(raw.strip())
    except ValueError:
        raise SettingsError(f"input {name}: {raw!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise SettingsError(f"input {name}: must be a positive number, got {raw!r}")
    return value


def _fraction(name: str, raw: str) -> float:
    value = _positive_float(name, raw) if raw.strip() not in ("0", "0.0") else 0.0
    if value > 1:
        raise SettingsError(f"input {name}: must be between 0 and 1, got {raw!r}")
    return value


def _alpha(name: str, raw: str) -> float:
    value = _fraction(name, raw)
    if not 0 < value < 0.5:
        raise SettingsError(f"input {name}: must be above 0 and below 0.5, got {raw!r}")
    return value


def _csv(_name: str, raw: str) -> tuple[str, ...]:
    parts = raw.replace("\n", ",").split(",")
    return tuple(p.strip() for p in parts if p.strip())


def _shard(name: str, raw: str) -> Shard:
    index, sep, count = raw.strip().partition("/")
    try:
        shard = Shard(int(index), int(count)) if sep else None
    except ValueError:
        shard = None
    if shard is None or not 1 <= shard.index <= shard.count:
        raise SettingsError(f"input {name}: {raw!r} is not `i/n` with 1 ≤ i ≤ n, e.g. 2/4")
    return shard


def _enum(kind: type[StrEnum]) -> Callable[[str, str], Any]:
    def parse(name: str, raw: str) -> Any:
        try:
            return kind(raw.strip().lower())
        except ValueError:
            allowed = ", ".join(m.value for m in kind)
            raise SettingsError(f"input {name}: {raw!r} is not one of {allowed}") from None

    return parse


def _path(_name: str, raw: str) -> Path:
    return Path(raw.strip())


def _text(_name: str, raw: str) -> str:
    return raw.strip()


_PARSERS: dict[str, Callable[[str, str], Any]] = {
    "github-token": _text,
    "anthropic-api-key": _text,
    "openai-api-key": _text,
    "models": _csv,
    "judge-model": _text,
    "runs": _runs,
    "max-runs": _positive_int,
    "mode": _enum(Mode),
    "paths": _csv,
    "max-concurrency": _positive_int,
    "max-turns": _positive_int,
    "timeout-seconds": _positive_float,
    "fail-on-regression": _bool,
    "min-pass-rate": _fraction,
    "alpha": _alpha,
    "comment": _enum(CommentMode),
    "comment-key": _text,
    "check-name": _text,
    "review-comments": _bool,
    "max-cost-usd": _positive_float,
    "max-minutes": _positive_float,
    "cache-dir": _path,
    "results-dir": _path,
    "shard": _shard,
    "config": _path,
    "agent-network": _bool,
    "harness": _enum(Harness),
    "allow-untrusted-code": _bool,
    "pending-check": _bool,
    "allow-unconfined": _bool,
    "template": _path,
}


def field_name(input_name: str) -> str:
    return input_name.replace("-", "_")


def from_values(values: Mapping[str, str]) -> Settings:
    """Build settings from raw input strings keyed by input name; blanks mean "unset".

    `${{ github.token }}`-style defaults only exist in action.yml; a literal one reaching us
    (a local run copying the table) counts as unset.
    """
    unknown = sorted(set(values) - set(_PARSERS))
    if unknown:
        raise SettingsError(f"unknown input(s): {', '.join(unknown)}")
    kwargs: dict[str, Any] = {}
    for spec in INPUTS:
        raw = values.get(spec.name, "")
        if not raw.strip() or raw.strip().startswith("${{"):
            continue
        kwargs[field_name(spec.name)] = _PARSERS[spec.name](spec.name, raw)
    if kwargs.get("check_name") == "":
        raise SettingsError("input check-name: must not be empty")
    if kwargs.get("max_runs", 2) < 2:
        raise SettingsError("input max-runs: must be at least 2, the runs `auto` starts with")
    return Settings(**kwargs)


def raw_inputs(environ: Mapping[str, str]) -> dict[str, str]:
    """The `INPUT_<NAME>` variables as the Actions runner sets them (hyphens kept; the
    underscore spelling is accepted too), keyed by input name, unparsed."""
    values = {}
    for spec in INPUTS:
        for key in (f"INPUT_{spec.name.upper()}", f"INPUT_{field_name(spec.name).upper()}"):
            if key in environ:
                values[spec.name] = environ[key]
                break
    return values


def from_environ(environ: Mapping[str, str]) -> Settings:
    return from_values(raw_inputs(environ))
