"""Re-record the offline demo's cassettes (`examples/demo-cassettes/`).

    .venv/bin/python -m scripts.record_demo

Runs the real pipeline (`evolve-action run --base main --record …`) on the demo repository
against `tests/fakes/demo_model.py`, a scripted stand-in model served by the loopback fake of
the Anthropic and OpenAI APIs. No real model is called and no key is needed; the recorded
answers, token counts and costs are the stand-in's. Run it after changing the demo plugin, the
demo pull request, or anything that changes what is sent to a model (prompts, tools).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from evolve_action.commands.cli import main
from evolve_action.commands.demo import build_repository, examples_dir, run_arguments
from tests.fakes import demo_model
from tests.fakes.llm_server import FakeLLM


def record() -> int:
    examples = examples_dir()
    cassettes = examples / "demo-cassettes"
    shutil.rmtree(cassettes, ignore_errors=True)
    with FakeLLM(demo_model.script) as llm, tempfile.TemporaryDirectory() as scratch:
        os.environ.update(
            ANTHROPIC_API_KEY="recording",
            OPENAI_API_KEY="recording",
            ANTHROPIC_BASE_URL=llm.anthropic_base_url,
            OPENAI_BASE_URL=llm.openai_base_url,
        )
        repo = build_repository(examples, Path(scratch))
        code = main(run_arguments(repo, Path(scratch) / "results", cassettes, record=True))
        if llm.script_errors:
            print(llm.script_errors, file=sys.stderr)
            return 2
        print(f"recorded {len(llm.requests)} exchanges into {cassettes}", file=sys.stderr)
    return 0 if code in (0, 1) else code


if __name__ == "__main__":
    raise SystemExit(record())
