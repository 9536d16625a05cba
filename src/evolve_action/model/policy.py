"""A suite's verdict parameters, as its format's loader read them (docs/design.md §Pass rate),
and the formats' documented defaults for them (`model.evals` re-exports these names)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

# Formats' documented defaults for `Suite.policy`. The loaders write them into each suite's
# policy; the scorers fall back on them only for a suite made without a loader.
AGENTV_THRESHOLD = 0.8  # AgentV: a score at or above it passes
CLAUDITOR_MIN_PASS_RATE = 0.7  # clauditor's default
CLAUDITOR_MIN_MEAN_SCORE = 0.5  # clauditor's default


@dataclass(frozen=True, slots=True)
class SuitePolicy:
    """A format's verdict parameters for one suite (docs/design.md §Pass rate), as its loader
    read them; None where the file's format has no such parameter or the file left it unset
    (the scorers then take the format's default)."""

    threshold: float | None = None  # AgentV, Vally, tessl: the score a run must reach
    weights: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))  # Vally
    type: str | None = None  # Vally: capability | regression (checked, judged alike)
    no_skill_arm: bool | None = None  # a Vally experiment's skill-free arm asks for the arm
    min_pass_rate: float | None = None  # clauditor
    min_mean_score: float | None = None  # clauditor
    min_stability: float | None = None  # clauditor's variance: the share of runs that agree
    n_runs: int | None = None  # clauditor's variance runs
    structural_gate: bool | None = None  # skill-evaluator: critical checks gate the judge
    rubric_threshold: float | None = None  # skill-evaluator
    baseline_comparison: bool | None = None  # skill-evaluator asks for the no-skill arm
    aggregation: str | None = None  # how the format combines items (recorded, not read)
    required_semantics: str | None = None  # AgentV's `required` (recorded, not read)

    def doc(self) -> dict[str, Any]:
        """The parameters set, by the names the files and results.json give them."""
        out: dict[str, Any] = {}
        for name in self.__slots__:
            value = getattr(self, name)
            if name == "weights":
                if value:
                    out[name] = dict(value)
            elif value is not None:
                out[name] = value
        return out

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> SuitePolicy:
        """A policy as `doc` recorded it (results.json); a value of the wrong kind is left out."""
        kinds: dict[str, type | tuple[type, ...]] = {
            "threshold": (int, float), "min_pass_rate": (int, float),
            "min_mean_score": (int, float), "min_stability": (int, float),
            "rubric_threshold": (int, float), "n_runs": int, "type": str, "aggregation": str,
            "required_semantics": str, "no_skill_arm": bool, "structural_gate": bool,
            "baseline_comparison": bool,
        }  # fmt: skip
        values: dict[str, Any] = {
            k: v
            for k, want in kinds.items()
            if isinstance(v := doc.get(k), want) and (want is bool or not isinstance(v, bool))
        }
        weights = doc.get("weights")
        if isinstance(weights, Mapping):
            values["weights"] = MappingProxyType(
                {str(k): float(w) for k, w in weights.items() if isinstance(w, int | float)}
            )
        return cls(**values)
