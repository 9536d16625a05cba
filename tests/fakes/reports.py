"""Builders of real suites, runs and `ReportInput`s for the comment, gate and publish tests.

suite = make_suite("greeter", [("status-file", 24), ("weather", 40)])
rs = outcome(suite, "status-file", M1, base=(4, 0), head=(0, 4), why=("exits 0", "exit 1"))
report = make_report([suite], rs)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evolve_action.model.evals import Case, Check, Format, Origin, Skill, Suite
from evolve_action.model.outcomes import (
    ErrorKind,
    Feedback,
    ItemResult,
    JudgeReport,
    RunResult,
    Side,
    Status,
    Transcript,
    Usage,
)
from evolve_action.publish.render.report import ReportInput
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import Settings
from evolve_action.verdict.gate import evaluate
from evolve_action.verdict.stats import aggregate

M1, M2 = "anthropic/claude-sonnet-4-6", "openai/gpt-5.4"
HEAD, BASE = "5d6e7f8" + "a" * 33, "1a2b3c4" + "b" * 33
MERGE = "9" * 40
EVENT = Event(
    name="pull_request",
    repo="acme/skills",
    pr_number=7,
    base_sha=BASE,
    head_sha=HEAD,
    head_repo="acme/skills",
    run_url="https://github.com/acme/skills/actions/runs/4242",
    sha=MERGE,
)


def make_suite(skill: str, cases: Sequence[tuple[str, int]], rel: str = "") -> Suite:
    rel = rel or f"evals/{skill}/evals.json"
    built = []
    for case_id, line in cases:
        origin = Origin(rel, line)
        check = Check("a1", "evolve.command", f"check of {case_id}", Origin(rel, line + 3))
        built.append(Case(case_id, "do it", origin, items=(check,)))
    return Suite(Format.EVOLVE, Path("/repo") / rel, rel, Skill(skill, None), tuple(built))


def outcome(
    suite: Suite,
    case_id: str,
    model: str,
    *,
    base: tuple[int, int] | None,
    head: tuple[int, int] | None,
    why: tuple[str, str] = ("command `test -f status.txt` exits 0", "exit 1"),
    errored: int = 0,
    suggestion: dict[str, str] | None = None,
    cost: float = 0.01,
) -> list[RunResult]:
    """Runs of one case on one model: (passed, failed) per side, `errored` extra head runs."""
    out: list[RunResult] = []
    for side, pf in ((Side.BASE, base), (Side.HEAD, head)):
        if pf is None:
            continue
        statuses = [Status.PASS] * pf[0] + [Status.FAIL] * pf[1]
        if side is Side.HEAD:
            statuses += [Status.ERROR] * errored
        for rep, status in enumerate(statuses, start=1):
            passed = status is Status.PASS
            items = [ItemResult("a1", why[0], passed, "" if passed else why[1])]
            kw: dict[str, Any] = {}
            if status is Status.ERROR:
                items = []
                kw = {"error": "provider timed out after 600s", "error_kind": ErrorKind.TIMEOUT}
            feedback = Feedback(suggestions=[suggestion] if suggestion else [])
            out.append(
                RunResult(
                    suite.rel,
                    case_id,
                    model,
                    side,
                    rep,
                    status,
                    1.0 if passed else 0.0,
                    items=items,
                    transcript=Transcript(
                        usage=Usage(input_tokens=900, output_tokens=100, cost_usd=cost)
                    ),
                    judge=JudgeReport(feedback=feedback),
                    **kw,
                )
            )
    return out


def make_report(
    suites: Sequence[Suite],
    runs: Sequence[RunResult],
    *,
    base_sha: str | None = BASE,
    settings: Settings | None = None,
    **kw: Any,
) -> ReportInput:
    settings = settings or Settings()
    base_suites = suites if base_sha is not None else ()
    aggregated = aggregate(runs, [*suites, *base_suites], alpha=settings.alpha)
    if "gate" not in kw:  # as `report_input.build` decides it for a finished job
        failed = sum(1 for r in kw.get("invalid", ()) if not r.ok)
        has_base = base_sha is not None
        kw["gate"] = evaluate(aggregated, settings, invalid_files=failed, has_base=has_base)
    return ReportInput(
        aggregate=aggregated,
        runs=list(runs),
        event=kw.pop("event", EVENT),
        settings=settings,
        head_sha=HEAD,
        base_sha=base_sha,
        head_suites=suites,
        base_suites=base_suites,
        version=kw.pop("version", "1.2.3"),
        duration_s=kw.pop("duration_s", 192.0),
        **kw,
    )
