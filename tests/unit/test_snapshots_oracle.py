"""AgentV 4.42.4's own `agentv validate` as the oracle on its example tree: every file it
accepts is read here too (code files the snapshot left out aside, and the features README's
Formats table lists as not honoured, each rejected with its reason).

`./dev test` installs agentv@4.42.4 into .cache/agentv when npm is on the machine; without it
(or without node, git, or ../shared) this test skips.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.unit.snapshot_helpers import V4, copy_tree, load_tree, real_errors, snapshot
from tests.unit.test_snapshots_agentv import NOT_HONOURED

ROOT = Path(__file__).resolve().parents[2]
AGENTV = ROOT / ".cache/agentv/node_modules/agentv/dist/cli.js"
VERSION = "4.42.4"
_VERDICT = re.compile(r"^([✓✗]) (\S+)$")


def oracle(tree: Path) -> dict[str, bool]:
    """`agentv validate .` at the tree's root: path → accepted."""
    node = shutil.which("node")
    if node is None or not AGENTV.is_file():
        pytest.skip(f"agentv@{VERSION} is not installed (./dev test installs it with npm)")
    if shutil.which("git") is None:
        pytest.skip("agentv validate needs a git repository root, and git is absent")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tree), "NO_COLOR": "1"}
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True, env=env)
    done = subprocess.run(
        [node, str(AGENTV), "validate", "."],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    verdicts: dict[str, bool] = {}
    for line in done.stdout.splitlines():
        match = _VERDICT.match(line.strip())
        if match:
            rel = os.path.relpath(match.group(2), tree) if os.path.isabs(match.group(2)) else ""
            verdicts[Path(rel or match.group(2)).as_posix()] = match.group(1) == "✓"
    assert verdicts, f"no verdicts in agentv's output:\n{done.stdout}\n{done.stderr}"
    return verdicts


def test_validate_accepts_every_file_agentv_4_accepts(corpus_dir: Path, tmp_path: Path) -> None:
    tree = copy_tree(snapshot(corpus_dir, V4), tmp_path / "agentv")
    verdicts = oracle(tree)
    ours = load_tree(tree)
    assert set(verdicts) <= set(ours), set(verdicts) - set(ours)
    accepted = [rel for rel, ok in verdicts.items() if ok]
    assert len(accepted) >= 34
    for rel in accepted:
        errors = real_errors(ours[rel])
        if rel in NOT_HONOURED:
            assert errors and all("not supported" in e for e in errors), errors
        else:
            assert errors == [], errors
