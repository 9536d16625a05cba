"""The PR bot end to end, run as the container runs it: `INPUT_*` and `GITHUB_*` variables, an
event file, a real git repository with a base and a head commit, and loopback fakes of both
LLM providers and of GitHub. The second run must edit the same comment and make no provider
call at all (an unchanged base and head come from the cache).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.actions import REPO as REPO
from tests.actions import pull_request_event, runner_env
from tests.e2e import openapi_check
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM
from tests.fakes.scripts import skill_follower
from tests.gitrepo import commit_base, git, put

SKILL = "---\nname: {name}\ndescription: {name} writes a message file.\n---\n{body}\n"


def regex_case(case_id: str, pattern: str, *, expectation: str | None = None) -> dict[str, object]:
    case: dict[str, object] = {
        "id": case_id,
        "prompt": f"Write the message for Ada ({case_id}).",
        "assertions": [{"type": "regex", "path": "message.txt", "pattern": pattern}],
    }
    if expectation:
        case["expectations"] = [expectation]
    return case


def evals(*cases: dict[str, object]) -> str:
    return json.dumps({"evals": list(cases)}, indent=2)


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    return make_repo(tmp_path)


def make_repo(tmp_path: Path) -> tuple[Path, str, str]:
    """A plugin repository with a base commit on `main` and a head commit on `feature`."""
    root = tmp_path / "repo"
    put(root, ".claude-plugin/plugin.json", '{"name": "demo"}')
    put(root, "skills/greeter/SKILL.md", SKILL.format(name="greeter", body="Write `Hello, Ada!`."))
    put(root, "skills/farewell/SKILL.md", SKILL.format(name="farewell", body="Write `Bye`."))
    put(root, "evals/greeter/evals.json", evals(
        regex_case("greet", "^Hello, Ada!$", expectation="The message greets Ada by name."),
        regex_case("old", "Ada"),
    ))  # fmt: skip
    put(root, "evals/farewell/evals.json", evals(regex_case("bye", "^Goodbye, Ada!$")))
    base = commit_base(root)
    put(root, "skills/greeter/SKILL.md", SKILL.format(name="greeter", body="SHOUT `HELLO ADA`."))
    put(
        root,
        "skills/farewell/SKILL.md",
        SKILL.format(name="farewell", body="Write `Goodbye, Ada!`."),
    )
    put(root, "evals/greeter/evals.json", evals(
        regex_case("greet", "^Hello, Ada!$", expectation="The message greets Ada by name."),
        regex_case("new", "ADA"),
    ))  # fmt: skip
    git(root, "commit", "-q", "-am", "head")
    return root, base, git(root, "rev-parse", "HEAD")


agent = skill_follower


@pytest.fixture
def fakes() -> Iterator[tuple[FakeLLM, GitHubFake]]:
    with FakeLLM(agent) as llm, GitHubFake() as gh:
        yield llm, gh
        assert not llm.script_errors, llm.script_errors


def container_env(
    root: Path, tmp: Path, llm: FakeLLM, gh: GitHubFake, base: str, head: str
) -> dict[str, str]:
    event = pull_request_event(tmp / "event.json", base, head)
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp),
        **runner_env(
            tmp, event_name="pull_request", event=event, workspace=root, sha=head, api_url=gh.url
        ),
        "INPUT_MODELS": "anthropic, openai",
        "INPUT_JUDGE-MODEL": "anthropic",
        "INPUT_RUNS": "4",
        "INPUT_CACHE-DIR": str(tmp / "cache"),
        "INPUT_RESULTS-DIR": str(tmp / "results"),
        "INPUT_FAIL-ON-REGRESSION": "true",
        # Where nothing can confine commands (not root, no bubblewrap) the job would refuse to
        # start; these runs execute only scripted commands. The refusal has its own test
        # (test_confinement_level.py); where confinement works, this input changes nothing.
        "INPUT_ALLOW-UNCONFINED": "true",
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": llm.anthropic_base_url,
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_BASE_URL": llm.openai_base_url,
    }


# Below pytest's own limit (300 s), so a run that hangs is stopped here, where its stacks can
# still be read, instead of by pytest, which shows only the test process's threads.
RUN_LIMIT_S = 240


def run_container(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "evolve_action", "run"]
    # faulthandler prints every thread's stack on SIGABRT: the one clue a hang leaves.
    child = subprocess.Popen(
        args, env={**env, "PYTHONFAULTHANDLER": "1"}, cwd=cwd,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        out, err = child.communicate(timeout=RUN_LIMIT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(_hung(child))
    return subprocess.CompletedProcess(args, child.returncode, out, err)


def _hung(child: subprocess.Popen[str]) -> str:
    """What can be learnt of a run that did not finish: its threads' stacks if it is still
    running, else which processes it left holding its output open (`communicate` waits for
    them too)."""
    if child.poll() is None:
        child.send_signal(signal.SIGABRT)
        why = f"the run was still going after {RUN_LIMIT_S} s; its stacks"
    else:
        ps = subprocess.run(["ps", "-eo", "pid,ppid,etime,args"], capture_output=True, text=True)
        why = f"the run exited ({child.returncode}), its output still open; processes:\n{ps.stdout}"
    try:
        out, err = child.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        child.kill()
        out = err = "(its output never closed)"
    return f"{why}:\n{(err or '')[-20000:]}\n{(out or '')[-4000:]}"


def outputs(path: Path) -> dict[str, str]:
    pattern = re.compile(r"^([\w-]+)<<(EOF_\w+)\n(.*?)\n\2$", re.M | re.S)
    return {m.group(1): m.group(3) for m in pattern.finditer(path.read_text())}


def test_pull_request__comment_check_outputs_summary_then_cached_rerun(
    repo: tuple[Path, str, str], fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    root, base, head = repo
    llm, gh = fakes
    env = container_env(root, tmp_path, llm, gh, base, head)

    first = run_container(env, root)
    assert first.returncode == 1, first.stdout + first.stderr  # greeter regressed: gate fails

    comments = gh.comments[(REPO, 7)]
    assert len(comments) == 1
    body = comments[0]["body"]
    assert body.startswith("<!-- evolve:sticky key=default -->")
    assert "regressed" in body.split("\n", 3)[1]  # the headline says it in words
    assert f"https://github.example/{REPO}/blob/{head}/evals/greeter/evals.json#L" in body
    assert "`greet`" in body and "4/4" in body and "0/4" in body
    assert "Improved" in body and "`bye`" in body
    assert "New" in body and "`new`" in body
    assert "Removed" in body and "`old`" in body
    assert "No item checks that the greeting names the guest." in body  # judge suggestion

    (check,) = gh.check_runs
    assert check["head_sha"] == head and check["name"] == "evolve"
    assert check["status"] == "completed" and check["conclusion"] == "failure"
    paths = {a["path"] for a in check["annotations"]}
    assert "evals/greeter/evals.json" in paths

    out = outputs(tmp_path / "output")
    assert out["conclusion"] == "failure"
    assert int(out["regressions"]) >= 1
    assert out["comment-url"].endswith(f"#issuecomment-{comments[0]['id']}")
    # Like with like: the cases graded on both sides (greet, bye), one passing on each side;
    # `old` (base only) and `new` (head only) are not in either rate.
    assert (out["base-pass-rate"], out["pass-rate"]) == ("0.5000", "0.5000")
    summary = (tmp_path / "summary").read_text()
    assert "evolve" in summary and "`greet`" in summary
    assert (tmp_path / "results/results.json").is_file()

    calls_before = len(llm.requests)
    second = run_container(env, root)
    assert second.returncode == 1, second.stdout + second.stderr
    assert len(llm.requests) == calls_before  # base and head unchanged: everything cached
    assert len(gh.comments[(REPO, 7)]) == 1  # the same comment, edited in place
    assert len(gh.check_runs) == 2  # one check run per job
    assert gh.check_runs[-1]["conclusion"] == "failure"
    if openapi_check.available():  # test_pull_request_paths.py says so when it is absent
        openapi_check.assert_valid(gh.requests)  # every request valid for GitHub's description
