"""Shared set-up for the reliability tests: a small skill repository, the container's
environment, the CLI as a subprocess, and a GitHub fake with richer fault injection.

Everything here is deterministic: faults are scheduled by request number, never by time.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.actions import PR as PR
from tests.actions import REPO as REPO
from tests.actions import pull_request_event, runner_env
from tests.fakes.github_server import GitHubFake, _Handler
from tests.fakes.scripts import skill_follower
from tests.gitrepo import commit_base, git, put

SKILL = "---\nname: greeter\ndescription: greeter writes a message file.\n---\nWrite `{msg}`.\n"
# A generous limit that only matters when something hangs.
CLI_TIMEOUT_S = 120


def case(case_id: str, pattern: str) -> dict[str, object]:
    """A case whose regex decides pass/fail and whose one expectation the judge grades."""
    return {
        "id": case_id,
        "prompt": f"Write the message for Ada ({case_id}).",
        "expectations": ["The message file exists."],
        "assertions": [{"type": "regex", "path": "message.txt", "pattern": pattern}],
    }


def evals(*cases: dict[str, object]) -> str:
    return json.dumps({"evals": list(cases)}, indent=2)


# One case passes on both sides, one fails on both: the expected verdicts never depend on
# which provider answered or how often it had to be asked.
CASES = (case("hello", "^Hello, Ada!$"), case("shout", "^HELLO ADA$"))


def make_repo(
    root: Path, *, cases: tuple[dict[str, object], ...] = CASES, head_msg: str = "Hello, Ada!"
) -> tuple[str, str]:
    """A git repository with a base and a head commit; returns (base sha, head sha).

    The head's skill writes `head_msg`: "HELLO ADA" makes `hello` regress and `shout` improve.
    """
    put(root, ".claude-plugin/plugin.json", '{"name": "demo"}')
    put(root, "skills/greeter/SKILL.md", SKILL.format(msg="Hello, Ada!"))
    put(root, "evals/greeter/evals.json", evals(*cases))
    base = commit_base(root)
    put(root, "skills/greeter/SKILL.md", SKILL.format(msg=head_msg) + "\nBe brief.\n")
    git(root, "commit", "-q", "-am", "head")
    return base, git(root, "rev-parse", "HEAD")


agent = skill_follower


def base_env(tmp: Path, llm_urls: tuple[str, str]) -> dict[str, str]:
    """What every CLI run needs: PATH, HOME, fake keys, the fake's URLs, fast retries."""
    anthropic_url, openai_url = llm_urls
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp),
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": anthropic_url,
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_BASE_URL": openai_url,
        "EVOLVE_RETRY_BASE_DELAY_S": "0.01",
        "EVOLVE_REQUEST_TIMEOUT_S": "5",
    }


def actions_env(
    root: Path, tmp: Path, llm_urls: tuple[str, str], gh_url: str, base: str, head: str
) -> dict[str, str]:
    """The container's environment for a `pull_request` event on PR 7 (see tests/e2e)."""
    event = pull_request_event(tmp / "event.json", base, head)
    return {
        **base_env(tmp, llm_urls),
        **runner_env(
            tmp, event_name="pull_request", event=event, workspace=root, sha=head, api_url=gh_url
        ),
        # Scripted commands only; where nothing can confine them the job would refuse to start
        # (tested in tests/e2e/test_confinement_level.py). Changes nothing where it can.
        "INPUT_ALLOW-UNCONFINED": "true",
        "INPUT_MODELS": "anthropic, openai",
        "INPUT_JUDGE-MODEL": "anthropic",
        "INPUT_RUNS": "2",
        "INPUT_MODE": "all",
        "INPUT_CACHE-DIR": str(tmp / "cache"),
        "INPUT_RESULTS-DIR": str(tmp / "results"),
        "INPUT_FAIL-ON-REGRESSION": "true",
    }


def run_cli(
    args: list[str], env: dict[str, str], cwd: Path, *, timeout: float = CLI_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evolve_action", *args],
        env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


FINISHED = ("PASS ", "FAIL ", "ERROR")  # how the CLI's line for one finished run starts


class RunningCli:
    """`python -m evolve_action run` as a child process whose output lines are read as they
    come, so a test can wait for a state (N runs printed, a request seen), then signal it."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "evolve_action", "run"],
            env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()
        self.stderr = ""

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line)
        self._queue.put(None)

    def wait_for_runs(self, count: int) -> None:
        """Until `count` runs have been printed as finished."""
        while sum(line.startswith(FINISHED) for line in self.lines) < count:
            line = self._queue.get(timeout=CLI_TIMEOUT_S)
            assert line is not None, "".join(self.lines) + self._read_stderr()
            self.lines.append(line)

    def signal(self, sig: signal.Signals) -> float:
        self.proc.send_signal(sig)
        return time.monotonic()

    def wait(self, timeout: float) -> int:
        """The exit code, once the process has ended; it is killed if `timeout` runs out."""
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._reader.join(timeout=CLI_TIMEOUT_S)
            while not self._queue.empty():
                line = self._queue.get()
                if line is not None:
                    self.lines.append(line)
            self.stderr = self._read_stderr()
            for pipe in (self.proc.stdout, self.proc.stderr):
                if pipe is not None:
                    pipe.close()

    def _read_stderr(self) -> str:
        return self.proc.stderr.read() if self.proc.stderr and not self.proc.stderr.closed else ""


def until(condition: Callable[[], bool], what: str, timeout: float = CLI_TIMEOUT_S) -> None:
    """Wait for a condition (never for a duration: no race), failing with `what`."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting: {what}"
        time.sleep(0.01)


def outputs(path: Path) -> dict[str, str]:
    pattern = re.compile(r"^([\w-]+)<<(EOF_\w+)\n(.*?)\n\2$", re.M | re.S)
    return {m.group(1): m.group(3) for m in pattern.finditer(path.read_text())}


def results_runs(results_dir: Path) -> list[dict[str, Any]]:
    data = json.loads((results_dir / "results.json").read_text())
    return list(data["runs"])


def run_key(run: dict[str, Any]) -> tuple[str, str, str, str, int]:
    return (run["suite"], run["case_id"], run["model"], run["side"], run["repetition"])


# --- GitHub fake with the faults real GitHub gives -------------------------------------------


@dataclass
class Reply:
    """An injected GitHub answer: a status, the body's message and extra headers."""

    status: int
    message: str = ""
    headers: dict[str, str] = field(default_factory=dict)


SECONDARY_LIMIT = Reply(
    403,
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
    {"retry-after": "1"},
)
BAD_GATEWAY = Reply(502, "Server Error")


@dataclass
class Stalled:
    """One request held without an answer until the fake stops: GitHub hanging mid-write."""

    method: str
    path_prefix: str
    arrived: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)


class FaultyGitHub(GitHubFake):
    """`GitHubFake` plus faults with messages and headers, comment deletion, a barrier
    that holds the first `hold` comment listings until all of them have arrived (so racing
    publishers all see the same, empty, list: the race happens every time, not by luck), and
    stalls (`stall_once`): the first matching request gets no answer and changes nothing.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.replies: list[tuple[str, str, list[Reply]]] = []
        self.barrier: threading.Barrier | None = None
        self.stalls: list[Stalled] = []
        self._held = 0

    def stall_once(self, method: str, path_prefix: str) -> Stalled:
        stall = Stalled(method, path_prefix)
        self.stalls.append(stall)
        return stall

    def __exit__(self, *exc: object) -> None:
        for stall in self.stalls:
            stall.release.set()
        super().__exit__(*exc)

    def fail_with(self, method: str, path_prefix: str, replies: list[Reply]) -> None:
        self.replies.append((method, path_prefix, list(replies)))

    def hold_listings(self, count: int) -> None:
        self.barrier = threading.Barrier(count, timeout=30)

    def __enter__(self) -> FaultyGitHub:
        fake = self

        class Handler(_Handler):
            owner = fake

            def do_DELETE(self) -> None:
                self._serve("DELETE")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def handle(
        self, method: str, path: str, query: dict[str, list[str]], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        with self._lock:
            stall = next(
                (
                    s
                    for s in self.stalls
                    if s.method == method
                    and path.startswith(s.path_prefix)
                    and not s.arrived.is_set()
                ),
                None,
            )
            if stall is not None:
                stall.arrived.set()
                self.requests.append((method, path, body))
        if stall is not None:
            stall.release.wait(CLI_TIMEOUT_S)
            return 504, {"message": "stalled"}, {}
        if method == "GET" and path.endswith(f"/issues/{PR}/comments") and self.barrier:
            with self._lock:
                self._held += 1
                wait = self._held <= self.barrier.parties
            if wait:
                self.barrier.wait()
        with self._lock:
            for entry in self.replies:
                if entry[0] == method and path.startswith(entry[1]) and entry[2]:
                    reply = entry[2].pop(0)
                    self.requests.append((method, path, body))
                    return reply.status, {"message": reply.message}, reply.headers
            if method == "DELETE" and "/issues/comments/" in path:
                self.requests.append((method, path, body))
                return self._delete(path)
        return super().handle(method, path, query, body)

    def _delete(self, path: str) -> tuple[int, Any, dict[str, str]]:
        cid = int(path.rstrip("/").rsplit("/", 1)[-1])
        for comments in self.comments.values():
            for index, comment in enumerate(comments):
                if comment["id"] == cid:
                    del comments[index]
                    return 200, {}, {}  # GitHub says 204; an empty body keeps the fake simple
        return 404, {"message": "Not Found"}, {}
