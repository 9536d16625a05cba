"""`mode: watch` end to end, the Actions way: a `schedule` run of the default branch against
the loopback fakes, the history kept in a directory between runs as the results branch keeps
it. A drop opens one issue, a recovery closes it, noise and outages open nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.e2e import openapi_check
from tests.e2e.test_pull_request import run_container
from tests.e2e.watch_repo import (
    NEW_SNAPSHOT,
    Model,
    history_lines,
    make_main,
    new_summary,
    watch_env,
    write_history,
)
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM
from tests.gitrepo import git
from tests.reliability.helpers import run_cli


def _run(env: dict[str, str], root: Path) -> str:
    done = run_container(env, root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


def test_watch__a_new_snapshot_that_drops_a_case_opens_one_issue_and_recovery_closes_it(
    tmp_path: Path,
) -> None:
    root, sha = make_main(tmp_path)
    model = Model()
    with FakeLLM(model) as llm, GitHubFake() as gh:
        env = watch_env(root, tmp_path, llm, gh, sha)
        _run(env, root)  # the first watch: no record yet, so every eval runs and none is judged
        first = new_summary(tmp_path)
        assert "No baseline yet" in first and "no earlier record" in first
        assert gh.issues == {} and len(history_lines(tmp_path)) == 1

        model.broken, llm.served_model = True, NEW_SNAPSHOT  # same alias, a new snapshot
        _run(env, root)
        second = new_summary(tmp_path)
        (issue,) = gh.issues.values()
        body = issue["body"]
        assert issue["state"] == "open" and "evals/farewell/evals.json" in issue["title"]
        assert "<!-- evolve:watch suite=evals/farewell/evals.json -->" in body
        assert "| `bye` | `anthropic/" in body and "6/6 (100%)" in body and "0/6 (0%)" in body
        assert f"snapshot claude-sonnet-4-6 → {NEW_SNAPSHOT}" in body
        assert "(significant)" in body and "--paths evals/farewell/evals.json" in body
        assert "a model or the CLI changed" in second and "issue opened" in second

        _run(env, root)  # still broken: the same issue is updated, never a second one
        assert len(gh.issues) == 1 and "issue updated" in new_summary(tmp_path)

        model.broken = False  # fixed: the next watch compares with the run before the drop
        _run(env, root)
        assert issue["state"] == "closed" and issue["state_reason"] == "completed"
        (note,) = gh.comments[("acme/skills", issue["number"])]
        assert note["body"].startswith("Recovered: watch compared `evals/farewell/evals.json`")
        assert "issue closed" in new_summary(tmp_path)
        assert len(history_lines(tmp_path)) == 4
        assert gh.check_runs == [] and gh.comments.keys() == {("acme/skills", issue["number"])}
        if openapi_check.available():
            assert openapi_check.validate(gh.requests) == []


def test_watch__an_unchanged_model_makes_no_issue(tmp_path: Path) -> None:
    root, sha = make_main(tmp_path)
    with FakeLLM(Model()) as llm, GitHubFake() as gh:
        env = watch_env(root, tmp_path, llm, gh, sha)
        _run(env, root)
        new_summary(tmp_path)
        _run(env, root)
        summary = new_summary(tmp_path)
    assert "a sample:" in summary and "nothing reported" in summary
    assert "**No significant drop** in 1 skill compared." in summary
    assert gh.issues == {} and gh.check_runs == []
    second = history_lines(tmp_path)[1]
    assert second["full"] is False and second["flagged"] == []


def test_watch__every_call_erroring_opens_nothing_and_says_so(tmp_path: Path) -> None:
    root, sha = make_main(tmp_path)
    model = Model()
    with FakeLLM(model) as llm, GitHubFake() as gh:
        env = watch_env(root, tmp_path, llm, gh, sha, runs=3)
        _run(env, root)
        new_summary(tmp_path)
        model.errors = True  # an outage: every call fails, so no answer names a snapshot
        _run(env, root)
        summary = new_summary(tmp_path)
    assert "**Every run errored**" in summary and "no issue was opened" in summary
    assert "Errors are not failures" in summary
    assert gh.issues == {}
    lines = history_lines(tmp_path)
    assert len(lines) == 2 and lines[1]["flagged"] == []
    # Recorded as errors only: no cell of it can ever be a baseline.
    assert all(cell[4] == cell[5] == 0 and cell[6] > 0 for cell in lines[1]["cells"])


def test_a_push_to_the_default_branch_adds_its_line_and_the_next_watch_compares_with_it(
    tmp_path: Path,
) -> None:
    root, before = make_main(tmp_path)
    (root / "README.md").write_text("docs\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs")
    after = git(root, "rev-parse", "HEAD")
    with FakeLLM(Model()) as llm, GitHubFake() as gh:
        env = watch_env(root, tmp_path, llm, gh, after)
        event = tmp_path / "push.json"
        event.write_text(json.dumps({
            "before": before, "after": after, "ref": "refs/heads/main",
            "repository": {"default_branch": "main"},
        }))  # fmt: skip
        push = env | {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event)}
        done = run_container(push | {"INPUT_MODE": "all"}, root)
        assert done.returncode == 0, done.stdout + done.stderr
        (line,) = history_lines(tmp_path)
        assert line["event"] == "push" and line["sha"] == after
        assert sorted((c[1], c[4], c[5]) for c in line["cells"]) == [
            ("bye", 6, 0), ("greet", 6, 0), ("named", 6, 0),
        ]  # fmt: skip
        new_summary(tmp_path)
        _run(env, root)  # the watch finds its baseline in the push's line
        summary = new_summary(tmp_path)
    assert "a sample:" in summary and "**No significant drop** in 1 skill compared." in summary
    assert len(history_lines(tmp_path)) == 2


def test_a_push_to_another_branch_adds_nothing(tmp_path: Path) -> None:
    root, sha = make_main(tmp_path)
    with FakeLLM(Model()) as llm, GitHubFake() as gh:
        env = watch_env(root, tmp_path, llm, gh, sha, runs=2)
        event = tmp_path / "push.json"
        event.write_text(json.dumps({
            "before": "0" * 40, "after": sha, "ref": "refs/heads/topic",
            "repository": {"default_branch": "main"},
        }))  # fmt: skip
        push = env | {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event)}
        done = run_container(push | {"INPUT_MODE": "all"}, root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert history_lines(tmp_path) == []


def test_watch_locally_prints_the_summary_and_writes_no_issue(tmp_path: Path) -> None:
    root, _ = make_main(tmp_path)
    with FakeLLM(Model()) as llm, GitHubFake() as gh:
        env = {
            k: v
            for k, v in watch_env(root, tmp_path, llm, gh, "", runs=2).items()
            if not k.startswith(("GITHUB_", "INPUT_")) and k != "CI"
        }
        args = ["--mode", "watch", "--models", "anthropic", "--judge-model", "anthropic",
                "--runs", "2", "--history-dir", str(tmp_path / "history"),
                "--results-dir", str(tmp_path / "results"), "--allow-unconfined"]  # fmt: skip
        done = run_cli(["run", *args], env, root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "## evolve watch" in done.stdout and "No baseline yet" in done.stdout
    assert gh.requests == [] and len(history_lines(tmp_path)) == 1


def test_a_sharded_watch_splits_whole_eval_files_and_each_job_decides_its_own(
    tmp_path: Path,
) -> None:
    root, sha = make_main(tmp_path)
    model = Model()
    history = tmp_path / "history"

    def watch(env: dict[str, str]) -> list[str]:
        """Both jobs from the same history, as parallel jobs read one branch; their lines
        then joined as the branch's union merge joins them."""
        start = history_lines(tmp_path)
        added, summaries = [], []
        for shard in ("1/2", "2/2"):
            shutil.rmtree(history, ignore_errors=True)
            write_history(tmp_path, start)
            _run(env | {"INPUT_SHARD": shard, "INPUT_CACHE-DIR": str(tmp_path / shard[0])}, root)
            added += history_lines(tmp_path)[len(start) :]
            summaries.append(new_summary(tmp_path))
        write_history(tmp_path, [*start, *added])
        return summaries

    with FakeLLM(model) as llm, GitHubFake() as gh:
        env = watch_env(root, tmp_path, llm, gh, sha)
        first = watch(env)
        lines = history_lines(tmp_path)
        assert [x["shard"] for x in lines] == ["1/2", "2/2"]
        assert [sorted({c[1] for c in x["cells"]}) for x in lines] == [["bye"], ["greet", "named"]]
        assert all("**Shard" in s for s in first)
        model.broken, llm.served_model = True, NEW_SNAPSHOT
        one, two = watch(env)
    (issue,) = gh.issues.values()
    assert "evals/farewell/evals.json" in issue["title"] and "issue opened" in one
    assert "**No significant drop** in 1 skill compared." in two


def test_watch_on_a_pull_request_is_refused_with_the_reason(tmp_path: Path) -> None:
    root, sha = make_main(tmp_path)
    with FakeLLM(Model()) as llm, GitHubFake() as gh:
        env = watch_env(root, tmp_path, llm, gh, sha) | {"GITHUB_EVENT_NAME": "pull_request"}
        done = run_container(env, root)
    assert done.returncode == 2 and "mode watch watches the default branch" in done.stdout
    assert llm.requests == [] and gh.requests == []
