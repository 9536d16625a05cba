"""Watch's parts: which evals a run covers, which record is the baseline, what an issue is."""

from __future__ import annotations

from evolve_action.pipeline import watch_state
from evolve_action.pipeline.watch import last_known
from evolve_action.pipeline.watch_compare import baseline, compare
from evolve_action.publish.github_api import Publisher, make_client
from evolve_action.publish.history import Counts, Record
from evolve_action.publish.watch_issues import CaseDrop, Drop, body, marker, sync
from tests.fakes.github_server import BOT, GitHubFake

A, B, C = "evals/a/evals.json", "evals/b/evals.json", "evals/c/evals.json"
M = "anthropic/m"


def rec(cells: dict[tuple[str, str, str], Counts], *, flagged: tuple[str, ...] = (),
        snap: str = "") -> Record:  # fmt: skip
    return Record("2026-01-01T00:00:00Z", "a" * 40, "schedule", cells,
                  snapshots={M: snap} if snap else {}, flagged=flagged)  # fmt: skip


def choose(history: list[Record], changes: tuple[str, ...] = ()) -> watch_state.Selection:
    return watch_state.choose(
        [A, B, C], history, sha="s", models=[M], changes=changes, pending=None
    )


def test_no_record_or_a_change_runs_everything_else_a_rotating_slice() -> None:
    assert choose([]).full and "no earlier record" in choose([]).why
    one = [rec({(A, "x", M): Counts("f", 1, 0)})]
    assert choose(one, ("snapshot moved",)).full
    sample = choose(one)
    assert not sample.full and sample.paths == (B,)  # the second slice of the sorted suites
    flagged = [rec({(C, "x", M): Counts("f", 0, 1)}, flagged=(C,))]
    assert choose(flagged).paths == (B, C)  # a flagged skill is checked again every time


def test_a_cut_run_is_resumed_with_its_own_selection() -> None:
    cut = watch_state.Selection((A,), False, "a sample", "e1", "s", (M,))
    again = watch_state.choose([A, B, C], [], sha="s", models=[M], changes=(), pending=cut)
    assert again.resumed and again.paths == (A,) and again.epoch == "e1"
    other = watch_state.choose([A, B, C], [], sha="t", models=[M], changes=(), pending=cut)
    assert not other.resumed and other.epoch != "e1"  # another commit: a fresh start


def test_the_baseline_skips_errors_flags_and_other_fingerprints() -> None:
    key = (A, "x", M)
    good = rec({key: Counts("f", 5, 0)})
    history = [
        good,
        rec({key: Counts("f", 0, 5)}, flagged=(A,)),  # the drop itself: never a baseline
        rec({key: Counts("f", 0, 0, 5)}),  # only errors
        rec({key: Counts("g", 1, 4)}),  # another tree or model id
    ]
    found = baseline(history, key, "f")
    assert found is not None and found.record is good


def test_compare_flags_a_drop_and_not_an_equal_run() -> None:
    key = (A, "x", M)
    history = [rec({key: Counts("f", 6, 0)})]
    assert compare(history, {key: Counts("f", 0, 6)}, 0.05).regressed_suites == [A]
    same = compare(history, {key: Counts("f", 6, 0)}, 0.05)
    assert same.regressed_suites == [] and same.compared_suites() == {A}
    outage = compare(history, {key: Counts("f", 0, 0, 6)}, 0.05)
    assert outage.verdict is None and outage.compared_suites() == set()


def test_the_last_known_snapshot_is_not_hidden_by_an_unknown_one() -> None:
    history = [rec({}, snap="m-1"), rec({})]
    assert last_known(history, lambda r: r.snapshots) == {M: "m-1"}


def drop(suite: str) -> Drop:
    case = CaseDrop("x", M, (6, 6), "2026-01-01 at aaaaaaa", (0, 6), 0.001, True)
    return Drop(suite, (case,), ("m: snapshot 1 → 2",), {M: "2"}, "evolve-action run ...")


def test_an_issue_someone_else_wrote_is_never_ours_to_edit_or_close() -> None:
    with GitHubFake() as gh:
        stranger = {"login": "mallory", "id": 9, "type": "User"}
        forged = gh.add_issue("o/r", "bait", body(drop(A)), stranger)
        ours = gh.add_issue("o/r", "ours", body(drop(B)), BOT)
        publisher = Publisher(make_client("t", api_url=gh.url, throttle=False), "o/r")
        synced = sync(publisher, [drop(A)], [B, C])
    assert forged["state"] == "open" and forged["body"] == body(drop(A))  # untouched
    assert len(synced.opened) == 1 and synced.updated == ()  # a new one of our own instead
    assert ours["state"] == "closed" and synced.closed == (ours["html_url"],)
    assert marker("evals/a b/evals.json") == "<!-- evolve:watch suite=evals/a_b/evals.json -->"


def test_shards_take_whole_files_and_count_as_one_watch() -> None:
    files = [C, A, B]
    parts = [watch_state.shard_part(files, i, 2) for i in (1, 2)]
    assert parts == [(A, C), (B,)]
    cell = {(A, "x", M): Counts("f", 1, 0)}
    one = [rec(cell)]
    sharded = [
        Record("t", "s", "schedule", cell, shard="1/2"),
        Record("t", "s", "schedule", {(B, "x", M): Counts("f", 1, 0)}, shard="2/2"),
    ]
    # Two jobs' lines are one watch: the next watch takes the same slice as after one line.
    assert choose(sharded).paths == choose(one).paths
    assert choose(sharded).epoch == choose(sharded).epoch  # every job finds the same part
