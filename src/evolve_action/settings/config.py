"""The optional repository config, `.evolve.{yaml,yml,json,jsonc}`, read into a `RepoConfig`.

One file serves evolve itself and this action. evolve's keys that change what we run (`layout`,
`models`, `judge_model`, `max_turns`) are read, and so are its model prices
(`providers.<name>.models[] {id, input_per_mtok, output_per_mtok}`, into `prices`), which
override the catalog's wherever a cost is counted or projected. Its pass-rate thresholds
(`report`) are checked, since a mistake there is one for evolve too, and not applied: the
action's floor is `min_pass_rate`. Its other keys
(`harnesses`, `sandbox`, `checks`, ...) are accepted quietly, since evolve needs them.
The action's own keys carry the names of its inputs in snake_case, or hyphenated as
the inputs are (`max-cost-usd`); one key set under both spellings is an error. Every field
is optional: None means "not set here", so settings can layer input over config over
default.

Nothing here raises for a bad file: problems come back at `file:line`, unknown keys as
warnings (with a suggestion when one is close), and a bad value leaves its field unset.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.documents import Document, DocumentError, read
from evolve_action.formats.placement import Declared
from evolve_action.model.evals import Origin, Problem, Severity
from evolve_action.settings.config_values import (
    At,
    Reader,
    alpha_of,
    baseline_of,
    count_of,
    flag_of,
    fraction_of,
    globs_of,
    harness_of,
    layout_of,
    number_of,
    positive_of,
    runs_of,
    strings_of,
    text_of,
)
from evolve_action.settings.format_overrides import read_formats
from evolve_action.util.text import json_kind

NAMES = (".evolve.yaml", ".evolve.yml", ".evolve.json", ".evolve.jsonc")  # evolve's probe order

# evolve keys a shared config may carry that do not change what this action does.
EVOLVE_ONLY_KEYS = frozenset(
    {
        "$schema",
        "version",
        "harnesses",
        "results_format",
        "stale_results",
        "sandbox",
        "cache_dir",
        "telemetry",
        "remote",
        "checks",
    }
)


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """USD per million tokens, from evolve's `providers.<name>.models[]`."""

    input_per_mtok: float
    output_per_mtok: float


def _no_prices() -> Mapping[str, ModelPrice]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True, kw_only=True)
class RepoConfig:
    # Shared with evolve.
    layout: str | None = None  # auto | single | multi | marketplace
    models: tuple[str, ...] | None = None
    judge_model: str | None = None
    max_turns: int | None = None
    prices: Mapping[str, ModelPrice] = field(default_factory=_no_prices)  # "provider/model"
    # The action's own keys (its input names, snake_case).
    runs: int | str | None = None  # a count, or "auto"
    max_runs: int | None = None
    max_minutes: float | None = None
    paths: tuple[str, ...] | None = None
    timeout_seconds: float | None = None
    fail_on_regression: bool | None = None
    min_pass_rate: float | None = None
    alpha: float | None = None
    max_cost_usd: float | None = None
    agent_network: bool | None = None
    harness: str | None = None  # sdk | cli
    fail_without_lift: bool | None = None
    baseline: str | None = None  # no-skill | none | auto (evolve's true / false too)
    formats: tuple[Declared, ...] = ()  # what a path's files are (`settings.format_overrides`)


@dataclass(frozen=True, slots=True)
class ConfigResult:
    config: RepoConfig
    rel: str | None  # the file read, or None when the repository has none
    problems: tuple[Problem, ...] = ()

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity is Severity.ERROR)


def find_config(root: Path) -> tuple[list[str], list[str]]:
    """(present config names, all names probed) in evolve's probe order."""
    present = [name for name in NAMES if (root / name).is_file()]
    return present, list(NAMES)


def load_config(root: Path, path: Path | None = None) -> ConfigResult:
    """Read the config at `path` (relative to `root`), else the one `.evolve.*` in `root`."""
    if path is not None:
        full = path if path.is_absolute() else root / path
        rel = path.as_posix()
        if not full.is_file():
            message = f"config file {rel} does not exist; fix the path or remove the setting"
            return ConfigResult(RepoConfig(), rel, (Problem(Origin(rel), message),))
        return _read(full, rel)
    present, _ = find_config(root)
    if len(present) > 1:
        message = f"ambiguous config: found {', '.join(present)}; keep exactly one"
        return ConfigResult(RepoConfig(), present[0], (Problem(Origin(present[0]), message),))
    if not present:
        return ConfigResult(RepoConfig(), None)
    return _read(root / present[0], present[0])


def _read(full: Path, rel: str) -> ConfigResult:
    try:
        doc = read(full, rel)
    except DocumentError as exc:
        return ConfigResult(RepoConfig(), rel, (Problem(Origin(rel, exc.line), exc.message),))
    except RecursionError:
        message = "the config is nested too deeply to read"
        return ConfigResult(RepoConfig(), rel, (Problem(Origin(rel), message),))
    return parse_config(doc)


def parse_config(doc: Document) -> ConfigResult:
    problems = Problems(doc)
    if doc.data is None:
        return ConfigResult(RepoConfig(), doc.rel)
    if not isinstance(doc.data, dict):
        problems.error((), f"the config must be a mapping of keys, not {json_kind(doc.data)}")
        return ConfigResult(RepoConfig(), doc.rel, tuple(problems.items))
    values: dict[str, Any] = {}
    seen: dict[str, str] = {}  # field → the spelling that set it
    for key, raw in doc.data.items():
        name = canonical(key)
        if name in _FIELDS:
            if name in seen:
                problems.error((key,), f"sets {name} again (as {seen[name]!r} too); keep one")
                continue
            seen[name] = key
            value = _FIELDS[name](raw, (key,), problems)
            if value is not None:
                values[name] = value
        elif key == "report":
            _report(raw, problems)
        elif key == "providers":
            values["prices"] = MappingProxyType(_providers(raw, problems))
        elif key not in EVOLVE_ONLY_KEYS:
            problems.warn((key,), _unknown(key))
    return ConfigResult(RepoConfig(**values), doc.rel, tuple(problems.items))


_FIELDS: dict[str, Reader] = {
    "layout": layout_of,
    "models": strings_of,
    "judge_model": text_of,
    "max_turns": count_of,
    "runs": runs_of,
    "max_runs": count_of,
    "max_minutes": positive_of,
    "paths": globs_of,
    "timeout_seconds": positive_of,
    "fail_on_regression": flag_of,
    "min_pass_rate": fraction_of,
    "alpha": alpha_of,
    "max_cost_usd": positive_of,
    "agent_network": flag_of,
    "harness": harness_of,
    "fail_without_lift": flag_of,
    "baseline": baseline_of,
    "formats": read_formats,
}

# The action's keys spelt as its inputs are (`max-cost-usd`); `layout` is evolve's, no input.
SPELT_AS_INPUTS = frozenset(k.replace("_", "-") for k in _FIELDS if "_" in k)
KNOWN_KEYS = frozenset({*_FIELDS, *SPELT_AS_INPUTS, "report", "providers", *EVOLVE_ONLY_KEYS})


def canonical(key: Any) -> Any:
    """The action's key for `key`: its input's hyphenated spelling (`max-cost-usd`, as in a
    workflow's `with:`) is the same key as the snake_case one (`max_cost_usd`)."""
    if isinstance(key, str) and key in SPELT_AS_INPUTS:
        return key.replace("-", "_")
    return key


def _unknown(key: str) -> str:
    normal = key.replace("-", "_").lower()
    close = difflib.get_close_matches(normal, sorted(KNOWN_KEYS), n=1, cutoff=0.8)
    hint = f"; did you mean {close[0]}?" if close else ""
    return f"unknown config key {key!r} is ignored{hint}"


def _report(raw: Any, problems: Problems) -> None:
    """Checks evolve's `report.thresholds.{evals,triggers}_min_pass_rate`; the other report
    keys are evolve's own (junit, cobertura, strict, maturity)."""
    if not isinstance(raw, dict):
        problems.error(("report",), f"must be a mapping, not {json_kind(raw)}")
        return
    thresholds = raw.get("thresholds")
    if thresholds is None:
        return
    if not isinstance(thresholds, dict):
        problems.error(("report", "thresholds"), f"must be a mapping, not {json_kind(thresholds)}")
        return
    for key in ("evals_min_pass_rate", "triggers_min_pass_rate"):
        if key in thresholds:
            fraction_of(thresholds[key], ("report", "thresholds", key), problems)


def _providers(raw: Any, problems: Problems) -> dict[str, ModelPrice]:
    """Prices from `providers.<name>.models[] {id, input_per_mtok, output_per_mtok}`."""
    prices: dict[str, ModelPrice] = {}
    if not isinstance(raw, dict):
        problems.error(("providers",), f"must be a mapping, not {json_kind(raw)}")
        return prices
    for provider, spec in raw.items():
        at: At = ("providers", provider)
        models = spec.get("models") if isinstance(spec, dict) else None
        if not isinstance(spec, dict) or not isinstance(models, list | None):
            problems.error(at, "must be a mapping with a `models` list")
            continue
        for i, model in enumerate(models or ()):
            price = _price(model, (*at, "models", i), problems)
            if price is not None:
                model_id = model["id"].strip()
                prices[model_id if "/" in model_id else f"{provider}/{model_id}"] = price
    return prices


def _price(model: Any, at: At, problems: Problems) -> ModelPrice | None:
    if not isinstance(model, dict) or not isinstance(model.get("id"), str):
        problems.error(at, "must be a mapping with a string `id`")
        return None
    given = [k for k in ("input_per_mtok", "output_per_mtok") if k in model]
    if not given:
        return None  # a model listed without prices: nothing to override
    if len(given) == 1:
        missing = ({"input_per_mtok", "output_per_mtok"} - set(given)).pop()
        problems.error(at, f"sets {given[0]} without {missing}; a price needs both")
        return None
    cost = [
        number_of(model[k], (*at, k), problems, low=0, high=math.inf, what="0 or more")
        for k in ("input_per_mtok", "output_per_mtok")
    ]
    if cost[0] is None or cost[1] is None:
        return None
    return ModelPrice(float(cost[0]), float(cost[1]))
