"""Gemini CLI on the harness contract: its home's settings file, `node` resolved from the
job's PATH into its command line, the proxy's Gemini route and placeholder key, and a clear
reason when the job's Node.js is too old."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from evolve_action.execute.harness.contract import Invocation
from evolve_action.execute.harness.gemini import Gemini
from evolve_action.execute.harness.registry import HARNESSES, for_provider


def _run(**extra: object) -> Invocation:
    fields: dict[str, object] = {
        "binary": "/clis/node_modules/@google/gemini-cli/bundle/gemini.js",
        "provider": "gemini",
        "model": "gemini-2.5-flash",
        "prompt": "Greet Ada.",
        "max_turns": 5,
        "trigger": False,
        "sandboxed": True,
        "base_url": "http://127.0.0.1:4000",
        "token": "evolve-dummy-1",
    }
    return Invocation(**{**fields, **extra})  # type: ignore[arg-type]


def test_gemini_is_registered_and_runs_gemini_models() -> None:
    assert isinstance(HARNESSES["gemini"], Gemini)
    assert for_provider("gemini") is HARNESSES["gemini"]


def test_its_home_selects_the_key_and_turns_telemetry_off(tmp_path: Path) -> None:
    Gemini().prepare_home(tmp_path, _run())
    settings = json.loads((tmp_path / ".gemini/settings.json").read_text())
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert settings["privacy"]["usageStatisticsEnabled"] is False


def test_its_command_starts_the_script_with_the_jobs_node_at_the_proxy() -> None:
    command = Gemini().command(_run(helpers={"node": "/usr/local/bin/node"}, system="Be brief."))
    assert command.argv[:2] == ["/usr/local/bin/node", _run().binary]
    assert command.argv[-2:] == ["-m", "gemini-2.5-flash"]
    assert command.env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:4000/gemini"
    assert command.env["GEMINI_API_KEY"] == "evolve-dummy-1"
    assert command.stdin is not None and command.stdin.index("Be brief.") < command.stdin.index(
        "Greet Ada."
    )
    assert Gemini().command(_run()).argv[0] == "node"  # the relay's PATH finds it


def test_a_node_too_old_is_a_reason_not_to_run(tmp_path: Path) -> None:
    old = tmp_path / "node"
    old.write_text("#!/bin/sh\necho v18.19.0\n")
    old.chmod(old.stat().st_mode | stat.S_IEXEC)
    why = Gemini().unusable({"node": str(old)})
    assert why is not None and "Node.js 20 or newer" in why and "v18.19.0" in why
    assert Gemini().unusable({}) is None  # a missing node is `needs_on_path`'s to say
