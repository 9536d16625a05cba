"""The verdict is decided once per job (issue 17), and every output says what that one
decision said: the comment, the check run, the step outputs, the job summary, the exit code.

The jobs run in this process (`cli.main`, as the container's entry point calls it) so that
`gate.evaluate` can be counted; everything else is real: git repositories, the provider SDKs
and PyGithub against loopback fakes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evolve_action.commands import cli
from evolve_action.verdict import gate
from evolve_action.verdict.gate import Gate
from tests.e2e.test_pull_request import REPO, agent, container_env, make_repo, outputs
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM


@pytest.fixture
def decisions(monkeypatch: pytest.MonkeyPatch) -> list[Gate]:
    """Every Gate `gate.evaluate` returns, wherever it is called from."""
    # Import every module that could call it, so each binding of the name is replaced.
    import evolve_action.commands.actions_flow
    import evolve_action.commands.report
    import evolve_action.pipeline.job
    import evolve_action.pipeline.report_input
    import evolve_action.publish.post
    import evolve_action.publish.render.build.assemble  # noqa: F401

    original = gate.evaluate
    made: list[Gate] = []

    def counted(*args: Any, **kwargs: Any) -> Gate:
        made.append(original(*args, **kwargs))
        return made[-1]

    for name, module in list(sys.modules.items()):
        if name.startswith("evolve_action") and getattr(module, "evaluate", None) is original:
            monkeypatch.setattr(module, "evaluate", counted)
    return made


@pytest.fixture
def fakes() -> Iterator[tuple[FakeLLM, GitHubFake]]:
    with FakeLLM(agent) as llm, GitHubFake() as gh:
        yield llm, gh
        assert not llm.script_errors, llm.script_errors


def environment(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    """The process environment the job sees: `env`, and no runner variables of our own."""
    for name in [k for k in os.environ if k.startswith(("INPUT_", "GITHUB_"))]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def test_a_pull_request_job_decides_once_and_every_output_says_so(
    decisions: list[Gate],
    fakes: tuple[FakeLLM, GitHubFake],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, base, head = make_repo(tmp_path)
    llm, gh = fakes
    env = container_env(root, tmp_path, llm, gh, base, head)
    env |= {"INPUT_MODELS": "anthropic", "INPUT_RUNS": "4"}
    environment(monkeypatch, env)

    code = cli.main(["run"])

    (decided,) = decisions  # the in-progress comment and the check run included
    assert decided.conclusion == "failure" and code == decided.exit_code == 1
    (check,) = gh.check_runs
    assert check["conclusion"] == decided.conclusion
    assert check["output"]["title"] == decided.reason
    (comment,) = gh.comments[(REPO, 7)]
    assert f"evolve: {decided.reason}" in comment["body"]
    out = outputs(tmp_path / "output")
    assert out["conclusion"] == decided.conclusion
    assert out["regressions"] == str(decided.regressions)
    assert f"evolve: {decided.reason}" in (tmp_path / "summary").read_text()

    # The same results through `report` (the second stage of the fork-safe pattern, or the
    # report job of a sharded one): again one decision, and the same one.
    decisions.clear()
    assert cli.main(["report", str(tmp_path / "results")]) == decided.exit_code
    assert decisions == [decided]
    assert gh.check_runs[-1]["conclusion"] == decided.conclusion


def test_a_local_comparison_decides_once(
    decisions: list[Gate],
    fakes: tuple[FakeLLM, GitHubFake],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, _, _ = make_repo(tmp_path)
    llm, _ = fakes
    keys = {"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": llm.anthropic_base_url}
    environment(monkeypatch, keys)
    results = tmp_path / "results"
    args = ["--root", str(root), "--models", "anthropic", "--runs", "4", "--quiet"]
    code = cli.main(["run", "--base", "main", *args, "--results-dir", str(results)])

    (decided,) = decisions
    assert code == decided.exit_code == 1
    assert f"evolve: {decided.reason}" in capsys.readouterr().out
