"""The program ends its own process after a command (`startup.end`): nothing it wrote is lost.

Each test runs `python -m evolve_action` in a fresh process, as a workflow step would, and
reads what it left: its exit status, its whole output, its results files, and what an
`atexit` handler registered in the process printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.publish.results.load import load_results
from tests.fakes.llm_server import FakeLLM, Request, text
from tests.sample_evals import keyword_eval

ROOT = Path(__file__).resolve().parents[2]

# The program, with an atexit handler of the kind a library may register.
PROGRAM = """
import atexit, runpy, sys
atexit.register(lambda: print("atexit handler ran"))
sys.argv = ["evolve-action", *sys.argv[1:]]
runpy.run_module("evolve_action", run_name="__main__")
"""

EVAL = keyword_eval("two cases", 2, judged={0})


def _script(request: Request) -> object:
    if request.body.get("response_format"):
        return text(json.dumps({"reason": "it does", "pass": True, "score": 1.0}))
    return text("Echo: kw0x.")  # case-1's regex fails: a failed run, exit status 1


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM(_script) as server:  # type: ignore[arg-type]
        yield server
        assert not server.script_errors, server.script_errors


def _program(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROGRAM, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
        check=False,
    )


def test_a_run_exits_with_its_status_and_everything_written(tmp_path: Path, llm: FakeLLM) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "bench.eval.yaml").write_text(EVAL, encoding="utf-8")
    out_dir = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "GITHUB_"))}
    env.update(OPENAI_API_KEY="k", OPENAI_BASE_URL=llm.openai_base_url)
    done = _program(
        "run", "--base", "none", "--root", str(root), "--models", "openai/m",
        "--judge-model", "openai/m", "--runs", "1", "--results-dir", str(out_dir),
        env=env,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    # `openai/m` has no price: its cost is unknown, never $0.
    assert "2 runs: 1 passed, 1 failed, 0 errors; 0 invalid eval files; price unknown" in lines
    assert lines[-2:] == [f"results: {out_dir / 'results.json'}", "atexit handler ran"]
    assert sorted(r.status.value for r in load_results(out_dir).runs) == ["fail", "pass"]
    assert (out_dir / "junit.xml").read_text(encoding="utf-8").rstrip().endswith("</testsuites>")


def test_validate_exits_1_on_an_invalid_file_after_printing_it(tmp_path: Path) -> None:
    bad = tmp_path / "bench.eval.yaml"
    bad.write_text("tests:\n  - id: case-0\n    input: [unclosed\n", encoding="utf-8")
    done = _program("validate", str(bad))
    assert done.returncode == 1
    assert "bench.eval.yaml:" in done.stdout
    assert done.stdout.splitlines()[-1] == "atexit handler ran"
