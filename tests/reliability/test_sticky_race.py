"""Five jobs publishing to the same pull request at once end with exactly one sticky comment.

Each publisher has its own client, as separate jobs would. The GitHub fake holds the first
five comment listings until all five have arrived, so every publisher sees "no comment yet"
and creates one: the race is provoked every time, not left to scheduling luck.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from evolve_action.publish.github_api import Publisher, make_client
from evolve_action.publish.render.escape import marker
from tests.reliability.helpers import PR, REPO, FaultyGitHub

RACERS = 5


def publish_all(gh: FaultyGitHub, bodies: list[str]) -> list[str]:
    publishers = [Publisher(make_client("t", api_url=gh.url, throttle=False), REPO) for _ in bodies]
    with ThreadPoolExecutor(len(bodies)) as pool:
        futures = [
            pool.submit(p.post_comment, PR, body, key="default")
            for p, body in zip(publishers, bodies, strict=True)
        ]
        return [f.result(timeout=60) for f in futures]


def test_sticky_race__five_concurrent_publishers_leave_exactly_one_comment() -> None:
    bodies = [f"{marker('default')}\nresults of job {i}" for i in range(RACERS)]
    with FaultyGitHub() as gh:
        gh.add_comment(REPO, PR, "LGTM", {"login": "octocat", "id": 1, "type": "User"})
        gh.hold_listings(RACERS)
        urls = publish_all(gh, bodies)

        ours = [c for c in gh.comments[(REPO, PR)] if marker("default") in c["body"]]
        assert len(ours) == 1, [c["body"] for c in ours]
        (kept,) = ours
        assert kept["body"] in bodies  # one job's whole report, not a mix
        assert set(urls) == {kept["html_url"]}  # every job links the surviving comment
        assert gh.comments[(REPO, PR)][0]["body"] == "LGTM"  # others untouched

        # A later job finds the one comment and edits it in place.
        later = Publisher(make_client("t", api_url=gh.url, throttle=False), REPO)
        gh.barrier = None
        assert later.post_comment(PR, bodies[0] + "\nagain", key="default") == kept["html_url"]
        ours = [c for c in gh.comments[(REPO, PR)] if marker("default") in c["body"]]
        assert [c["body"] for c in ours] == [bodies[0] + "\nagain"]


def test_sticky_race__other_keys_and_other_authors_are_never_deleted() -> None:
    bodies = [f"{marker('default')}\njob {i}" for i in range(RACERS)]
    with FaultyGitHub() as gh:
        other_key = f"{marker('nightly')}\nnightly report"
        gh.add_comment(REPO, PR, other_key, dict(gh.comment_author))
        quoted = f"quoting the bot: {marker('default')}"
        gh.add_comment(REPO, PR, quoted, {"login": "octocat", "id": 1, "type": "User"})
        gh.hold_listings(RACERS)
        publish_all(gh, bodies)
        remaining = [c["body"] for c in gh.comments[(REPO, PR)]]
    assert remaining[:2] == [other_key, quoted]
    assert len(remaining) == 3 and remaining[2] in bodies
