"""Checks that cannot tell (`verdict.discrimination`): one record per item from the runs made."""

from __future__ import annotations

from evolve_action.model.outcomes import ItemResult, RunResult, Side, Status
from evolve_action.verdict.discrimination import (
    ArmCounts,
    Discrimination,
    classify,
    records,
    shares,
)


def run(side: Side, rep: int, verdicts: dict[str, bool | None], *, case: str = "c") -> RunResult:
    items = [ItemResult(i, f"check {i}", v, kind="regex") for i, v in verdicts.items()]
    status = Status.PASS if all(v is not False for v in verdicts.values()) else Status.FAIL
    return RunResult("evals/s/evals.json", case, "m", side, rep, status, 0.0, items)


def test_classify_each_finding() -> None:
    both = {Side.HEAD: ArmCounts(3, 0), Side.NO_SKILL: ArmCounts(3, 0)}
    assert classify(both) == (Discrimination.NOTHING_ADDED, ())
    assert classify({Side.HEAD: ArmCounts(3, 0)}) == (Discrimination.PASSES_EVERYWHERE, ())
    nowhere = {
        Side.BASE: ArmCounts(0, 2),
        Side.HEAD: ArmCounts(0, 2),
        Side.NO_SKILL: ArmCounts(0, 3),
    }
    assert classify(nowhere) == (Discrimination.BROKEN, ())
    shaky = {Side.HEAD: ArmCounts(2, 1), Side.NO_SKILL: ArmCounts(0, 3)}
    assert classify(shaky) == (Discrimination.UNSTABLE, (Side.HEAD,))
    tells = {Side.HEAD: ArmCounts(3, 0), Side.NO_SKILL: ArmCounts(0, 3)}
    assert classify(tells) == (Discrimination.TELLS, ())
    assert not Discrimination.TELLS.cannot_tell and Discrimination.BROKEN.cannot_tell


def test_records_count_every_arm_skip_errors_and_skips_and_flag_a_skill() -> None:
    made = [
        run(Side.HEAD, 1, {"a": True, "b": True, "z": False}),
        run(Side.HEAD, 2, {"a": True, "b": True, "z": False}),
        run(Side.NO_SKILL, 1, {"a": False, "b": True, "z": False}),
        run(Side.NO_SKILL, 2, {"a": False, "b": True, "z": None}),  # skipped: not counted
    ]
    errored = run(Side.NO_SKILL, 3, {"a": True})
    errored.status = Status.ERROR
    found = records([*made, errored])
    by_id = {r.item_id: r for r in found}
    assert [r.item_id for r in found] == ["a", "b", "z"]
    assert by_id["a"].finding is Discrimination.TELLS
    assert by_id["a"].arms == {Side.HEAD: ArmCounts(2, 0), Side.NO_SKILL: ArmCounts(0, 2)}
    assert by_id["b"].finding is Discrimination.NOTHING_ADDED
    assert by_id["z"].finding is Discrimination.BROKEN and (
        by_id["z"].passed,
        by_id["z"].failed,
    ) == (0, 3)
    (share,) = shares(found)
    assert (share.items, share.cannot_tell, share.mostly) == (3, 2, True)


def test_records_do_not_depend_on_the_order_of_the_runs() -> None:
    made = [run(Side.HEAD, i, {"x": True, "y": i % 2 == 0}) for i in range(1, 5)]
    assert records(made) == records(list(reversed(made)))
    assert records(made)[1].finding is Discrimination.UNSTABLE
