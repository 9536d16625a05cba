"""What the watch tests share: a default branch with two skills, a model that can start failing
one case behind the same alias, and the environment of a scheduled run."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from tests.actions import runner_env
from tests.e2e.test_pull_request import SKILL, evals, regex_case
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import Answer, FakeLLM, Fault, Request, call, text
from tests.fakes.scripts import grading, tool_names, user_text
from tests.gitrepo import commit_base, git, put

NEW_SNAPSHOT = "claude-sonnet-4-6-20270101"


def make_main(tmp: Path) -> tuple[Path, str]:
    """A repository on `main` whose skills pass every case; its commit."""
    root = tmp / "repo"
    put(root, ".claude-plugin/plugin.json", '{"name": "demo"}')
    put(root, "skills/greeter/SKILL.md", SKILL.format(name="greeter", body="Write `Hello, Ada!`."))
    put(root, "skills/farewell/SKILL.md", SKILL.format(name="farewell", body="Write `Bye, Ada`."))
    put(root, "evals/greeter/evals.json", evals(
        regex_case("greet", "^Hello, Ada!$"), regex_case("named", "Ada"),
    ))  # fmt: skip
    put(root, "evals/farewell/evals.json", evals(regex_case("bye", "^Bye, Ada$")))
    commit_base(root, branch="next")
    return root, git(root, "rev-parse", "HEAD")


class Model:
    """An agent that follows the one skill installed; `broken` makes it botch case `bye`
    only; `errors` makes every call fail (a 400: no retry, an error run, never a failure)."""

    def __init__(self) -> None:
        self.broken = False
        self.errors = False

    def __call__(self, request: Request) -> Answer:
        if self.errors:
            return Fault(400, message="the provider is down for this test")
        if "submit_grading" in tool_names(request):
            return grading(request)
        if user_text(request).strip() == "ping":
            return text("pong")
        system = json.dumps(request.body.get("system", "")) + json.dumps(request.messages[:1])
        skill = "farewell" if "- farewell:" in system else "greeter"
        if request.turn == 0:
            return call("Skill", skill=skill)
        if request.turn == 1:
            found = re.search(r"Write `([^`]+)`", " ".join(request.tool_results))
            content = found.group(1) if found else "?"
            if self.broken and "(bye)" in user_text(request):
                content = "Later."
            return call("Write", file_path="message.txt", content=content + "\n")
        return text("Done.")


def watch_env(
    root: Path, tmp: Path, llm: FakeLLM, gh: GitHubFake, sha: str, *, runs: int = 6
) -> dict[str, str]:
    """A `schedule` run of `mode: watch` on `sha`, with a run cache and a history checkout."""
    event = tmp / "event.json"
    event.write_text(json.dumps({"schedule": "0 6 * * 1"}))
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp),
        **runner_env(
            tmp, event_name="schedule", event=event, workspace=root, sha=sha, api_url=gh.url
        ),
        "INPUT_MODE": "watch",
        "INPUT_MODELS": "anthropic",
        "INPUT_JUDGE-MODEL": "anthropic",
        "INPUT_RUNS": str(runs),
        "INPUT_CACHE-DIR": str(tmp / "cache"),
        "INPUT_RESULTS-DIR": str(tmp / "results"),
        "INPUT_HISTORY-DIR": str(tmp / "history"),
        "INPUT_ALLOW-UNCONFINED": "true",
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": llm.anthropic_base_url,
    }


def history_lines(tmp: Path) -> list[dict[str, Any]]:
    """Each line's facts, with its cells as [suite, case, model, fingerprint, passed, failed,
    errored] under "cells" (the file keeps them after a tab, by index)."""
    path = tmp / "history/history.jsonl"
    if not path.is_file():
        return []
    out = []
    for line in path.read_text().splitlines():
        head, _, tail = line.partition("\t")
        suites, models, cells = json.loads(tail)
        rows = [[suites[c[0]], c[1], models[c[2]], *c[3:]] for c in cells]
        out.append(json.loads(head) | {"cells": rows})
    return out


def write_history(tmp: Path, lines: list[dict[str, Any]]) -> None:
    """Lines as `history_lines` reads them, back into the file."""
    text = ""
    for doc in lines:
        suites = sorted({c[0] for c in doc["cells"]})
        models = sorted({c[2] for c in doc["cells"]})
        cells = [[suites.index(c[0]), c[1], models.index(c[2]), *c[3:]] for c in doc["cells"]]
        head = {k: v for k, v in doc.items() if k != "cells"}
        text += json.dumps(head) + "\t" + json.dumps([suites, models, cells]) + "\n"
    (tmp / "history").mkdir(exist_ok=True)
    (tmp / "history/history.jsonl").write_text(text)


def new_summary(tmp: Path) -> str:
    """The job summary of the last run (the file is emptied for the next)."""
    path = tmp / "summary"
    text_ = path.read_text()
    path.write_text("")
    return text_
