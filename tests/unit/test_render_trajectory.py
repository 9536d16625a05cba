"""A trajectory failure in the comment: the expected sequence against the observed one and the
point where they part, escaped, and short enough for a table cell however long the run was."""

from __future__ import annotations

from evolve_action.formats.trajectory.order import in_order, strict
from evolve_action.formats.trajectory.wants import named
from evolve_action.model.outcomes import RunResult, ToolCall, Transcript
from evolve_action.model.trajectory import conclusion, trajectory_of
from evolve_action.publish.render.build.assemble import build_view
from evolve_action.publish.render.build.cases import evidence_cell
from evolve_action.publish.render.comment import render
from tests.fakes.reports import M1, make_report, make_suite, outcome

GREETER = make_suite("greeter", [("greet-one", 10)])


def evidence(expected: list[str], observed: list[str], exact: bool = True) -> str:
    steps = trajectory_of(Transcript(tool_calls=[ToolCall(n, "{}") for n in observed])).steps
    wants = [named(n) for n in expected]
    return (strict(wants, steps) if exact else in_order(wants, steps)).evidence


def test_the_failed_check_row_shows_expected_observed_and_the_parting_point() -> None:
    said = evidence(["Read", "Edit", "Bash"], ["Read", "Bash", "Edit"])
    runs: list[RunResult] = outcome(
        GREETER, "greet-one", M1, base=(1, 0), head=(0, 2), why=("tools in order", said)
    )
    view = build_view(make_report([GREETER], runs))
    (row,) = view.failures
    assert row.evidence == (
        "expected exactly: Read → Edit → Bash; observed: Read → Bash → Edit;"
        " parted at step 2: expected Edit, saw Bash"
    )
    assert row.evidence in render(view)


def test_a_long_trajectory_keeps_its_parting_point_and_shortens_the_sequences() -> None:
    observed = [f"mcp__server_{i}__a_rather_long_tool_name_{i}" for i in range(30)]
    expected = [*observed[:20], "Bash"]
    said = evidence(expected, observed)
    assert len(said) > 600
    shown = evidence_cell(said, 160)
    assert len(shown) <= 165
    assert shown.startswith("expected exactly: ")
    assert "parted at step 21: expected Bash, saw server_20/a_rather_long" in shown
    expected_part, observed_part = shown.split("; parted at")[0].split("; observed: ")
    assert expected_part.endswith("…") and observed_part.startswith("… 14 earlier")


def test_model_text_in_tool_names_is_escaped() -> None:
    said = evidence(["Read"], ["<img src=x>|@team"], exact=False)
    expected_part, observed_part, tail = conclusion(said)
    assert (expected_part, observed_part) == ("expected in order: Read", "<img src=x>|@team")
    assert tail == "parted at expected step 1: no Read call at all"
    shown = evidence_cell(said, 160)
    assert "<img" not in shown and "&lt;img" in shown
    assert "\\|" in shown and "@\u200bteam" in shown


def test_other_evidence_is_a_plain_cell() -> None:
    assert conclusion("exit 1") == ("exit 1", "", "")
    assert evidence_cell("exit 1; parted", 160) == "exit 1; parted"
