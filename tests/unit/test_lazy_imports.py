"""Start-up loads no provider SDK: each one is imported when its provider is built."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import evolve_action.cli, evolve_action.pipeline, evolve_action.commands.run
from evolve_action.providers.registry import build_provider
print(sorted(m for m in ("anthropic", "openai") if m in sys.modules))
build_provider("openai", environ={}, api_key="k", base_url="http://127.0.0.1:9/v1")
print(sorted(m for m in ("anthropic", "openai") if m in sys.modules))
"""


def test_only_the_provider_in_use_imports_its_sdk() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split("\n")[:2] == ["[]", "['openai']"]
