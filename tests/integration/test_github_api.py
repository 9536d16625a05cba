from __future__ import annotations

from collections.abc import Iterator

import pytest

from evolve_action.publish.github_api import GitHubWriteError, Publisher, make_client
from evolve_action.publish.render.escape import marker
from tests.fakes.github_server import GitHubFake

REPO = "acme/skills"


@pytest.fixture
def gh() -> Iterator[GitHubFake]:
    with GitHubFake() as fake:
        yield fake


def publisher(gh: GitHubFake) -> Publisher:
    return Publisher(
        make_client("ghs_test", api_url=gh.url, throttle=False), REPO, sleep=lambda _s: None
    )


def body(text: str, key: str = "default") -> str:
    return f"{marker(key)}\n{text}"


def test_sticky_comment__created_then_edited_in_place(gh: GitHubFake) -> None:
    pub = publisher(gh)
    first = pub.post_comment(7, body("one"), key="default")
    second = pub.post_comment(7, body("two"), key="default")
    assert first == second
    assert [c["body"] for c in gh.comments[(REPO, 7)]] == [body("two")]


def test_sticky_comment__unchanged_body_is_not_rewritten(gh: GitHubFake) -> None:
    pub = publisher(gh)
    pub.post_comment(7, body("same"), key="default")
    pub.post_comment(7, body("same"), key="default")
    assert [m for m, *_ in gh.requests].count("PATCH") == 0


def test_sticky_comment__found_beyond_the_first_page_and_only_if_ours(gh: GitHubFake) -> None:
    human = {"login": "alice", "id": 5, "type": "User"}
    gh.add_comment(REPO, 7, body("a human quoting our marker"), human)
    for i in range(150):
        gh.add_comment(REPO, 7, f"chatter {i}", human)
    gh.add_comment(REPO, 7, body("ours, old"), dict(gh.comment_author))
    publisher(gh).post_comment(7, body("ours, new"), key="default")
    bodies = [c["body"] for c in gh.comments[(REPO, 7)]]
    assert bodies[0] == body("a human quoting our marker")
    assert bodies[-1] == body("ours, new")
    assert len(bodies) == 152


def test_sticky_comment__keys_keep_comments_apart(gh: GitHubFake) -> None:
    pub = publisher(gh)
    pub.post_comment(7, body("a", "suite-a"), key="suite-a")
    pub.post_comment(7, body("b", "suite-b"), key="suite-b")
    assert len(gh.comments[(REPO, 7)]) == 2


def test_comment_without_marker_is_refused(gh: GitHubFake) -> None:
    with pytest.raises(ValueError, match="marker"):
        publisher(gh).post_comment(7, "no marker", key="default")


def test_patch_is_retried_on_502_then_gives_a_clear_error(gh: GitHubFake) -> None:
    pub = publisher(gh)
    pub.post_comment(7, body("one"), key="default")
    gh.fail_next("PATCH", f"/repos/{REPO}/issues/comments/", [502, 502])
    pub.post_comment(7, body("two"), key="default")
    assert gh.comments[(REPO, 7)][0]["body"] == body("two")
    gh.fail_next("PATCH", f"/repos/{REPO}/issues/comments/", [502] * 4)
    with pytest.raises(GitHubWriteError, match="editing the PR comment failed \\(502\\)"):
        pub.post_comment(7, body("three"), key="default")


def test_check_run__annotations_fifty_per_request(gh: GitHubFake) -> None:
    pub = publisher(gh)
    check = pub.start_check("evolve", "a" * 40, details_url="https://ci.example/run/1")
    notes = [
        {
            "path": "evals/a/evals.json",
            "start_line": i,
            "end_line": i,
            "annotation_level": "failure",
            "message": f"m{i}",
        }
        for i in range(1, 121)
    ]
    pub.finish_check(
        check, conclusion="failure", title="1 regressed", summary="s", annotations=notes
    )
    run = gh.check_runs[0]
    assert run["head_sha"] == "a" * 40 and run["status"] == "completed"
    assert run["conclusion"] == "failure"
    assert len(run["annotations"]) == 120
    patches = [b for m, p, b in gh.requests if m == "PATCH" and "/check-runs/" in p]
    assert [len(b["output"].get("annotations", [])) for b in patches] == [50, 50, 20]


def test_commit_status__description_cut_to_140(gh: GitHubFake) -> None:
    publisher(gh).set_status(
        "b" * 40, state="success", context="evolve", description="x" * 300, target_url=None
    )
    assert len(gh.statuses[0]["description"]) == 140
