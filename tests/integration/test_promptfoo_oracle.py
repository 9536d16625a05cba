"""promptfoo itself as the oracle for the promptfoo loader: every config `promptfoo validate`
accepts loads here with no error (but the working dirs the ../shared snapshot left out), and
every config it refuses is refused here too.

Needs a runnable `promptfoo` (PROMPTFOO_BIN, else on PATH; promptfoo 0.123 wants Node ≥ 22.22)
and skips, saying why, without one. The test never installs anything: with npm, e.g.
`npm install --prefix /tmp/pf promptfoo@0.123.1`, then
PROMPTFOO_BIN=/tmp/pf/node_modules/.bin/promptfoo.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from evolve_action.formats import load_all

MISSING_IN_SNAPSHOT = "is no folder inside the repository"
SKILL = "---\nname: code-review\ndescription: d\n---\nbody\n"
VALID = """\
providers:
  - id: anthropic:claude-agent-sdk
    config: {working_dir: ./project}
prompts: ['Review {{file}}']
tests:
  - vars: {file: a.ts}
    assert:
      - {type: skill-used, value: code-review}
      - {type: icontains, value: md5}
      - {type: llm-rubric, value: Names the weak hash}
"""
REFUSED = {
    "assert-not-a-list": VALID.split("    assert:")[0] + "    assert: 5\n",
    "assertion-without-type": VALID.replace("{type: icontains, value: md5}", "{value: md5}"),
}


def promptfoo() -> list[str]:
    binary = os.environ.get("PROMPTFOO_BIN") or shutil.which("promptfoo")
    if not binary:
        pytest.skip("promptfoo is not installed (set PROMPTFOO_BIN or put it on PATH)")
    env = oracle_env(Path("/tmp"))
    try:
        done = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=120, env=env, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"promptfoo does not run here: {exc}")
    if done.returncode != 0:
        pytest.skip(f"promptfoo does not run here: {(done.stdout + done.stderr).strip()[-200:]}")
    return [binary]


def oracle_env(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(home),
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_SHARING": "1",
    }


def accepted(command: list[str], config: Path, home: Path) -> bool:
    done = subprocess.run(
        [*command, "validate", "-c", config.name], cwd=config.parent, capture_output=True,
        text=True, timeout=180, env=oracle_env(home), check=False,
    )  # fmt: skip
    return done.returncode == 0


def our_errors(root: Path, config: Path) -> list[str]:
    rel = config.relative_to(root).as_posix()
    return [p.render() for r in load_all(root) if r.rel == rel for p in r.errors]


def write(root: Path, config: str) -> Path:
    (root / "project/.claude/skills/code-review").mkdir(parents=True)
    (root / "project/.claude/skills/code-review/SKILL.md").write_text(SKILL)
    (root / "promptfooconfig.yaml").write_text(config)
    return root / "promptfooconfig.yaml"


def test_what_promptfoo_accepts_loads_here(tmp_path: Path) -> None:
    command = promptfoo()
    config = write(tmp_path / "valid", VALID)
    assert accepted(command, config, tmp_path)
    assert our_errors(tmp_path / "valid", config) == []


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_promptfoo_refuses_is_refused_here(tmp_path: Path, name: str) -> None:
    command = promptfoo()
    config = write(tmp_path / name, REFUSED[name])
    assert not accepted(command, config, tmp_path)
    assert our_errors(tmp_path / name, config)


def test_the_corpus_configs_agree_with_promptfoo(corpus_dir: Path, tmp_path: Path) -> None:
    command = promptfoo()
    root = corpus_dir / "repos/promptfoo/promptfoo-promptfoo-index"
    if not root.is_dir():
        pytest.skip(f"{root} is absent")
    configs = sorted(root.rglob("promptfooconfig.yaml"))
    assert configs
    for config in configs:
        ours = our_errors(root, config)
        if accepted(command, config, tmp_path):
            assert all(MISSING_IN_SNAPSHOT in e for e in ours), ours
        else:
            assert ours, f"promptfoo refuses {config}, evolve-action does not"
