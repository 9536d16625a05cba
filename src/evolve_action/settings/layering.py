"""Which value each setting takes: inputs, then the repository config, then what results record.

`run` and `report` both go through `layer`, so a setting made in `.evolve.yaml` applies
to an unsharded job and to a sharded one alike. The layers, strongest first:

1. an input (flag or `INPUT_*`) that differs from its action.yml default — the runner passes
   every default as if it were an input, so an input equal to its default hides nothing;
2. the repository config (`.evolve.{yaml,yml,json,jsonc}` or the `config` input) in the job's
   own checkout — for `report` under `workflow_run`, the default branch: trusted;
3. for `report` only, the verdict settings the results files record (`RECORDED`): what the
   shards or the artifact's job decided with, so a report job without a checkout reaches the
   same verdict. They are data, never stronger than the report job's own inputs or config;
4. the defaults.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evolve_action.model.evals import EMPTY, Problem
from evolve_action.settings.config import ConfigResult, RepoConfig, load_config
from evolve_action.settings.inputs import INPUTS, Settings, SettingsError, field_name, from_values

# The settings that decide the verdict from the aggregate; results.json records them.
RECORDED = ("alpha", "fail-on-regression", "min-pass-rate", "fail-without-lift")


def raw_value(value: Any) -> str | None:
    """A config or results value as the input string that means it; None: not set."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return ",".join(str(v) for v in value)
    return str(value)


def read_config(values: Mapping[str, str], root: Path) -> ConfigResult:
    """The repository config that `values` name (the `config` input), else the one in `root`."""
    given = values.get("config", "").strip()
    return load_config(root, Path(given) if given else None)


def layer(
    values: Mapping[str, str],
    config: RepoConfig,
    *,
    recorded: Mapping[str, str | None] = EMPTY,
) -> Settings:
    """Settings from raw input `values` over `config` over `recorded` values (input name →
    raw string; None: recorded as unset). Raises `SettingsError` for an input we cannot use."""
    raw = dict(values)
    for spec in INPUTS:
        given = raw.get(spec.name, "").strip()
        if given and given != spec.default:
            continue
        value = raw_value(getattr(config, field_name(spec.name), None))
        if value is None:
            value = recorded.get(spec.name)
        if value is not None:
            raw[spec.name] = value
    return from_values(raw)


def settings_for(
    values: Mapping[str, str], root: Path
) -> tuple[Settings, RepoConfig, tuple[Problem, ...]]:
    """`read_config` then `layer`: what `run` applies."""
    loaded = read_config(values, root)
    return layer(values, loaded.config), loaded.config, loaded.problems


def recorded_settings(
    documents: Sequence[tuple[str, Mapping[str, Any]]],
) -> tuple[dict[str, str | None], list[str]]:
    """The verdict settings recorded in `(where, results.json settings)` pairs, as raw input
    strings (None: recorded as unset), and a warning for each one they disagree on or that
    is unusable. A setting no file records is left out."""
    found: dict[str, dict[str | None, list[str]]] = {}  # name → raw value → where
    for where, settings in documents:
        for name in RECORDED:
            if field_name(name) in settings:
                given = settings[field_name(name)]
                # A list or object is never a verdict setting: shown as JSON, it fails to parse.
                value = json.dumps(given) if isinstance(given, list | dict) else raw_value(given)
                found.setdefault(name, {}).setdefault(value, []).append(where)
    out: dict[str, str | None] = {}
    warnings: list[str] = []
    for name, by_value in found.items():
        if len(by_value) > 1:
            seen = "; ".join(f"{v or 'unset'} in {', '.join(w)}" for v, w in by_value.items())
            warnings.append(
                f"the results disagree on {name} ({seen}); none of them applies. Run every"
                f" shard with the same settings, or set the {name} input on the report job"
            )
            continue
        ((value, places),) = by_value.items()
        try:
            if value is not None:
                from_values({name: value})
        except SettingsError as exc:
            warnings.append(f"{exc} (recorded in {', '.join(places)}); ignored")
            continue
        out[name] = value
    return out, warnings


def overridden(settings: Settings, recorded: Mapping[str, str | None]) -> list[str]:
    """Recorded verdict settings that the report job's own inputs or config replaced."""
    out = []
    for name, value in recorded.items():
        mine = getattr(settings, field_name(name))
        theirs = getattr(from_values({name: value or ""}), field_name(name))
        if mine != theirs:
            out.append(
                f"the results were decided with {name} {value or 'unset'}; this report"
                f" applies {raw_value(mine) or 'unset'}: its own inputs and repository config"
                " win over what results record"
            )
    return out
