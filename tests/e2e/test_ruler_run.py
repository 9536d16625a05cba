"""A pull request cannot hide a regression by weakening its own evals (issue 26), end to end:
`evolve-action run` on a pull request as the container runs it, against the loopback LLM and
GitHub fakes and the scripted agent of `test_pull_request` (it writes what the skill says).

On base, `greeter` writes `Hello, Ada!` and every check passes. Each scenario's head edits the
skill, its evals, or both, and must end with the expected exit code, check conclusion and
comment line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import jsonschema
import pytest

from evolve_action.publish.results.load import schema_path
from tests.e2e.test_pull_request import REPO, SKILL, agent, container_env, evals, run_container
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import Answer, FakeLLM, Request, text
from tests.fakes.scripts import tool_names
from tests.gitrepo import git, put

GOOD = SKILL.format(name="greeter", body="Write `Hello, Ada!`.")
BROKEN = SKILL.format(name="greeter", body="SHOUT `HI`.")
EVALS = "evals/greeter/evals.json"
PROMPT = "Write the message for Ada (status-file)."
REGEX = {"type": "regex", "path": "message.txt", "pattern": "^Hello, Ada!$"}
EXISTS = {"type": "file_exists", "path": "message.txt"}


def case(case_id: str, *assertions: dict[str, str], prompt: str = PROMPT) -> dict[str, object]:
    return {"id": case_id, "prompt": prompt, "assertions": list(assertions)}


KEEP = case("keep", {"type": "regex", "path": "message.txt", "pattern": "."}, prompt="Say it.")
BASE_EVALS = evals(case("status-file", REGEX, EXISTS), KEEP)


def answering(request: Request) -> Answer:
    """`test_pull_request.agent`, whose last answer is also the message (AgentV and clauditor
    check the answer, evolve's regex the file)."""
    if "submit_grading" in tool_names(request) or request.turn < 2:
        return agent(request)
    found = re.search(r"(?:Write|SHOUT) `([^`]+)`", json.dumps(request.messages))
    return text(found.group(1) if found else "?")


@pytest.fixture
def fakes() -> Iterator[tuple[FakeLLM, GitHubFake]]:
    with FakeLLM(answering) as llm, GitHubFake() as gh:
        yield llm, gh
        assert not llm.script_errors, llm.script_errors


Job = tuple[int, str, str, dict[str, object]]  # exit code, conclusion, comment, results.json


def pull_request(
    tmp_path: Path,
    fakes: tuple[FakeLLM, GitHubFake],
    *,
    skill: str,
    head_evals: str,
    path: str = EVALS,
    base_evals: str = BASE_EVALS,
    runs: str = "4",
) -> Callable[[], Job]:
    """A repository whose head commit has `skill` and `head_evals`; returns the job to run
    (again and again: a second push of the same commits)."""
    root = tmp_path / "repo"
    put(root, ".claude-plugin/plugin.json", '{"name": "demo"}')
    put(root, "skills/greeter/SKILL.md", GOOD)
    put(root, path, base_evals)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    base = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "-b", "feature")
    put(root, "skills/greeter/SKILL.md", skill)
    put(root, path, head_evals)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "head")
    return job_for(tmp_path, fakes, root, base, git(root, "rev-parse", "HEAD"), runs)


def job_for(
    tmp_path: Path,
    fakes: tuple[FakeLLM, GitHubFake],
    root: Path,
    base: str,
    head: str,
    runs: str = "4",
) -> Callable[[], Job]:
    """The pull-request job of `base`..`head` (the same cache, results and comment)."""
    llm, gh = fakes
    env = container_env(root, tmp_path, llm, gh, base, head)
    env["INPUT_MODELS"] = "anthropic"
    env["INPUT_RUNS"] = runs

    def job() -> Job:
        done = run_container(env, root)
        body = gh.comments[(REPO, 7)][-1]["body"]
        check = gh.check_runs[-1]
        assert check["output"]["title"] in body.split("\n", 2)[1]
        results = json.loads((tmp_path / "results/results.json").read_text())
        schema = json.loads(schema_path().read_text())
        jsonschema.Draft202012Validator(schema).validate(results)  # `ruler`, `case_changes`
        assert done.returncode in (0, 1), done.stderr[-3000:]
        return done.returncode, str(check["conclusion"]), body, results

    return job


def section(body: str, heading: str) -> str:
    start = body.index(heading)
    end = body.find("\n**", start + len(heading))
    return body[start : end if end > 0 else None]


HIDDEN = "**▼ Regressed under the checks this PR removed or relaxed**"


def test_deleting_the_assertion_that_caught_the_break_is_red_and_names_it(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    job = pull_request(
        tmp_path, fakes, skill=BROKEN, head_evals=evals(case("status-file", EXISTS), KEEP)
    )
    code, conclusion, body, _ = job()
    assert (code, conclusion) == (1, "failure")
    assert body.split("\n", 2)[1] == "### ❌ evolve: 1 eval regressed"
    hidden = section(body, HIDDEN)
    assert "`status-file` on anthropic/" in hidden and "4/4 → 0/4 under base's checks" in hidden
    assert "(head's own checks: 4/4" in hidden
    assert "removed: `message.txt matches /^Hello, Ada!$/`" in hidden
    assert "**▼ Regressed**" not in body  # head's own checks show nothing
    assert "Put back the checks this PR removed or relaxed, or fix the skill" in body


def test_a_second_push_comes_from_the_cache_with_no_new_agent_call(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    llm, _ = fakes
    job = pull_request(
        tmp_path, fakes, skill=BROKEN, head_evals=evals(case("status-file", EXISTS), KEEP)
    )
    first = job()
    calls = len(llm.requests)
    second = job()
    assert len(llm.requests) == calls  # base's checks' verdicts were cached with the runs
    assert (second[0], second[1]) == (first[0], first[1]) == (1, "failure")
    assert HIDDEN in second[2]
    assert "cached runs reused" in second[2]


def test_loosening_the_regex_is_red(tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]) -> None:
    loose = {**REGEX, "pattern": ".*"}
    job = pull_request(
        tmp_path, fakes, skill=BROKEN, head_evals=evals(case("status-file", loose, EXISTS), KEEP)
    )
    code, conclusion, body, _ = job()
    assert (code, conclusion) == (1, "failure")
    assert "regex /^Hello, Ada!$/ → /.*/" in section(body, HIDDEN)


def test_deleting_the_case_lists_it_as_removed_while_passing(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    job = pull_request(tmp_path, fakes, skill=BROKEN, head_evals=evals(KEEP))
    code, conclusion, body, results = job()
    assert "**Removed while passing:** greeter / `status-file` (base 4/4 passed, 100%)." in body
    changes = results["settings"]["case_changes"]  # type: ignore[index]
    assert {"change": "removed", "base_case": "status-file", "base_pass_rate": 1.0}.items() <= (
        changes[0].items()
    )
    assert (code, conclusion) == (0, "success")  # no compared eval fell; the list says it


def test_renaming_the_case_with_the_same_task_is_red(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    job = pull_request(
        tmp_path, fakes, skill=BROKEN, head_evals=evals(case("status", REGEX, EXISTS), KEEP)
    )
    code, conclusion, body, _ = job()
    assert (code, conclusion) == (1, "failure")
    hidden = section(body, HIDDEN)
    assert "`status-file` (renamed `status`)" in hidden and "4/4 → 0/4" in hidden


def test_stricter_evals_with_the_skill_unchanged_are_not_red(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    strict = {**REGEX, "pattern": "^Hello, Ada!!$"}  # the unchanged skill now fails it
    job = pull_request(
        tmp_path, fakes, skill=GOOD, head_evals=evals(case("status-file", strict, EXISTS), KEEP)
    )
    code, conclusion, body, _ = job()
    assert (code, conclusion) == (0, "success")
    assert HIDDEN not in body and "**▼ Regressed**" not in body
    assert "not tested: the PR changed only evals" in body
    assert "regex /^Hello, Ada!$/ → /^Hello, Ada!!$/" in body


def test_rewording_the_prompt_is_a_changed_case_not_compared(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    reworded = case("status-file", REGEX, EXISTS, prompt="Greet Ada in message.txt.")
    job = pull_request(tmp_path, fakes, skill=BROKEN, head_evals=evals(reworded, KEEP))
    code, conclusion, body, _ = job()
    assert "greeter / `status-file`: a changed case (prompt changed), not compared" in body
    assert (code, conclusion) == (0, "success")
    assert "**▼ Regressed**" not in body and HIDDEN not in body


def test_weakening_the_evals_on_a_later_push_regrades_the_stored_runs(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    # First push: the skill breaks, the evals stay; the check is red by the evals themselves.
    llm, _ = fakes
    job = pull_request(tmp_path, fakes, skill=BROKEN, head_evals=BASE_EVALS)
    assert job()[:2] == (1, "failure")
    agent_calls = len([r for r in llm.requests if "submit_grading" not in tool_names(r)])
    # Second push: the catching assertion is deleted. Same skill, same task: the stored head
    # runs are graded again with head's and base's checks, and no agent is paid for again.
    root = tmp_path / "repo"
    put(root, EVALS, evals(case("status-file", EXISTS), KEEP))
    git(root, "commit", "-q", "-am", "weaken")
    second = job_for(
        tmp_path, fakes, root, git(root, "rev-parse", "main"), git(root, "rev-parse", "HEAD")
    )
    code, conclusion, body, _ = second()
    assert len([r for r in llm.requests if "submit_grading" not in tool_names(r)]) == agent_calls
    assert (code, conclusion) == (1, "failure")
    assert "removed: `message.txt matches /^Hello, Ada!$/`" in section(body, HIDDEN)
    assert "(head's own checks: 4/4" in body  # head's own checks graded the stored runs anew


def test_under_runs_auto_base_ruler_gets_the_waves_it_needs(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    # The case's own comparison shows nothing (head's relaxed checks pass every run), so only
    # base's ruler can ask for more runs; with its 2 start runs it could flag nothing.
    job = pull_request(
        tmp_path,
        fakes,
        skill=BROKEN,
        head_evals=evals(case("status", EXISTS), KEEP),
        runs="auto",
    )
    code, conclusion, body, results = job()
    assert (code, conclusion) == (1, "failure")
    assert "`status-file` (renamed `status`)" in section(body, HIDDEN)
    head_runs = [r for r in results["runs"] if r["case_id"] == "status"]  # type: ignore[index]
    assert len(head_runs) > 2


def test_base_judge_items_share_the_runs_one_judge_call(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    llm, _ = fakes
    said = "The message greets Ada by name."
    base = evals({**case("status-file", REGEX, EXISTS), "expectations": [said]}, KEEP)
    head = evals({**case("status-file", EXISTS), "expectations": ["A message exists."]}, KEEP)
    job = pull_request(tmp_path, fakes, skill=BROKEN, head_evals=head, base_evals=base)
    code, conclusion, body, _ = job()
    assert (code, conclusion) == (1, "failure")
    hidden = section(body, HIDDEN)
    assert "removed: `message.txt matches /^Hello, Ada!$/`" in hidden
    assert f"“{said}” → “A message exists.”" in hidden
    judged = [r for r in llm.requests if "submit_grading" in tool_names(r)]
    assert len(judged) == 8  # one per run of status-file, base and head: none extra
    both = [json.dumps(r.body) for r in judged if "A message exists." in json.dumps(r.body)]
    assert len(both) == 4 and all(said in b for b in both)  # head's and base's items together


def test_deleting_the_eval_file_lists_its_cases_and_is_not_green(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    pull_request(tmp_path, fakes, skill=BROKEN, head_evals="")  # then the file goes
    root = tmp_path / "repo"
    git(root, "rm", "-q", EVALS)
    git(root, "commit", "-q", "-m", "drop the evals")
    job = job_for(
        tmp_path, fakes, root, git(root, "rev-parse", "main"), git(root, "rev-parse", "HEAD")
    )
    code, conclusion, body, results = job()
    assert (code, conclusion) == (0, "neutral")
    assert body.split("\n", 2)[1] == "### ⚠️ evolve: no eval left to compare (2 removed)"
    assert "**Removed while passing:** greeter / `status-file` (base 4/4 passed, 100%)" in body
    changes = results["settings"]["case_changes"]  # type: ignore[index]
    assert [(c["base_case"], c["base_pass_rate"]) for c in changes] == [
        ("status-file", 1.0),
        ("keep", 1.0),
    ]
