"""`on-incomplete` through a whole local run on the demo's repository (replayed, no network):
a budget that cuts every run and a run whose every call errors each exit 1 with
`on-incomplete: failure`, and 0 (neutral) without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.commands.cli import main
from evolve_action.commands.demo import build_repository, examples_dir
from evolve_action.publish.results.load import load_results


@pytest.fixture(scope="module")
def demo_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    examples = examples_dir()
    if not (examples / "demo-plugin").is_dir():
        pytest.skip("the demo's examples/ are not beside the package (not a source checkout)")
    return build_repository(examples, tmp_path_factory.mktemp("demo"))


CUT_ALL = ("--max-cost-usd", "0.0001")  # below one run's projection: every run is cut


@pytest.mark.parametrize(("how", "flags"), [("budget", CUT_ALL), ("errors", ())])
@pytest.mark.parametrize(("given", "code"), [("neutral", 0), ("failure", 1)])
def test_a_run_that_could_not_judge_fails_only_when_asked(
    demo_repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    how: str,
    flags: tuple[str, ...],
    given: str,
    code: int,
) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    # "errors": an empty recording answers no call, so every run errors (a replay miss).
    cassettes = examples_dir() / "demo-cassettes" if how == "budget" else tmp_path / "empty"
    cassettes.mkdir(exist_ok=True)
    results = tmp_path / "results"
    argv = [
        "run", "--root", str(demo_repo), "--base", "main", "--models", "anthropic",
        "--runs", "1", "--replay", str(cassettes), "--results-dir", str(results), "--quiet",
        "--on-incomplete", given, *flags,
    ]  # fmt: skip
    assert main(argv) == code, capsys.readouterr()
    out = capsys.readouterr().out
    # The comment's headline says which input turned it red.
    assert ("(on-incomplete: failure)" in out) is (given == "failure"), out
    assert load_results(results).record.incomplete or how == "errors"
