"""Model ids are checked before anything runs: a misspelt id ends the command with a
did-you-mean and no provider request; an unknown id that a base URL may serve runs, with a
warning, and its cost is "price unknown", never $0."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from evolve_action.commands.cli import main
from tests.e2e.local_run import serving
from tests.fakes.llm_server import Request, text
from tests.sample_evals import keyword_eval


def _answer(request: Request) -> object:
    return text("Echo: kw0.")


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "bench.eval.yaml").write_text(keyword_eval("one", 1), encoding="utf-8")
    return root


def _run(root: Path, tmp_path: Path, model: str) -> int:
    return main([
        "run", "--base", "none", "--root", str(root), "--models", model,
        "--judge-model", model, "--runs", "1", "--results-dir", str(tmp_path / "out"),
        "--cache-dir", str(tmp_path / "cache"), "--quiet",
    ])  # fmt: skip


def test_a_misspelt_model_fails_before_any_call_with_a_did_you_mean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    with serving(_answer, monkeypatch, ("anthropic",)) as server:  # type: ignore[arg-type]
        # No base URL: nothing else could serve the id. Were the check gone, the SDK's
        # request would end at this closed loopback proxy, never on the network.
        monkeypatch.delenv("ANTHROPIC_BASE_URL")
        monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
        code = _run(_repo(tmp_path), tmp_path, "anthropic/claude-sonet-4-6")
        assert server.requests == []
    err = capsys.readouterr().err
    assert code == 2, err
    assert "unknown model 'anthropic/claude-sonet-4-6'" in err
    assert "did you mean anthropic/claude-sonnet-4-6" in err
    assert "Traceback" not in err


def test_an_unknown_model_a_base_url_may_serve_runs_with_a_warning_and_no_price(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    with (
        caplog.at_level(logging.WARNING),
        serving(_answer, monkeypatch, ("openai",)) as server,  # type: ignore[arg-type]
    ):
        code = _run(_repo(tmp_path), tmp_path, "openai/llama3")
        assert server.requests
    assert code in (0, 1), capsys.readouterr().err
    assert "'openai/llama3' is not a model genai-prices" in caplog.text
    assert "OPENAI_BASE_URL" in caplog.text
