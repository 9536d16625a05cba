"""Review comments (`review-comments: true`) against the loopback GitHub fake, with the real
PyGithub client: one review, comments only on lines of the PR diff, replaced (not piled up)
on the next push, and every request valid for GitHub's OpenAPI description."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from evolve_action.model.outcomes import RunResult
from evolve_action.publish.github_api import Publisher, make_client
from evolve_action.publish.post import RunnerFiles, publish
from evolve_action.publish.render.report import ReportInput
from evolve_action.publish.reviews import commentable_lines, marker
from evolve_action.settings.inputs import Settings
from tests.e2e import openapi_check
from tests.fakes.github_server import GitHubFake
from tests.fakes.reports import EVENT, HEAD, M1, M2, make_report, make_suite, outcome

REPO = "acme/skills"
REL = "evals/greeter/evals.json"
SUITE = make_suite("greeter", [("status-file", 24), ("weather", 40), ("greets", 10)])
# The PR changed lines 21-27 of the eval file at head (status-file sits on 24; greets on 10).
PATCH = "@@ -20,6 +20,8 @@ {\n ctx\n-old\n+new\n+new\n ctx\n+new\n ctx\n ctx\n ctx\n"
SETTINGS = Settings(review_comments=True)


def test_commentable_lines__head_side_of_each_hunk() -> None:
    assert commentable_lines(PATCH) == set(range(20, 28))
    two = "@@ -1 +1 @@\n-a\n+b\n@@ -9,2 +9,1 @@ x\n-c\n d\n\\ No newline at end of file\n"
    assert commentable_lines(two) == {1, 9}
    assert commentable_lines(None) == set()


@pytest.fixture
def gh() -> Iterator[GitHubFake]:
    with GitHubFake() as fake:
        fake.add_pull(REPO, 7, HEAD)
        fake.pull_files[(REPO, 7)] = [
            {"sha": "1" * 40, "filename": REL, "status": "modified", "patch": PATCH},
            {"sha": "2" * 40, "filename": "skills/greeter/SKILL.md", "status": "modified"},
        ]
        yield fake


def publisher(gh: GitHubFake) -> Publisher:
    return Publisher(
        make_client("ghs_test", api_url=gh.url, throttle=False), REPO, sleep=lambda _s: None
    )


def runs(*regressed: str) -> list[RunResult]:
    out: list[RunResult] = []
    for m in (M1, M2):
        for case in ("status-file", "weather", "greets"):
            head = (0, 4) if case in regressed else (4, 0)
            out += outcome(SUITE, case, m, base=(4, 0), head=head)
    return out


def report(*regressed: str, head: str = HEAD) -> ReportInput:
    built = make_report([SUITE], runs(*regressed), settings=SETTINGS)
    return replace(built, head_sha=head, event=replace(EVENT, head_sha=head))


def run(tmp_path: Path, gh: GitHubFake, rep: ReportInput) -> list[str]:
    files = RunnerFiles(str(tmp_path / "out"), str(tmp_path / "summary.md"))
    result = publish(rep, publisher=publisher(gh), files=files, stream=io.StringIO())
    return result.problems


def live(gh: GitHubFake) -> list[dict[str, object]]:
    return [r for r in gh.reviews.get((REPO, 7), []) if marker("default") in str(r["body"])]


def writes(gh: GitHubFake, part: str) -> list[tuple[str, str, object]]:
    return [r for r in gh.requests if r[0] != "GET" and part in r[1]]


def test_review__one_comment_on_the_changed_line_of_each_regressed_case(
    tmp_path: Path, gh: GitHubFake
) -> None:
    assert run(tmp_path, gh, report("status-file", "greets")) == []
    (review,) = live(gh)
    assert review["commit_id"] == HEAD and "1 regressed case" in str(review["body"])
    (comment,) = gh.review_comments  # greets (line 10) is outside the diff: no comment
    assert (comment["path"], comment["line"], comment["side"]) == (REL, 24, "RIGHT")
    assert "`status-file` regressed" in comment["body"]
    assert M1 in comment["body"] and M2 in comment["body"]  # one comment for both models
    assert "4/4" in comment["body"] and "0/4" in comment["body"]


def test_review__rerun_writes_nothing_next_push_replaces_fixed_supersedes(
    tmp_path: Path, gh: GitHubFake
) -> None:
    assert run(tmp_path, gh, report("status-file")) == []
    first = live(gh)[0]
    before = len(writes(gh, "/pulls/"))

    assert run(tmp_path, gh, report("status-file")) == []  # the same head and findings
    assert len(writes(gh, "/pulls/")) == before
    assert len(gh.reviews[(REPO, 7)]) == 1

    new_head = "c" * 40
    gh.add_pull(REPO, 7, new_head)
    assert run(tmp_path, gh, report("status-file", head=new_head)) == []
    (second,) = live(gh)  # one live review: the old one lost its marker and its comments
    assert second["id"] != first["id"] and second["commit_id"] == new_head
    assert "superseded by the run on ccccccc" in str(first["body"])
    assert [c["pull_request_review_id"] for c in gh.review_comments] == [second["id"]]

    assert run(tmp_path, gh, report(head=new_head)) == []  # fixed: nothing to point at
    assert live(gh) == [] and gh.review_comments == []
    assert len(gh.reviews[(REPO, 7)]) == 2

    openapi_check.require_description()
    openapi_check.assert_valid(gh.requests)


def test_review__off_by_default_and_a_refusal_is_a_listed_problem(
    tmp_path: Path, gh: GitHubFake
) -> None:
    off = replace(report("status-file"), settings=Settings())
    assert run(tmp_path, gh, off) == []
    assert not [r for r in gh.requests if "/pulls/7/" in r[1]]

    gh.fail_next("POST", f"/repos/{REPO}/pulls/7/reviews", [403])
    problems = run(tmp_path, gh, report("status-file"))
    assert len(problems) == 1 and "posting the review" in problems[0]
    assert len(gh.comments[(REPO, 7)]) == 1  # the sticky comment and check are unaffected
    assert gh.check_runs[-1]["conclusion"] == "failure"


def test_review__a_review_by_someone_else_quoting_our_marker_is_left_alone(
    tmp_path: Path, gh: GitHubFake
) -> None:
    forged = {
        "id": 1,
        "body": f"{marker('default')} lgtm",
        "user": {"login": "mallory", "id": 5, "type": "User"},
        "state": "COMMENTED",
        "commit_id": HEAD,
        "pull_request_url": f"{gh.url}/repos/{REPO}/pulls/7",
        "html_url": "https://github.example/r",
    }
    gh.reviews[(REPO, 7)] = [forged]
    assert run(tmp_path, gh, report("status-file")) == []
    assert forged["body"] == f"{marker('default')} lgtm"  # not edited
    assert len(gh.reviews[(REPO, 7)]) == 2 and len(gh.review_comments) == 1
