"""The gate: from the aggregate to the check's conclusion, a reason in words, and an exit code.

The gate fails only on claims that carry the α guarantee. A suite on one model (a *group*) is
labelled regressed by the stratified exact test over all of its cases (`significance`), which
keeps a false "regressed" at most α of the time per group. A single case's Fisher label does
not: with dozens of cases, some drop by chance at p < α. So a case that is labelled regressed
while its group is not is shown in the comment (the regressions table, and the headline says
"within noise for its skill") but does not fail the check. A group can also be labelled
regressed while none of its cases is alone: many small drops add up, and that fails.

Errors are not failures (DESIGN §5): when no run produced anything gradable (a provider
outage, missing keys) the check is neutral, never red, so a branch rule does not block a PR
on someone else's outage. Invalid eval files fail: the PR wrote them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from evolve_action.settings import Settings
from evolve_action.significance import Label
from evolve_action.stats import Aggregate, CaseStats

Conclusion = Literal["success", "failure", "neutral"]


@dataclass(frozen=True, slots=True)
class Gate:
    conclusion: Conclusion
    reason: str  # the headline in words: "1 eval regressed", "no significant change"
    exit_code: int  # 1 only on failure
    regressed_groups: tuple[tuple[str, str], ...] = ()  # (suite rel, model) that failed
    regressed_cases: int = 0  # case × model rows labelled regressed (shown, gating or not)

    @property
    def icon(self) -> str:
        return {"success": "✅", "failure": "❌", "neutral": "⚠️"}[self.conclusion]


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else (many or word + 's')}"


def pct(rate: float) -> str:
    """A rate as a percentage, with a decimal only where it matters (62.5%, 70%)."""
    text = f"{rate * 100:.1f}".removesuffix(".0")
    return f"{text}%"


def _distinct(cases: Iterable[CaseStats]) -> int:
    return len({(c.suite, c.case_id) for c in cases})


def evaluate(
    aggregate: Aggregate,
    settings: Settings,
    *,
    errors_only: bool = False,
    invalid_files: int = 0,
    has_base: bool = True,
) -> Gate:
    """Decide the check's conclusion.

    `errors_only`: the caller knows no eval could run at all (no provider key, nothing
    scheduled because the budget was spent). `invalid_files`: eval files that failed to load.
    `has_base=False` (`--base none`): there is nothing to regress against, so only
    `min_pass_rate` can fail the gate.
    """
    cases = aggregate.cases
    graded = [c for c in cases if (c.head and c.head.graded) or (c.base and c.base.graded)]
    regressed = [c for c in cases if c.label is Label.REGRESSED] if has_base else []
    failures: list[str] = []
    groups: tuple[tuple[str, str], ...] = ()
    if invalid_files:
        failures.append(plural(invalid_files, "invalid eval file"))
    if errors_only or (cases and not graded):
        reason = "evals could not run"
        if cases:
            reason += f" (every run of {plural(_distinct(cases), 'eval')} errored)"
        if failures:
            return Gate("failure", "; ".join([*failures, reason]), 1)
        return Gate("neutral", reason, 0)
    if not cases:
        if failures:
            return Gate("failure", "; ".join(failures), 1)
        return Gate("neutral", "no affected evals", 0)
    if has_base and settings.fail_on_regression:
        groups = tuple(
            (g.suite or "", g.model or "") for g in aggregate.suites if g.label is Label.REGRESSED
        )
        if groups:
            inside = [c for c in regressed if (c.suite, c.model) in groups]
            failures.insert(0, _regressed_reason(inside, groups))
    head_rate = aggregate.overall.head_rate
    floor = settings.min_pass_rate
    if floor is not None and head_rate is not None and head_rate < floor:
        failures.append(f"pass rate {pct(head_rate)} is below the minimum {pct(floor)}")
    if failures:
        return Gate("failure", "; ".join(failures), 1, groups, len(regressed))
    return Gate("success", _success_reason(aggregate, has_base), 0, (), len(regressed))


def _regressed_reason(inside: list[CaseStats], groups: tuple[tuple[str, str], ...]) -> str:
    if inside:
        return f"{plural(_distinct(inside), 'eval')} regressed"
    # Many small drops that no single case shows: name the scale of it instead.
    suites = len({s for s, _ in groups})
    models = len({m for _, m in groups})
    return f"{plural(suites, 'skill')} regressed on {plural(models, 'model')}"


def _success_reason(aggregate: Aggregate, has_base: bool) -> str:
    cases = aggregate.cases
    head = [c for c in cases if c.head is not None and c.head.graded]
    total = _distinct(head)
    failing = _distinct(c for c in head if c.head is not None and c.head.failed)
    if not has_base:
        if not failing:
            return f"all {plural(total, 'eval')} pass"
        return f"{total - failing} of {plural(total, 'eval')} pass"
    improved = [c for c in cases if c.label is Label.IMPROVED]
    dropped = [c for c in cases if c.label is Label.REGRESSED]
    if dropped:
        # Shown as regressed rows, but the suite's test says it is within noise.
        noun = plural(_distinct(dropped), "eval")
        return f"no significant regression ({noun} dropped, within noise for its skill)"
    if improved:
        return f"{plural(_distinct(improved), 'eval')} improved"
    if any(g.label is Label.IMPROVED for g in aggregate.suites):
        return "improved overall"
    if total and not failing:
        return f"all {plural(total, 'eval')} pass"
    return "no significant change"
