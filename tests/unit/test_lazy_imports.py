"""Start-up loads no provider SDK and no PyGithub: each is imported when it is used."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import evolve_action.cli, evolve_action.pipeline, evolve_action.commands.run
import evolve_action.commands.actions_flow, evolve_action.job, evolve_action.publish
from evolve_action.providers.registry import build_provider
evolve_action.cli.build_parser()
print(sorted(m for m in ("anthropic", "openai", "github") if m in sys.modules))
build_provider("openai", environ={}, api_key="k", base_url="http://127.0.0.1:9/v1")
print(sorted(m for m in ("anthropic", "openai", "github") if m in sys.modules))
from evolve_action.github_api import github_error, make_client
make_client("t", api_url="http://127.0.0.1:9")
print(github_error().__name__, "github" in sys.modules)
"""


def test_only_the_provider_in_use_imports_its_sdk() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split("\n")[:3] == ["[]", "['openai']", "GithubException True"]
