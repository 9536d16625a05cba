"""Publishing against the loopback GitHub fake with the real PyGithub client."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from evolve_action.model.evals import LoadResult, Origin, Problem
from evolve_action.model.outcomes import RunResult
from evolve_action.publish.github_api import Publisher, make_client
from evolve_action.publish.not_run import VALIDATION_TITLE, publish_validation_only
from evolve_action.publish.post import Published, RunnerFiles, publish, publish_in_progress
from evolve_action.publish.render.report import ReportInput
from evolve_action.settings.inputs import CommentMode, Settings
from tests.fakes.github_server import GitHubFake
from tests.fakes.reports import EVENT, HEAD, M1, M2, make_report, make_suite, outcome

REPO = "acme/skills"
SUITE = make_suite("greeter", [("status-file", 24), ("weather", 40), ("greets", 10)])
BAD = LoadResult(
    "evals/x/evals.json",
    None,
    None,
    (Problem(Origin("evals/x/evals.json", 3, "evals[0].prompt"), "is required"),),
)


@pytest.fixture
def gh() -> Iterator[GitHubFake]:
    with GitHubFake() as fake:
        yield fake


def publisher(gh: GitHubFake) -> Publisher:
    client = make_client("ghs_test", api_url=gh.url, throttle=False)
    return Publisher(client, REPO, sleep=lambda _s: None)


def regressed_runs() -> list[RunResult]:
    rs: list[RunResult] = []
    for m in (M1, M2):
        rs += outcome(SUITE, "status-file", m, base=(4, 0), head=(0, 4))
        rs += outcome(SUITE, "weather", m, base=(0, 4), head=(0, 4), why=("weather", "hello"))
        rs += outcome(SUITE, "greets", m, base=(4, 0), head=(4, 0))
    return rs


def passing_runs() -> list[RunResult]:
    return [
        r
        for m in (M1, M2)
        for case in ("status-file", "greets")
        for r in outcome(SUITE, case, m, base=(4, 0), head=(4, 0))
    ]


def outputs(path: Path) -> dict[str, str]:
    pairs = re.findall(r"^([\w-]+)<<(\S+)\n(.*?)\n\2$", path.read_text(), re.M | re.S)
    return {name: value for name, _, value in pairs}


def run_publish(
    tmp_path: Path, report: ReportInput, pub: Publisher | None, **kw: object
) -> tuple[Published, str]:
    stream = io.StringIO()
    files = RunnerFiles(str(tmp_path / "out"), str(tmp_path / "summary.md"))
    result = publish(report, publisher=pub, files=files, stream=stream, **kw)  # type: ignore[arg-type]
    return result, stream.getvalue()


def test_publish__comment_check_annotations_outputs_summary(gh: GitHubFake, tmp_path: Path) -> None:
    result, log = run_publish(tmp_path, make_report([SUITE], regressed_runs()), publisher(gh))
    assert (result.conclusion, result.exit_code, result.check, result.problems) == (
        "failure",
        1,
        "check run",
        [],
    )
    [comment] = gh.comments[(REPO, 7)]
    assert comment["body"].startswith("<!-- evolve:sticky key=default -->\n### ❌ evolve: 1 eval")
    assert result.comment_url == comment["html_url"]
    [check] = gh.check_runs
    assert check["head_sha"] == HEAD != EVENT.sha  # the PR head, never the merge commit
    assert (check["name"], check["status"], check["conclusion"]) == (
        "evolve",
        "completed",
        "failure",
    )
    assert check["output"]["title"] == "1 eval regressed"
    assert "**▼ Regressed**" in check["output"]["summary"]
    assert "evolve:sticky" not in check["output"]["summary"]
    levels = {(a["annotation_level"], a["start_line"]) for a in check["annotations"]}
    assert levels == {("failure", 24), ("warning", 27), ("warning", 43)}
    out = outputs(tmp_path / "out")
    assert out == {
        "pass-rate": "0.3333",
        "base-pass-rate": "0.6667",
        "delta": "-0.3333",
        "regressions": "1",  # one eval (regressed on both models)
        "conclusion": "failure",
        "results-dir": "evolve-results",
        "comment-url": comment["html_url"],
        "cost-usd": "0.4800",
    }
    summary = (tmp_path / "summary.md").read_text()
    # One regressed row (the same on both models) and one row per failed check.
    assert "Failed checks: 2 (in 16 failed head runs)" in summary and summary.count("| [`") == 3
    assert log.splitlines()[0].startswith(
        "::error file=evals/greeter/evals.json,line=24,title=status-file regressed on"
    )
    assert sum(line.startswith("::warning") for line in log.splitlines()) == 2


def test_second_publish_edits_the_same_comment(gh: GitHubFake, tmp_path: Path) -> None:
    pub = publisher(gh)
    first, _ = run_publish(tmp_path, make_report([SUITE], regressed_runs()), pub)
    second, _ = run_publish(tmp_path, make_report([SUITE], passing_runs()), pub)
    [comment] = gh.comments[(REPO, 7)]
    assert first.comment_url == second.comment_url
    assert "### ✅ evolve: all 2 evals pass" in comment["body"]
    assert [c["conclusion"] for c in gh.check_runs] == ["failure", "success"]


def test_a_job_for_an_older_commit_leaves_the_comment_alone(gh: GitHubFake, tmp_path: Path) -> None:
    pub = publisher(gh)
    gh.add_pull(REPO, 7, HEAD)
    run_publish(tmp_path, make_report([SUITE], passing_runs()), pub)
    gh.add_pull(REPO, 7, "f" * 40)  # the PR moved on while a slower job was still running
    run_publish(tmp_path, make_report([SUITE], regressed_runs()), pub)
    [comment] = gh.comments[(REPO, 7)]
    assert "### ✅ evolve: all 2 evals pass" in comment["body"]
    assert [c["conclusion"] for c in gh.check_runs] == ["success", "failure"]  # on its own sha


def test_comment_modes_new_and_off(gh: GitHubFake, tmp_path: Path) -> None:
    pub = publisher(gh)
    new = make_report([SUITE], passing_runs(), settings=Settings(comment=CommentMode.NEW))
    run_publish(tmp_path, new, pub)
    run_publish(tmp_path, new, pub)
    assert len(gh.comments[(REPO, 7)]) == 2
    off = make_report([SUITE], passing_runs(), settings=Settings(comment=CommentMode.OFF))
    result, _ = run_publish(tmp_path, off, pub)
    assert len(gh.comments[(REPO, 7)]) == 2 and result.comment_url == ""
    assert len(gh.check_runs) == 3


def test_403_on_check_runs_falls_back_to_a_commit_status(gh: GitHubFake, tmp_path: Path) -> None:
    gh.fail_next("POST", f"/repos/{REPO}/check-runs", [403])
    result, _ = run_publish(tmp_path, make_report([SUITE], regressed_runs()), publisher(gh))
    assert (result.check, result.problems, gh.check_runs) == ("commit status", [], [])
    [status] = gh.statuses
    assert (status["sha"], status["state"], status["context"]) == (HEAD, "failure", "evolve")
    assert status["description"] == "1 eval regressed"
    assert status["target_url"] == EVENT.run_url


def test_outage_is_a_neutral_status_which_github_calls_success(
    gh: GitHubFake, tmp_path: Path
) -> None:
    gh.fail_next("POST", f"/repos/{REPO}/check-runs", [404])
    rs = outcome(SUITE, "greets", M1, base=(0, 0), head=(0, 0), errored=2)
    result, _ = run_publish(tmp_path, make_report([SUITE], rs), publisher(gh))
    assert (result.conclusion, result.exit_code) == ("neutral", 0)
    assert gh.statuses[0]["state"] == "success"
    assert gh.statuses[0]["description"].startswith("neutral: evals could not run")


def test_502s_on_patch_are_retried(gh: GitHubFake, tmp_path: Path) -> None:
    pub = publisher(gh)
    run_publish(tmp_path, make_report([SUITE], passing_runs()), pub)
    gh.fail_next("PATCH", f"/repos/{REPO}/issues/comments/", [502, 502])
    gh.fail_next("PATCH", f"/repos/{REPO}/check-runs/", [502])
    result, _ = run_publish(tmp_path, make_report([SUITE], regressed_runs()), pub)
    assert result.problems == [] and result.check == "check run"
    assert "1 eval regressed" in gh.comments[(REPO, 7)][0]["body"]
    assert gh.check_runs[-1]["conclusion"] == "failure"


def test_github_failures_are_reported_not_raised_and_keep_the_exit_code(
    gh: GitHubFake, tmp_path: Path
) -> None:
    gh.fail_next("POST", f"/repos/{REPO}/issues/7/comments", [422])
    gh.fail_next("POST", f"/repos/{REPO}/check-runs", [500] * 4)
    result, log = run_publish(tmp_path, make_report([SUITE], regressed_runs()), publisher(gh))
    assert result.exit_code == 1 and result.check == ""
    assert [p.split(" failed")[0] for p in result.problems] == [
        "posting the PR comment",
        "creating the check run",
    ]
    assert "::error title=evolve could not write to GitHub::posting the PR comment" in log
    summary = (tmp_path / "summary.md").read_text()
    assert "evolve could not write to GitHub" in summary and "Failed checks: 2 (" in summary
    assert outputs(tmp_path / "out")["conclusion"] == "failure"


def test_without_a_publisher_only_files_and_log(tmp_path: Path) -> None:
    result, log = run_publish(tmp_path, make_report([SUITE], regressed_runs()), None)
    assert (result.comment_url, result.check, result.exit_code) == ("", "", 1)
    assert outputs(tmp_path / "out")["comment-url"] == ""
    assert "### ❌ evolve: 1 eval regressed" in (tmp_path / "summary.md").read_text()
    assert log.count("::error") == 2


def test_in_progress_then_final_reuse_the_check_and_the_comment(
    gh: GitHubFake, tmp_path: Path
) -> None:
    pub = publisher(gh)
    started = publish_in_progress(make_report([SUITE], [], in_progress=True), publisher=pub)
    [check] = gh.check_runs
    assert check["status"] == "in_progress" and check["head_sha"] == HEAD
    assert "### ⏳ evolve: evals running" in gh.comments[(REPO, 7)][0]["body"]
    report = make_report([SUITE], passing_runs())
    run_publish(tmp_path, report, pub, started=started)
    assert len(gh.check_runs) == 1 and gh.check_runs[0]["conclusion"] == "success"
    [comment] = gh.comments[(REPO, 7)]
    assert comment["html_url"] == started.comment_url and "✅" in comment["body"]


def test_fork_validation_only__read_only_token_leaves_just_the_summary(
    gh: GitHubFake, tmp_path: Path
) -> None:
    gh.fail_next("POST", f"/repos/{REPO}/check-runs", [403])
    gh.fail_next("POST", f"/repos/{REPO}/statuses/", [403])
    stream = io.StringIO()
    result = publish_validation_only(
        event=replace(EVENT, fork=True),
        settings=Settings(),
        checked=3,
        invalid=[BAD],
        publisher=publisher(gh),
        files=RunnerFiles(str(tmp_path / "out"), str(tmp_path / "summary.md")),
        stream=stream,
    )
    assert (result.conclusion, result.exit_code, result.check, result.problems) == (
        "neutral",
        1,
        "",
        [],
    )
    summary = (tmp_path / "summary.md").read_text()
    assert VALIDATION_TITLE in summary and "2 of 3 eval files are valid." in summary
    assert "`workflow_run`" in summary
    assert "- evals/x/evals.json:3: evals[0].prompt: is required" in summary
    assert stream.getvalue().startswith("::warning file=evals/x/evals.json,line=3")
    assert outputs(tmp_path / "out")["conclusion"] == "neutral"


def test_fork_validation_only__neutral_check_when_writable(gh: GitHubFake, tmp_path: Path) -> None:
    result = publish_validation_only(
        event=replace(EVENT, fork=True),
        settings=Settings(),
        checked=2,
        invalid=[],
        publisher=publisher(gh),
        files=RunnerFiles(),
        stream=io.StringIO(),
    )
    [check] = gh.check_runs
    assert (result.exit_code, check["conclusion"], check["head_sha"]) == (0, "neutral", HEAD)
    assert check["output"]["title"] == VALIDATION_TITLE


def test_500_cases_x_2_models_fit_and_keep_headline_and_regressions(
    gh: GitHubFake, tmp_path: Path
) -> None:
    ids = [f"case-{i:03d}" for i in range(500)]
    suite = make_suite("big", [(case_id, 10 + 5 * i) for i, case_id in enumerate(ids)])
    long = "the model wrote a very long explanation " * 12
    rs: list[RunResult] = []
    for i, case_id in enumerate(ids):
        for m in (M1, M2):
            if i < 3:
                rs += outcome(suite, case_id, m, base=(4, 0), head=(0, 4), why=("x", long))
            else:
                rs += outcome(
                    suite,
                    case_id,
                    m,
                    base=(0, 4),
                    head=(0, 4),
                    why=("assertion " * 10, long),
                    suggestion={"reason": f"suggestion {i} " + long},
                )
    result, _ = run_publish(tmp_path, make_report([suite], rs), publisher(gh))
    body = gh.comments[(REPO, 7)][0]["body"]
    assert len(body.encode()) < 65_536
    assert body.startswith("<!-- evolve:sticky key=default -->\n### ❌ evolve: 3 evals regressed")
    # The three regressed cases survive the cuts, each one row for both models.
    assert body.count("| [`case-00") >= 3 and body.count("| both models | 4/4 → 0/4 |") == 3
    assert "job summary" in body
    check = gh.check_runs[0]
    assert len(check["output"]["summary"]) <= 65_535
    assert len(check["annotations"]) == 150
    summary = (tmp_path / "summary.md").read_text()
    assert "Failed checks: " in summary and len(summary.encode()) <= 1024 * 1024
    assert result.exit_code == 1


def test_user_template_shapes_the_comment_and_a_broken_one_falls_back(
    gh: GitHubFake, tmp_path: Path
) -> None:
    template = tmp_path / "mine.md.j2"
    template.write_text('{% extends "comment.md.j2" %}{% block overall %}CUSTOM{% endblock %}')
    settings = Settings(template=template)
    pub = publisher(gh)
    result, _ = run_publish(tmp_path, make_report([SUITE], passing_runs(), settings=settings), pub)
    assert "CUSTOM" in gh.comments[(REPO, 7)][0]["body"] and result.problems == []
    assert "CUSTOM" not in gh.check_runs[0]["output"]["summary"]
    template.write_text("{{ v.no_such_field }}")
    result, _ = run_publish(
        tmp_path, make_report([SUITE], regressed_runs(), settings=settings), pub
    )
    assert len(result.problems) == 1 and "no_such_field" in result.problems[0]
    assert "### ❌ evolve: 1 eval regressed" in gh.comments[(REPO, 7)][0]["body"]
