"""What a run prints on the terminal: one line per run as it ends, and the summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from evolve_action.model.outcomes import RunResult, Status
from evolve_action.model.spend import cents, spend_of, spend_text
from evolve_action.plan.planning import RunSpec

if TYPE_CHECKING:
    pass


def print_run(
    out: TextIO, spec: RunSpec, result: RunResult, sides: tuple[str, str] = ("base", "")
) -> None:
    """One line per run; `sides` names the base and head sides ("" leaves one unmarked)."""
    mark = {Status.PASS: "PASS ", Status.FAIL: "FAIL ", Status.ERROR: "ERROR"}[result.status]
    where = f"{spec.suite.rel} {spec.case.id} {spec.model} #{spec.repetition}"
    # base and head as `sides` names them; the no-skill arm always says so
    side = {"base": sides[0], "head": sides[1]}.get(spec.side.value, spec.side.value)
    if side:
        where = f"[{side}] {where}"
    detail = f"score {result.score:.2f}" if result.status is not Status.ERROR else result.error
    cached = " (cached)" if result.cached else ""
    print(f"{mark} {where}  {detail}{cached}", file=out)
    for item in result.items:
        if item.passed is False:
            print(f"        ✗ {item.text}: {item.evidence}", file=out)
    out.flush()


def print_summary(out: TextIO, results: list[RunResult], *, invalid: int) -> int:
    counts = {status: sum(r.status is status for r in results) for status in Status}
    paid = spend_of(results)  # what this job paid; cached runs cost it nothing
    cost = cents(paid.paid_usd) if paid.known else spend_text(paid)
    print(
        f"{len(results)} runs: {counts[Status.PASS]} passed, {counts[Status.FAIL]} failed,"
        f" {counts[Status.ERROR]} errors; {invalid} invalid eval files; {cost}",
        file=out,
    )
    return 1 if invalid or counts[Status.FAIL] or counts[Status.ERROR] else 0
