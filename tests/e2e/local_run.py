"""What the `evolve-action run --base none` tests of each format share: a repository written
from a map of paths to texts, the loopback LLM fake behind the SDKs' own environment
variables, and one local run of the real command, read back from its results.json (which
`load_results` checks against our schema)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from evolve_action.commands.cli import main
from evolve_action.model.outcomes import RunResult
from evolve_action.publish.results.load import LoadedResults, load_results
from tests.fakes.llm_server import Answer, FakeLLM, Script, call, text
from tests.gitrepo import git

# The agent of every greeter example: loads the skill, writes the greeting, says so.
GREETER_TURNS: tuple[Answer, ...] = (
    call("Skill", skill="greeter"),
    call("Write", file_path="hello.txt", content="Hello, Ada!\n"),
    text("I greeted Ada in hello.txt."),
)


def write_tree(root: Path, files: Mapping[str, str]) -> Path:
    """`root` holding each of `files` (repository-relative path → text)."""
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    return root


@contextmanager
def serving(
    script: Script | None,
    monkeypatch: pytest.MonkeyPatch,
    providers: Sequence[str] = ("anthropic",),
    *,
    key: str = "test-key",
) -> Iterator[FakeLLM]:
    """The fake, started, with each provider's key and base URL in the environment; the other
    provider's key is removed, so a developer's own key never decides what a test sees."""
    with FakeLLM(script) as server:
        for provider in ("anthropic", "openai"):
            if provider not in providers:
                monkeypatch.delenv(f"{provider.upper()}_API_KEY", raising=False)
                continue
            monkeypatch.setenv(f"{provider.upper()}_API_KEY", key)
            url = server.anthropic_base_url if provider == "anthropic" else server.openai_base_url
            monkeypatch.setenv(f"{provider.upper()}_BASE_URL", url)
        yield server
        assert not server.script_errors, server.script_errors


def commit_sides(root: Path, head: Mapping[str, str] | None = None) -> Path:
    """`root` committed on `main` as base; with `head`, those files written over it and
    committed on a branch `pr`, which stays checked out."""
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    if head is not None:
        git(root, "checkout", "-q", "-b", "pr")
        write_tree(root, head)
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "head")
    return root


def greeter_repo(root: Path, skill: str, evals: str) -> Path:
    """A plugin repository with one skill, `skills/greeter`, and its `evals/greeter/evals.json`."""
    return write_tree(
        root,
        {
            ".claude-plugin/plugin.json": '{"name": "demo"}',
            "skills/greeter/SKILL.md": skill,
            "evals/greeter/evals.json": evals,
        },
    )


@dataclass(frozen=True)
class LocalRun:
    code: int
    out: str  # what the command printed
    results: LoadedResults

    @property
    def runs(self) -> list[RunResult]:
        return list(self.results.runs)

    def run_of(self, case_id: str) -> RunResult:
        return next(r for r in self.runs if r.case_id == case_id)


def run_locally(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    *,
    models: str = "anthropic",
    extra: Sequence[str] = (),
) -> LocalRun:
    """`evolve-action run --base none` on `repo`, the judge on Anthropic, results beside it."""
    out_dir = repo.parent / "out"
    code = main([
        "run", "--base", "none", "--root", str(repo), "--models", models,
        "--judge-model", "anthropic", "--results-dir", str(out_dir), *extra,
    ])  # fmt: skip
    out = capsys.readouterr().out
    return LocalRun(code, out, load_results(out_dir / "results.json"))
