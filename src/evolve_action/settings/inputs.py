"""Action inputs and `run` flags → one frozen `Settings`, parsed once at the edge.

Inside Actions every input arrives as `INPUT_<NAME>` (upper-cased, hyphens kept). Locally the
same names are flags of `evolve-action run` (`--models`, `--results-dir`, …). `INPUTS` is the
single table of names, defaults, descriptions and parsers (with their messages); `Settings`'
defaults are its defaults parsed (`DEFAULTS`), and `action.yml`, docs/inputs.md's table,
the CLI flags and the config file's keys are all checked against it, so they cannot drift.
The inputs are read here only (`raw_inputs`), from the environment each command copies
once and hands down. The few modules that read `os.environ` themselves (child processes'
environments, the sandbox's masks, the stop timings) are named with their reasons in
docs/environment.md, and a test keeps that list whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from evolve_action.model import provider_table
from evolve_action.settings import agent_names
from evolve_action.settings.parsers import (
    AUTO as AUTO,
)
from evolve_action.settings.parsers import (
    MAX_CONCURRENCY,
    MAX_MINUTES,
    MAX_RUNS,
    MAX_SECONDS,
    MAX_TURNS,
    Parser,
    _alpha,
    _bool,
    _csv,
    _enum,
    _fraction,
    _path,
    _positive_float,
    _runs,
    _shard,
    _text,
    at_most,
    float_at_most,
)
from evolve_action.settings.parsers import (
    Baseline as Baseline,
)
from evolve_action.settings.parsers import (
    CommentMode as CommentMode,
)
from evolve_action.settings.parsers import (
    Harness as Harness,
)
from evolve_action.settings.parsers import (
    Mode as Mode,
)
from evolve_action.settings.parsers import (
    SettingsError as SettingsError,
)
from evolve_action.settings.parsers import (
    Shard as Shard,
)

# The agent CLIs `agent` may name: `execute.harness.registry.HARNESSES`' names, which a
# test keeps equal to this (settings are parsed before any stage is imported).
AGENTS = ("claude", "codex", "copilot", "opencode", "gemini")


def _agent(name: str, raw: str) -> str:
    return agent_names.canonical(name, raw, AGENTS)


def _agents(name: str, raw: str) -> tuple[str, ...]:
    return agent_names.parse_list(name, raw, AGENTS)


def _judge_family(name: str, raw: str) -> str:
    value = raw.strip().lower()
    if value not in (OTHER_FAMILY, *provider_table.PROVIDERS):
        known = ", ".join(sorted(provider_table.PROVIDERS))
        raise SettingsError(
            f"input {name}: {raw.strip()!r} is neither `{OTHER_FAMILY}` (a judge from a family"
            f" none of the agent's models comes from) nor a provider ({known})"
        )
    return value


OTHER_FAMILY = "other"


class OnIncomplete(StrEnum):
    """The conclusion of a job that could not judge (no key, every run cut or errored)."""

    NEUTRAL = "neutral"  # GitHub counts it as passing a required check
    FAILURE = "failure"  # fail closed: a required check blocks the merge until evals run


@dataclass(frozen=True, slots=True)
class InputSpec:
    name: str  # kebab-case, as in action.yml
    default: str  # as action.yml writes it ("" when unset)
    description: str
    secret: bool = False
    parse: Parser = _text  # raw string → value (`from_values`), with the message of a bad one


INPUTS: tuple[InputSpec, ...] = (
    InputSpec(
        "github-token", "${{ github.token }}", "Token for comments, check runs and statuses.", True
    ),
    # One key input per provider row (`model/provider_table.py`), in the table's order.
    *(
        InputSpec(row.key_input, "", row.key_description, True)
        for row in provider_table.by_key_input().values()
    ),
    InputSpec(
        "models",
        "",
        "Comma-separated models (`anthropic/claude-sonnet-4-6`, or a provider id for its default"
        " model). Empty: the default model of every provider with a key.",
        parse=_csv,
    ),
    InputSpec(
        "judge-model",
        "",
        "The one judge model for base and head. Empty: the default model of the first provider"
        f" with a key, in the order {', '.join(provider_table.judge_order())}.",
    ),
    InputSpec(
        "runs",
        "",
        "Runs per case and side, or `auto`: a few runs, then more only where a verdict is still"
        " open (docs/adaptive.md). Empty: the eval file's own setting, else auto.",
        parse=_runs,
    ),
    InputSpec(
        "max-runs",
        "20",
        "With `runs: auto`, the most runs per case and side.",
        parse=at_most(MAX_RUNS, "runs per case and side"),
    ),
    InputSpec(
        "mode",
        "changed",
        "`changed`: the evals a PR touches; `all`: every eval; `calibrate`: every eval run as two"
        " identical sides, to measure false alarms and noise (an A/A); `watch`: the default"
        " branch against its last recorded run, a drop opens an issue (docs/watch.md).",
        parse=_enum(Mode),
    ),
    InputSpec(
        "paths",
        "",
        "Comma-separated globs that narrow which eval files are considered.",
        parse=_csv,
    ),
    InputSpec(
        "max-concurrency",
        "8",
        "Runs in flight at once (also bounded per provider).",
        parse=at_most(MAX_CONCURRENCY, "runs in flight"),
    ),
    InputSpec(
        "max-turns",
        "",
        "Agent turns per run unless the case sets `max_turns`. Empty: 20.",
        parse=at_most(MAX_TURNS, "turns"),
    ),
    InputSpec(
        "timeout-seconds",
        "",
        "Seconds per run unless the case sets its own. Empty: 600.",
        parse=float_at_most(MAX_SECONDS, "seconds"),
    ),
    InputSpec(
        "fail-on-regression",
        "true",
        "Fail the check when any eval significantly regressed.",
        parse=_bool,
    ),
    InputSpec(
        "fail-without-lift",
        "false",
        "Fail the check when a skill run without itself (`baseline`) is not significantly"
        " worse: the skill shows no lift on its own evals.",
        parse=_bool,
    ),
    InputSpec(
        "on-incomplete",
        "neutral",
        "Conclusion of a job that could not judge (no API key, the budget cut every run, every"
        " run errored, runs missing): `neutral`, which GitHub counts as passing a required"
        " check, or `failure` to fail closed (docs/branch-protection.md).",
        parse=_enum(OnIncomplete),
    ),
    InputSpec(
        "baseline",
        "auto",
        "Also run each case without the skill: `no-skill`, `none`, or `auto` (a skill new in"
        " the PR, and eval files that ask for a without-skill run).",
        parse=_enum(Baseline),
    ),
    InputSpec(
        "min-pass-rate",
        "",
        "Also fail the check when head's pass rate (the headline's) is below this (0–1).",
        parse=_fraction,
    ),
    InputSpec(
        "alpha",
        "0.05",
        "Chance of a false regressed verdict per pull request, over all its evals, skills and"
        " models.",
        parse=_alpha,
    ),
    InputSpec(
        "comment",
        "sticky",
        "`sticky` (edit one comment), `new` (a comment per run) or `off`.",
        parse=_enum(CommentMode),
    ),
    InputSpec(
        "comment-key", "default", "Key of the sticky comment, for several evolve jobs on a PR."
    ),
    InputSpec("check-name", "evolve", "Name of the check run."),
    InputSpec(
        "review-comments",
        "false",
        "Also comment on the changed lines of regressed cases.",
        parse=_bool,
    ),
    InputSpec(
        "max-cost-usd",
        "",
        "A ceiling: cut the plan before the first call when its projected cost is above this"
        " (fewer runs per case, then cases), cut the rest the same way after the first wave,"
        " and start no base/head pair whose pessimistic cost does not fit in what is left.",
        parse=_positive_float,
    ),
    InputSpec(
        "max-cost-increase",
        "",
        "Fail the check when head's cost per passing run exceeds base's by more than this"
        " ratio (e.g. 1.5), on an eval with at least 2 passing runs on each side.",
        parse=_positive_float,
    ),
    InputSpec(
        "dry-run",
        "false",
        "Print the plan and its projected cost, and call no model.",
        parse=_bool,
    ),
    InputSpec(
        "max-minutes",
        "30",
        "With `runs: auto`, start no new wave of extra runs after this many minutes.",
        parse=float_at_most(MAX_MINUTES, "minutes"),
    ),
    InputSpec(
        "cache-dir",
        "",
        "Directory of cached run results (persist it with actions/cache).",
        parse=_path,
    ),
    InputSpec(
        "results-dir",
        "evolve-results",
        "Where results.json and the other files are written.",
        parse=_path,
    ),
    InputSpec(
        "history-dir",
        "",
        "A checkout of the results branch: watch runs and pushes to the default branch add"
        " their line to its history.jsonl (docs/watch.md). Empty: no history.",
        parse=_path,
    ),
    InputSpec("shard", "1/1", "`i/n`: run the i-th of n stable parts of the plan.", parse=_shard),
    InputSpec(
        "config",
        "",
        "Path of the repository config (default: .evolve.{yaml,yml,json,jsonc}).",
        parse=_path,
    ),
    InputSpec("agent-network", "false", "Let the agent's commands reach the network.", parse=_bool),
    InputSpec(
        "harness",
        "sdk",
        "`sdk`: our agent loop over the official SDKs; `cli`: the real `claude` (Anthropic) and"
        " `codex` (OpenAI) CLIs, behind a loopback key proxy (docs/harness.md); a `cli` run"
        " sends about 17× the tokens of an `sdk` run (bench/README.md).",
        parse=_enum(Harness),
    ),
    InputSpec(
        "agent",
        "",
        "With `harness: cli`, the agent CLI every model runs on: `claude`, `codex`, `copilot`"
        " (GitHub Copilot CLI), `opencode` (Anthropic and OpenAI models on these two) or"
        " `gemini` (Gemini CLI); empty: each model's vendor's own CLI (docs/harness.md).",
        parse=_agent,
    ),
    InputSpec(
        "agents",
        "",
        "With `harness: cli`, several agent CLIs, comma-separated (`claude-code,codex,copilot`):"
        " every case runs on each, and the comment shows one column group per agent. Each"
        " (model, agent) counts in `alpha`'s family. Empty: the one `agent`.",
        parse=_agents,
    ),
    InputSpec(
        "judge-family",
        "",
        "`other`: a judge from a provider none of the agent's models comes from (a judge of"
        " the executor's own family can favour it); or a provider id (`openai`). Empty: the"
        " `judge-model`, else the default judge.",
        parse=_judge_family,
    ),
    InputSpec(
        "allow-untrusted-code",
        "false",
        "Under pull_request_target, run PR code with secrets. Only for trusted contributors.",
        parse=_bool,
    ),
    InputSpec(
        "pending-check",
        "false",
        "Under pull_request_target: post the check on a fork PR's head as pending, waiting for"
        " a maintainer's `/evolve run`; nothing of the PR is checked out or run.",
        parse=_bool,
    ),
    InputSpec(
        "allow-unconfined",
        "false",
        "Where commands cannot be confined (not root, no working bubblewrap), run the agent's"
        " commands and `command` checks unconfined anyway. Only for trusted code.",
        parse=_bool,
    ),
    InputSpec(
        "template", "", "Path of a Jinja2 template that replaces the comment template.", parse=_path
    ),
)


BY_NAME = {spec.name: spec for spec in INPUTS}
# The key inputs, by name → the provider whose key each carries: their values go into
# `Settings.api_keys`, so a provider row needs no field of its own here.
KEY_INPUTS: dict[str, str] = {name: row.id for name, row in provider_table.by_key_input().items()}
# A blank of these kinds; else None.
_UNSET: dict[Parser, Any] = {_csv: (), _text: "", _agent: "", _agents: (), _judge_family: ""}


def _parsed_default(spec: InputSpec) -> Any:
    raw = spec.default.strip()
    if not raw or raw.startswith("${{"):
        return _UNSET.get(spec.parse)
    return spec.parse(spec.name, raw)


# What each input is when nobody sets it: its action.yml default, parsed. `Settings`' defaults
# are these, so each default is written once, in the table.
DEFAULTS: dict[str, Any] = {spec.name: _parsed_default(spec) for spec in INPUTS}


def default_of(name: str) -> Any:
    return DEFAULTS[name]


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    github_token: str = field(default=DEFAULTS["github-token"], repr=False)
    # Each provider's key input, by provider id (`KEY_INPUTS`; unset ones absent).
    api_keys: Mapping[str, str] = field(default_factory=dict, repr=False, hash=False)
    models: tuple[str, ...] = DEFAULTS["models"]
    judge_model: str = DEFAULTS["judge-model"]
    runs: int | Literal["auto"] | None = DEFAULTS["runs"]  # None: the eval file's own, else auto
    max_runs: int = DEFAULTS["max-runs"]
    mode: Mode = DEFAULTS["mode"]
    paths: tuple[str, ...] = DEFAULTS["paths"]
    max_concurrency: int = DEFAULTS["max-concurrency"]
    max_turns: int | None = DEFAULTS["max-turns"]
    timeout_seconds: float | None = DEFAULTS["timeout-seconds"]
    fail_on_regression: bool = DEFAULTS["fail-on-regression"]
    fail_without_lift: bool = DEFAULTS["fail-without-lift"]
    on_incomplete: OnIncomplete = DEFAULTS["on-incomplete"]
    baseline: Baseline = DEFAULTS["baseline"]
    min_pass_rate: float | None = DEFAULTS["min-pass-rate"]
    alpha: float = DEFAULTS["alpha"]
    comment: CommentMode = DEFAULTS["comment"]
    comment_key: str = DEFAULTS["comment-key"]
    check_name: str = DEFAULTS["check-name"]
    review_comments: bool = DEFAULTS["review-comments"]
    max_cost_usd: float | None = DEFAULTS["max-cost-usd"]
    max_cost_increase: float | None = DEFAULTS["max-cost-increase"]
    dry_run: bool = DEFAULTS["dry-run"]
    max_minutes: float = DEFAULTS["max-minutes"]
    cache_dir: Path | None = DEFAULTS["cache-dir"]
    results_dir: Path = DEFAULTS["results-dir"]
    history_dir: Path | None = DEFAULTS["history-dir"]
    shard: Shard = DEFAULTS["shard"]
    config: Path | None = DEFAULTS["config"]
    agent_network: bool = DEFAULTS["agent-network"]
    harness: Harness = DEFAULTS["harness"]
    agent: str = DEFAULTS["agent"]
    agents: tuple[str, ...] = DEFAULTS["agents"]
    judge_family: str = DEFAULTS["judge-family"]
    allow_untrusted_code: bool = DEFAULTS["allow-untrusted-code"]
    pending_check: bool = DEFAULTS["pending-check"]
    allow_unconfined: bool = DEFAULTS["allow-unconfined"]
    template: Path | None = DEFAULTS["template"]


def field_name(input_name: str) -> str:
    return input_name.replace("-", "_")


def value_of(settings: Settings, input_name: str) -> Any:
    """The parsed value of one input (a key input's from `api_keys`)."""
    if input_name in KEY_INPUTS:
        return settings.api_keys.get(KEY_INPUTS[input_name], DEFAULTS[input_name])
    return getattr(settings, field_name(input_name))


def from_values(values: Mapping[str, str]) -> Settings:
    """Build settings from raw input strings keyed by input name; blanks mean "unset".

    `${{ github.token }}`-style defaults only exist in action.yml; a literal one reaching us
    (a local run copying the table) counts as unset.
    """
    unknown = sorted(set(values) - set(BY_NAME))
    if unknown:
        raise SettingsError(f"unknown input(s): {', '.join(unknown)}")
    kwargs: dict[str, Any] = {}
    keys: dict[str, str] = {}
    for spec in INPUTS:
        raw = values.get(spec.name, "")
        if not raw.strip() or raw.strip().startswith("${{"):
            continue
        if spec.name in KEY_INPUTS:
            keys[KEY_INPUTS[spec.name]] = spec.parse(spec.name, raw)
        else:
            kwargs[field_name(spec.name)] = spec.parse(spec.name, raw)
    if keys:
        kwargs["api_keys"] = keys
    if kwargs.get("check_name") == "":
        raise SettingsError("input check-name: must not be empty")
    if kwargs.get("max_runs", 2) < 2:
        raise SettingsError("input max-runs: must be at least 2, the runs `auto` starts with")
    _check_agents(kwargs)
    return Settings(**kwargs)


def _check_agents(kwargs: dict[str, Any]) -> None:
    """`agents` needs the CLIs, and says the same thing as `agent` only once; one agent
    named there is the `agent`."""
    if not kwargs.get("agents"):
        return
    if kwargs.get("harness", DEFAULTS["harness"]) is not Harness.CLI:
        raise SettingsError(
            "input agents: the agents are CLIs, which run with `harness: cli`; set `harness: cli`"
            " too, or remove `agents` to run our own agent loop (`harness: sdk`)"
        )
    agent = kwargs.get("agent")
    if agent and kwargs["agents"] != (agent,):
        raise SettingsError(
            f"inputs agent ({agent}) and agents ({','.join(kwargs['agents'])}) disagree: set"
            " one of them (`agents` for several)"
        )
    if len(kwargs["agents"]) == 1:
        kwargs["agent"] = kwargs["agents"][0]
    elif kwargs.get("mode") is Mode.WATCH:
        # A watch's history keys each cell by model alone: two agents' runs would be compared
        # with each other's past as if they were one.
        raise SettingsError(
            f"inputs mode (watch) and agents ({','.join(kwargs['agents'])}): a watch compares"
            " each model with its own history, which keeps no agents apart; watch one agent per"
            " job (`agent: <name>`, a matrix over the agents for several), each with its own"
            " `history-dir`, or use `agents` on pull requests only"
        )


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
