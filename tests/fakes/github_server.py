"""A loopback fake of the GitHub REST endpoints the bot uses, for the real PyGithub client.

    with GitHubFake() as gh:
        client = make_client("t", api_url=gh.url, throttle=False)
        ...
        gh.comments[("o/r", 7)]      # comments of PR 7, oldest first
        gh.check_runs                # every check run, with all PATCHed fields and annotations
        gh.requests                  # (method, path, json body) of every request, in order
        gh.fail_next("PATCH", "/repos/o/r/issues/comments/", [502, 502])  # fault injection
        gh.read_only = True          # 403 to every write, as a fork PR's token gets
        gh.pull_files[("o/r", 7)]    # the PR files API's answer ({filename, status, patch})
        gh.reviews[("o/r", 7)]       # pull-request reviews; their inline comments in
        gh.review_comments           # (every one, with `pull_request_review_id`)
        gh.permissions["ada"] = "write"   # collaborators' permission; anyone else: 404
        gh.reactions[1001]           # reactions on comment 1001, in order ("eyes", "rocket")
        gh.add_pull("o/r", 7, sha, head_repo="fork/r")   # GET pulls/7; move it: set_head
        gh.issues[("o/r", 500)]      # issues (not PRs) opened through the API, numbered from 500;
                                     # their comments are in gh.comments like a PR's

Comments are paginated with `Link` headers like GitHub's (`per_page` honoured). `GET /user`
answers 403, as it does for a workflow token, unless `user_login` is set.
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

BOT = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}


@dataclass
class GitHubFake:
    user_login: str | None = None
    comment_author: dict[str, Any] = field(default_factory=lambda: dict(BOT))
    comments: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    check_runs: list[dict[str, Any]] = field(default_factory=list)
    statuses: list[dict[str, Any]] = field(default_factory=list)
    requests: list[tuple[str, str, Any]] = field(default_factory=list)
    faults: list[tuple[str, str, list[int]]] = field(default_factory=list)
    pulls: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    read_only: bool = False
    pull_files: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    reviews: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    review_comments: list[dict[str, Any]] = field(default_factory=list)
    permissions: dict[str, str] = field(default_factory=dict)
    reactions: dict[int, list[str]] = field(default_factory=dict)
    issues: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._ids = itertools.count(1000)
        self._issue_numbers = itertools.count(500)  # apart from the PR numbers tests use
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # --- lifecycle -------------------------------------------------------------------------

    def __enter__(self) -> GitHubFake:
        fake = self

        class Handler(_Handler):
            owner = fake

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # --- helpers for tests -----------------------------------------------------------------

    def add_pull(
        self,
        repo: str,
        number: int,
        head_sha: str,
        *,
        head_repo: str | None = None,
        base_sha: str = "0" * 40,
        state: str = "open",
    ) -> None:
        """A pull request from `head_repo` (default: `repo` itself; "" a deleted fork)."""
        head_repo = repo if head_repo is None else head_repo
        self.pulls[(repo, number)] = {
            "number": number,
            "state": state,
            "url": f"{self.url}/repos/{repo}/pulls/{number}",
            "head": {
                "sha": head_sha,
                "ref": "feature",
                "repo": {"full_name": head_repo} if head_repo else None,
            },
            "base": {"sha": base_sha, "ref": "main", "repo": {"full_name": repo}},
        }

    def set_head(self, repo: str, number: int, head_sha: str) -> None:
        """A push to the pull request's branch."""
        with self._lock:
            self.pulls[(repo, number)]["head"]["sha"] = head_sha

    def checks_on(self, sha: str) -> list[dict[str, Any]]:
        return [run for run in self.check_runs if run.get("head_sha") == sha]

    def fail_next(self, method: str, path_prefix: str, statuses: list[int]) -> None:
        self.faults.append((method, path_prefix, list(statuses)))

    def add_comment(self, repo: str, number: int, body: str, user: dict[str, Any]) -> None:
        with self._lock:
            self._new_comment(repo, number, body, user)

    def _new_comment(
        self, repo: str, number: int, body: str, user: dict[str, Any]
    ) -> dict[str, Any]:
        cid = next(self._ids)
        comment = {
            "id": cid,
            "body": body,
            "user": user,
            "url": f"{self.url}/repos/{repo}/issues/comments/{cid}",
            "html_url": f"https://github.example/{repo}/pull/{number}#issuecomment-{cid}",
        }
        self.comments.setdefault((repo, number), []).append(comment)
        return comment

    def _fault(self, method: str, path: str) -> int | None:
        for entry in self.faults:
            if entry[0] == method and path.startswith(entry[1]) and entry[2]:
                return entry[2].pop(0)
        return None

    # --- routing ---------------------------------------------------------------------------

    def handle(
        self, method: str, path: str, query: dict[str, list[str]], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        with self._lock:
            self.requests.append((method, path, body))
            fault = self._fault(method, path)
            if fault is not None:
                return fault, {"message": f"injected {fault}"}, {}
            if self.read_only and method != "GET":
                return 403, {"message": "Resource not accessible by integration"}, {}
            parts = path.strip("/").split("/")
            if path == "/user":
                if self.user_login is None:
                    return 403, {"message": "Resource not accessible by integration"}, {}
                return 200, {"login": self.user_login, "id": 1, "type": "User"}, {}
            if len(parts) < 3 or parts[0] != "repos":
                return 404, {"message": "Not Found"}, {}
            repo, rest = f"{parts[1]}/{parts[2]}", parts[3:]
            return self._repo(method, repo, rest, query, body)

    def _repo(
        self, method: str, repo: str, rest: list[str], query: dict[str, list[str]], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        if rest[:1] == ["pulls"] and len(rest) >= 3 and rest[1].isdigit():
            return self._pull(method, repo, int(rest[1]), rest[2:], body)
        if rest[:2] == ["pulls", "comments"] and len(rest) == 3:
            return self._review_comment(method, int(rest[2]), body)
        if rest[:1] == ["pulls"] and len(rest) == 2 and method == "GET":
            pull = self.pulls.get((repo, int(rest[1])))
            return (200, pull, {}) if pull else (404, {"message": "Not Found"}, {})
        if rest[:1] == ["collaborators"] and rest[2:] == ["permission"] and method == "GET":
            permission = self.permissions.get(rest[1])
            if permission is None:
                return 404, {"message": f"{rest[1]} is not a user"}, {}
            # The legacy field folds maintain into write; role_name keeps the role's own name.
            legacy = "write" if permission == "maintain" else permission
            user = {"login": rest[1], "id": 7, "type": "User"}
            return 200, {"permission": legacy, "role_name": permission, "user": user}, {}
        if rest[:2] == ["issues", "comments"] and rest[3:] == ["reactions"] and method == "POST":
            cid = int(rest[2])
            self.reactions.setdefault(cid, []).append(body["content"])
            reaction = {"id": next(self._ids), "content": body["content"], "user": BOT}
            return 201, reaction, {}
        if rest[:1] == ["commits"] and rest[2:] == ["check-runs"] and method == "GET":
            name = query.get("check_name", [None])[0]
            named = [r for r in self.checks_on(rest[1]) if name in (None, r.get("name"))]
            runs = named[::-1]  # newest first
            return 200, {"total_count": len(runs), "check_runs": runs}, {}
        if rest[:1] == ["issues"] and (len(rest) == 1 or (len(rest) == 2 and rest[1].isdigit())):
            return self._issue(method, repo, rest, query, body)
        if rest[:1] == ["issues"] and len(rest) == 3 and rest[2] == "comments":
            number = int(rest[1])
            if method == "GET":
                return self._page(repo, number, query)
            return 201, self._new_comment(repo, number, body["body"], self.comment_author), {}
        if rest[:2] == ["issues", "comments"] and method == "PATCH":
            for comments in self.comments.values():
                for comment in comments:
                    if comment["id"] == int(rest[2]):
                        comment["body"] = body["body"]
                        return 200, comment, {}
            return 404, {"message": "Not Found"}, {}
        if rest == ["check-runs"] and method == "POST":
            cid = next(self._ids)
            run = dict(body, id=cid, url=f"{self.url}/repos/{repo}/check-runs/{cid}")
            run.setdefault("status", "queued")  # GitHub's default
            run["annotations"] = list((body.get("output") or {}).get("annotations") or [])
            self.check_runs.append(run)
            return 201, run, {}
        if rest[:1] == ["check-runs"] and method == "PATCH":
            for run in self.check_runs:
                if run["id"] == int(rest[1]):
                    output = body.get("output") or {}
                    run["annotations"].extend(output.get("annotations") or [])
                    run.update({k: v for k, v in body.items() if k != "output"})
                    run["output"] = {k: v for k, v in output.items() if k != "annotations"}
                    return 200, run, {}
            return 404, {"message": "Not Found"}, {}
        if rest[:1] == ["statuses"] and method == "POST":
            status = dict(body, sha=rest[1], id=next(self._ids))
            self.statuses.append(status)
            return 201, status, {}
        return 404, {"message": f"Not Found: {method} {'/'.join(rest)}"}, {}

    def add_issue(self, repo: str, title: str, body: str, user: dict[str, Any]) -> dict[str, Any]:
        """An issue someone opened (not through the API under test)."""
        with self._lock:
            return self._new_issue(repo, {"title": title, "body": body}, user)

    def _new_issue(self, repo: str, body: Any, user: dict[str, Any]) -> dict[str, Any]:
        number = next(self._issue_numbers)
        issue = {
            "id": next(self._ids),
            "number": number,
            "title": body["title"],
            "body": body.get("body") or "",
            "state": "open",
            "state_reason": None,
            "user": user,
            "labels": [],
            "comments": 0,
            "url": f"{self.url}/repos/{repo}/issues/{number}",
            "html_url": f"https://github.example/{repo}/issues/{number}",
        }
        self.issues[(repo, number)] = issue
        return issue

    def _issue(
        self, method: str, repo: str, rest: list[str], query: dict[str, list[str]], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        """List, open, read and edit issues (one page: tests keep them few)."""
        if len(rest) == 1 and method == "GET":
            state = query.get("state", ["open"])[0]
            mine = [i for (r, _), i in self.issues.items() if r == repo]
            return 200, [i for i in mine if state in ("all", i["state"])][::-1], {}
        if len(rest) == 1 and method == "POST":
            return 201, self._new_issue(repo, body, self.comment_author), {}
        issue = self.issues.get((repo, int(rest[1])))
        if issue is None:
            return 404, {"message": "Not Found"}, {}
        if method == "GET":
            return 200, issue, {}
        if method == "PATCH":
            issue.update({k: v for k, v in body.items() if k in ("title", "body", "state")})
            if body.get("state") == "closed":
                issue["state_reason"] = body.get("state_reason") or "completed"
            return 200, issue, {}
        return 404, {"message": f"Not Found: {method} issues/{rest[1]}"}, {}

    def _pull(
        self, method: str, repo: str, number: int, rest: list[str], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        """Files and reviews of a pull request (one page each: tests keep them short)."""
        pull_url = f"{self.url}/repos/{repo}/pulls/{number}"
        reviews = self.reviews.setdefault((repo, number), [])
        if rest == ["files"] and method == "GET":
            return 200, self.pull_files.get((repo, number), []), {}
        if rest == ["reviews"] and method == "GET":
            return 200, reviews, {}
        if rest == ["reviews"] and method == "POST":
            rid = next(self._ids)
            review = {
                "id": rid,
                "body": body.get("body") or "",
                "user": self.comment_author,
                "state": "COMMENTED" if body.get("event") == "COMMENT" else "PENDING",
                "commit_id": body.get("commit_id") or "",
                "pull_request_url": pull_url,
                "html_url": f"https://github.example/{repo}/pull/{number}#pullrequestreview-{rid}",
            }
            reviews.append(review)
            for comment in body.get("comments") or []:
                cid = next(self._ids)
                self.review_comments.append(
                    dict(
                        comment,
                        id=cid,
                        pull_request_review_id=rid,
                        commit_id=review["commit_id"],
                        original_line=comment.get("line"),
                        user=self.comment_author,
                        pull_request_url=pull_url,
                        url=f"{self.url}/repos/{repo}/pulls/comments/{cid}",
                    )
                )
            return 200, review, {}
        if rest[:1] == ["reviews"] and len(rest) >= 2:
            review = next((r for r in reviews if r["id"] == int(rest[1])), None)
            if review is None:
                return 404, {"message": "Not Found"}, {}
            if len(rest) == 2 and method == "GET":
                return 200, review, {}
            if len(rest) == 2 and method == "PUT":
                review["body"] = body["body"]
                return 200, review, {}
            if rest[2:] == ["comments"] and method == "GET":
                mine = [
                    c for c in self.review_comments if c["pull_request_review_id"] == review["id"]
                ]
                return 200, mine, {}
        return 404, {"message": f"Not Found: {method} pulls/{number}/{'/'.join(rest)}"}, {}

    def _review_comment(self, method: str, cid: int, body: Any) -> tuple[int, Any, dict[str, str]]:
        for comment in self.review_comments:
            if comment["id"] == cid:
                if method == "DELETE":
                    self.review_comments.remove(comment)
                    return 204, None, {}
                if method == "PATCH":
                    comment["body"] = body["body"]
                    return 200, comment, {}
        return 404, {"message": "Not Found"}, {}

    def _page(
        self, repo: str, number: int, query: dict[str, list[str]]
    ) -> tuple[int, Any, dict[str, str]]:
        items = self.comments.get((repo, number), [])
        per_page = int(query.get("per_page", ["30"])[0])
        page = int(query.get("page", ["1"])[0])
        chunk = items[(page - 1) * per_page : page * per_page]
        headers: dict[str, str] = {}
        last = max(1, -(-len(items) // per_page))
        if page < last:
            base = f"{self.url}/repos/{repo}/issues/{number}/comments?per_page={per_page}"
            headers["Link"] = (
                f'<{base}&page={page + 1}>; rel="next", <{base}&page={last}>; rel="last"'
            )
        return 200, chunk, headers


class _Handler(BaseHTTPRequestHandler):
    owner: GitHubFake
    protocol_version = "HTTP/1.1"
    wbufsize = -1  # one write per response: no Nagle/delayed-ACK stalls on keep-alive

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *_args: object) -> None:
        pass

    def _serve(self, method: str) -> None:
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        status, payload, headers = self.owner.handle(
            method, split.path, parse_qs(split.query), body
        )
        data = b"" if status == 204 else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_DELETE(self) -> None:
        self._serve("DELETE")
