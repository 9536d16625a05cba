"""What a job starts from: the raw request, and the eval files of one tree loaded into suites."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from evolve_action.formats import load_all
from evolve_action.model.evals import LoadResult, Problem, Suite
from evolve_action.settings.config import RepoConfig
from evolve_action.settings.inputs import Settings
from evolve_action.settings.layering import settings_for


@dataclass(frozen=True)
class Request:
    """One invocation: raw input values plus the local-only options."""

    values: Mapping[str, str]  # input name → raw string, as given (flags or INPUT_*)
    environ: Mapping[str, str]  # for the SDKs' own variables (keys, base URLs)
    root: Path
    record_dir: Path | None = None
    replay_dir: Path | None = None
    keep_workspaces: bool = False


@dataclass
class Loaded:
    suites: list[Suite] = field(default_factory=list)
    invalid: list[LoadResult] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def effective_settings(request: Request) -> tuple[Settings, RepoConfig, tuple[Problem, ...]]:
    """Inputs win over the repository config file, which wins over the defaults
    (`layering.settings_for`, shared with `report`)."""
    return settings_for(request.values, request.root)


def load_suites(root: Path, settings: Settings, config: RepoConfig) -> Loaded:
    out = Loaded()
    for result in load_all(
        root, paths=settings.paths, layout=config.layout or "auto", declared=config.formats
    ):
        if result.ok and result.suite is not None:
            out.suites.append(result.suite)
            out.warnings.extend(p for p in result.problems if p not in result.errors)
        else:
            out.invalid.append(result)
    return out
