"""The gate: from the verdict to the check's conclusion, a reason in words, and an exit code.

The gate adds no statistics of its own. `aggregate.verdict` (`verdict.decide`) says which evals
and which skills regressed, one family of decisions whose chance of a false "regressed" is at
most `alpha` for the whole pull request; the gate fails exactly when it names something (with
`fail-on-regression`), and the comment's rows, the headline and the outputs read the same
verdict. A drop the verdict does not call significant is reported as such, never as a
regression, and an improvement never offsets one.

When not one compared eval could have been flagged even had it broken completely (too few runs
for the pull request's size), the check is neutral: it tested nothing, and says so. Errors are
not failures (docs/design.md §Pass rate): when no run produced anything gradable (a provider
outage, missing keys) the check is neutral, never red, so a branch rule does not block a PR on
someone else's outage. Invalid eval files fail: the PR wrote them.

A verdict is never drawn from runs that were never made (`Shortfall`). A job told to stop
(SIGTERM, SIGINT: a cancelled workflow) concludes `cancelled`, whatever it had found, and
exits 128 + the signal's number. Runs missing for another reason (the cost budget, the clock
of `runs: auto` cutting evals still open, a shard that never reported, every run of an eval
on one side errored) make a check that would have been green neutral; a regression found in
the runs that were made still fails it.

Every one of those "could not judge" ends (no run gradable, no key, the budget or the clock
cutting runs, a side of an eval all errors) is `neutral` by default, which GitHub counts as
passing a required check. `on-incomplete: failure` makes each of them `failure` instead, so a
required check fails closed (`could_not_judge`, the one place that choice is made). What is
judged and merely inconclusive (too few runs to tell) and what has nothing to judge (no
affected evals, every eval removed) stay neutral either way.

A skill's lift over no skill (`verdict.lift`) is its own family and decides nothing here,
unless `fail-without-lift` is on: then a skill with a no-skill arm whose lift is not
significant fails the check.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from evolve_action.settings.inputs import OnIncomplete, Settings
from evolve_action.util.text import pct, plural
from evolve_action.verdict.budget import MAX_RUNS
from evolve_action.verdict.decide import Finding, Verdict
from evolve_action.verdict.lift import Lift
from evolve_action.verdict.paired import paired_rates
from evolve_action.verdict.stats import Aggregate, CaseStats

Conclusion = Literal["success", "failure", "neutral", "cancelled"]


@dataclass(frozen=True, slots=True)
class Gate:
    conclusion: Conclusion
    reason: str  # the headline in words: "1 eval regressed", "no significant change"
    exit_code: int  # 1 on failure; 128 + the signal's number when cancelled; else 0
    regressions: int = 0  # evals, plus skills whose many small drops regressed (gating or not)

    @property
    def icon(self) -> str:
        return {"success": "✅", "failure": "❌", "neutral": "⚠️", "cancelled": "⏹️"}[self.conclusion]


@dataclass(frozen=True, slots=True)
class Shortfall:
    """Runs the job planned and did not make, and why: what the gate must not decide over.

    `planned` and `done` count runs (cached ones, and ones that ended in error, are done).
    `cut` says, in words, what else left runs unmade ("the cost budget ran out", "no
    results from shard 2/3").
    """

    planned: int = 0
    done: int = 0
    stopped_by: str = ""  # "SIGTERM" or "SIGINT": the job was told to stop
    cut: tuple[str, ...] = ()

    @property
    def missing(self) -> int:
        return max(0, self.planned - self.done)

    @property
    def incomplete(self) -> bool:
        return bool(self.stopped_by or self.missing or self.cut)

    def runs_done(self) -> str:
        return f"{self.done} of {plural(self.planned, 'run')} done"

    def headline(self) -> str:
        """The headline: "stopped before the end: 4 of 8 runs done", "incomplete: …"."""
        if self.stopped_by:
            return f"stopped before the end: {self.runs_done()}"
        parts = [self.runs_done()] if self.missing else []
        return "incomplete: " + "; ".join([*parts, *self.cut])

    @property
    def exit_code(self) -> int:
        """The shell's convention for a process ended by a signal: 128 + its number."""
        try:
            return 128 + signal.Signals[self.stopped_by].value
        except KeyError:
            return 1


COMPLETE = Shortfall()


FAIL_CLOSED = "on-incomplete: failure"


def could_not_judge(
    settings: Settings, reason: str, *, failures: Iterable[str] = (), count: int = 0
) -> Gate:
    """The conclusion of a job that could not judge what it was asked to: `neutral`, or
    `failure` with `on-incomplete: failure`. `failures` (invalid eval files, a regression among
    the runs made) fail it either way, listed first."""
    failed = list(failures)
    if failed:
        return Gate("failure", "; ".join([*failed, reason]), 1, count)
    if settings.on_incomplete is OnIncomplete.FAILURE:
        return Gate("failure", f"{reason} ({FAIL_CLOSED})", 1, count)
    return Gate("neutral", reason, 0, count)


def _distinct(cases: Iterable[CaseStats]) -> int:
    return len({(c.suite, c.case_id) for c in cases})


def evaluate(
    aggregate: Aggregate,
    settings: Settings,
    *,
    errors_only: bool = False,
    invalid_files: int = 0,
    has_base: bool = True,
    shortfall: Shortfall = COMPLETE,
    lift: Lift | None = None,
) -> Gate:
    """Decide the check's conclusion.

    `errors_only`: the caller knows no eval could run at all (no provider key, nothing
    scheduled because the budget was spent). `invalid_files`: eval files that failed to load.
    `has_base=False` (`--base none`): there is nothing to regress against, so only
    `min_pass_rate` can fail the gate. `shortfall`: the runs planned and not made.
    `lift`: the skills' lift over no skill, which fails the check only with
    `fail-without-lift`.
    """
    cases = aggregate.cases
    graded = [c for c in cases if (c.head and c.head.graded) or (c.base and c.base.graded)]
    verdict = aggregate.verdict
    regressed = has_base and verdict.regressed
    count = len(verdict.regressed_cases) + len(verdict.broad_suites) if has_base else 0
    failures: list[str] = []
    if invalid_files:
        failures.append(plural(invalid_files, "invalid eval file"))
    if shortfall.stopped_by:
        # Told to stop: the workflow was cancelled; so is the check, whatever was found so far.
        reason = "; ".join([shortfall.headline(), *failures])
        return Gate("cancelled", reason, shortfall.exit_code, count)
    if errors_only or not graded:
        return _nothing_graded(cases, settings, failures, shortfall, errors_only=errors_only)
    if regressed and settings.fail_on_regression:
        failures.insert(0, regressed_reason(verdict))
    failures += _rules(aggregate, settings, lift, has_base)
    if failures:
        return Gate("failure", "; ".join(failures), 1, count)
    if has_base and not any(c.head is not None for c in cases):
        # The PR removed every eval: nothing was compared, so nothing is green.
        return Gate("neutral", f"no eval left to compare ({_distinct(cases)} removed)", 0)
    gaps = _gaps(cases, shortfall, has_base)
    if gaps:
        # Green would speak for runs never made: neutral (or failure, failing closed), saying
        # what is missing.
        found = [regressed_reason(verdict)] if regressed else []
        return could_not_judge(settings, "; ".join([gaps, *found]), count=count)
    if regressed:
        off = "not failing the check: fail-on-regression is off"
        return Gate("success", f"{regressed_reason(verdict)} ({off})", 0, count)
    if has_base and verdict.cases and len(verdict.too_few_runs) == len(verdict.cases):
        return Gate("neutral", too_few_reason(verdict), 0)
    return Gate("success", _success_reason(aggregate, has_base), 0)


def _nothing_graded(
    cases: list[CaseStats],
    settings: Settings,
    failures: list[str],
    shortfall: Shortfall,
    *,
    errors_only: bool,
) -> Gate:
    """No graded run: every run errored, nothing could run, or nothing was affected."""
    if errors_only or cases:
        reason = "evals could not run"
        if cases:
            reason += f" (every run of {plural(_distinct(cases), 'eval')} errored)"
        return could_not_judge(settings, reason, failures=failures)
    if failures:
        return Gate("failure", "; ".join(failures), 1)
    # Nothing ran: because nothing could be started, or because nothing was affected.
    if shortfall.incomplete:
        return could_not_judge(settings, shortfall.headline())
    return Gate("neutral", "no affected evals", 0)


def _rules(
    aggregate: Aggregate, settings: Settings, lift: Lift | None, has_base: bool
) -> list[str]:
    """The checks a PR fails beside a regression: the pass-rate floor (on head's rate as the
    headline gives it, `verdict.paired`), and no lift where `fail-without-lift` asks for one."""
    failures = []
    head_rate = paired_rates(aggregate.cases, has_base=has_base).head
    floor = settings.min_pass_rate
    if floor is not None and head_rate is not None and head_rate < floor:
        failures.append(f"pass rate {pct(head_rate)} is below the minimum {pct(floor)}")
    if settings.fail_without_lift and lift is not None:
        flat = [s for s in lift.measured if not lift.helps(s)]
        if flat:
            failures.append(f"{plural(len(flat), 'skill')} not significantly better than no skill")
    return failures


def _gaps(cases: list[CaseStats], shortfall: Shortfall, has_base: bool) -> str:
    """What is missing, in words ("" when nothing is): runs never made, and evals with no
    graded run on one side (every run there errored), which so have no verdict."""
    ungraded = [
        c
        for c in cases
        if any(
            side is not None and side.runs and not side.graded
            for side in ((c.base if has_base else None), c.head)
        )
    ]
    if not shortfall.incomplete and not ungraded:
        return ""
    text = shortfall.headline() if shortfall.incomplete else "incomplete"
    if not ungraded:
        return text
    errored = f"{plural(_distinct(ungraded), 'eval')} not graded (every run on a side errored)"
    return f"{text}; {errored}" if shortfall.incomplete else f"{text}: {errored}"


def regressed_reason(verdict: Verdict) -> str:
    evals = plural(len(verdict.regressed_cases), "eval")
    skills = plural(len(verdict.broad_suites), "skill")
    if not verdict.broad_suites:
        return f"{evals} regressed"
    if not verdict.regressed_cases:
        return f"{skills} regressed (many small drops)"
    return f"{evals} and {skills} regressed"


def runs_phrase(needed: int | None) -> str:
    return f"{needed} runs per side" if needed else f"more than {MAX_RUNS} runs per side"


def too_few_reason(verdict: Verdict) -> str:
    """The headline when no compared eval could be flagged, with the runs that would do."""
    few = [verdict.cases[k] for k in verdict.too_few_runs]
    needed = [c.runs_needed for c in few]
    most = None if None in needed else max(n for n in needed if n is not None)
    return f"too few runs to tell ({plural(len(few), 'eval')}; {runs_phrase(most)} would do)"


def _success_reason(aggregate: Aggregate, has_base: bool) -> str:
    cases = aggregate.cases
    head = [c for c in cases if c.head is not None and c.head.graded]
    total = _distinct(head)
    failing = _distinct(c for c in head if c.head is not None and c.head.failed)
    if not has_base:
        if not failing:
            return f"all {plural(total, 'eval')} pass"
        return f"{total - failing} of {plural(total, 'eval')} pass"
    verdict = aggregate.verdict
    findings = [c.finding for c in verdict.cases.values()]
    dropped, improved = findings.count(Finding.DROPPED), findings.count(Finding.IMPROVED)
    parts = []
    if dropped:
        parts.append(
            f"no significant regression ({plural(dropped, 'eval')} dropped, not significant)"
        )
    if improved:
        parts.append(f"{plural(improved, 'eval')} improved")
    elif any(s.finding is Finding.IMPROVED for s in verdict.suites.values()):
        parts.append("improved overall")
    if not parts:
        parts.append(
            f"all {plural(total, 'eval')} pass"
            if total and not failing
            else "no significant change"
        )
    if few := verdict.too_few_runs:
        parts.append(f"too few runs to tell for {len(few)} of {plural(len(verdict.cases), 'eval')}")
    return "; ".join(parts)
