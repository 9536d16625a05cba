"""Vally's named environments (`environment: <name>`, defined under `environments:` of the
project's `.vally.yaml`), `git`/`type: worktree` and MCP servers warned, root `area:`."""

from __future__ import annotations

from pathlib import Path

from evolve_action.formats import load_all
from evolve_action.model.evals import Format, Severity

PROJECT = """\
paths: {evals: evals}
environments:
  greeter-env:
    skills: [skills/greeter]
    files: [{src: fixtures/names.txt, dest: names.txt}]
    commands: [echo ready]
    git: {type: worktree}
"""
SPEC = """\
name: greeter
area: messaging
metadata: {owner: docs}
environment: greeter-env
stimuli:
  - name: greets
    prompt: Greet everyone in names.txt.
    graders: [{type: output-contains, config: {substring: Ada}}]
  - name: elsewhere
    prompt: Greet Bob.
    environment: nowhere
    graders: [{type: completed}]
"""


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_a_named_environment_gives_its_skill_files_and_commands(tmp_path: Path) -> None:
    write(tmp_path, {
        ".vally.yaml": PROJECT,
        "skills/greeter/SKILL.md": "---\nname: greeter\ndescription: d\n---\nGreet.\n",
        "fixtures/names.txt": "Ada\n",
        "evals/greeter/eval.yaml": SPEC,
    })  # fmt: skip
    (result,) = load_all(tmp_path)
    assert result.ok and result.format is Format.VALLY, result.problems
    suite = result.suite
    assert suite is not None and suite.skill.name == "greeter"
    greets, elsewhere = suite.cases
    assert [f.dest for f in greets.files] == ["names.txt"]
    assert greets.files[0].source.resolve() == (tmp_path / "fixtures/names.txt").resolve()
    assert [c.run for c in greets.setup_commands] == ["echo ready"]
    warned = [p.message for p in result.problems if p.severity is Severity.WARNING]
    assert any(m.startswith("git: a git worktree") for m in warned), warned
    assert any("'nowhere', which no `environments:` entry" in m for m in warned), warned
    assert not any("area" in m or "metadata" in m for m in warned), warned
    assert [f.dest for f in elsewhere.files] == ["names.txt"]  # the root environment still


def test_a_named_environment_without_a_project_file_is_warned(tmp_path: Path) -> None:
    write(tmp_path, {
        "evals/x/eval.yaml": "environment: missing\nstimuli: [{name: a, prompt: p}]\n",
    })  # fmt: skip
    (result,) = load_all(tmp_path)
    assert not result.errors
    assert any("'missing'" in p.message for p in result.problems)
