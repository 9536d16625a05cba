"""`evolve-action run` on cases whose workspace is prepared by commands and inline files,
against the loopback LLM fake: Vally's `environment.commands` and skill-validator's
`setup.commands` run confined in the workspace before the agent starts; what they make is the
agent's starting point (not its changes); a failing Vally setup is a workspace error, never
a failed eval; skill-validator's inline `content` is staged.

The hostile cases: at each confinement level a setup command that writes everywhere leaves
nothing outside its workspace, and one that dumps its environment finds no key in it; an
inline file that would land outside the workspace, under `.git`, or is oversized makes the
eval file invalid, and nothing runs or is written.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.model.outcomes import ErrorKind, Status
from tests.e2e.local_run import GREETER_TURNS, run_locally, serving, write_tree
from tests.e2e.test_hostile_writes import attack, places
from tests.e2e.test_run_vally import SKILL, judge, vally_repo
from tests.fakes.llm_server import FakeLLM, Request
from tests.fakes.scripts import agent_and_judge, tool_names
from tests.levels import LEVELS, at_level

VALLY = """\
name: greeter
config: {{runs: 1}}
environment:
  skills: [../../skills/greeter]
  commands: ['{root}']
stimuli:
  - name: prepared
    prompt: Greet the first guest in guests.txt.
    environment:
      files: [{{src: fixtures/guests.txt, dest: guests.txt}}]
      commands: ['{own}']
    graders:
{graders}
"""
PREPARED = """\
      - {type: file-contains, config: {path: .eval-baseline/guests.txt, value: Ada}}
      - {type: file-contains, config: {path: env.txt, value: "PATH="}}
      - {type: file-not-contains, config: {path: env.txt, value: test-key}}
      - {type: file-contains, config: {path: hello.txt, value: "Hello, Ada!"}}
"""
# skill-validator's layout in dotnet/skills: tests/<plugin>/<skill>/eval.yaml.
SKILL_VALIDATOR = """\
scenarios:
  - name: inline
    prompt: Greet the first guest in guests.txt.
    setup:
      files:
        - {path: guests.txt, content: "Ada\\nBob\\n"}
        - {path: notes/readme.md, content: "# Guests\\n"}
      commands: ["cat guests.txt > copied.txt", "exit 3"]
    assertions:
      - {type: file_contains, path: copied.txt, value: Ada}
      - {type: file_contains, path: notes/readme.md, value: "# Guests"}
      - {type: file_contains, path: hello.txt, value: "Hello, Ada!"}
"""


def make_repo(tmp_path: Path, root: str, own: str, graders: str = PREPARED) -> Path:
    return vally_repo(tmp_path, VALLY.format(root=root, own=own, graders=graders))


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with serving(agent_and_judge(GREETER_TURNS, judge=judge), monkeypatch) as server:
        yield server


def agent_calls(llm: FakeLLM) -> list[Request]:
    return [r for r in llm.requests if "submit_grading" not in tool_names(r)]


def test_run__setup_commands_prepare_the_workspace_before_the_agent_starts(
    tmp_path: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    root = "mkdir -p .eval-baseline"
    repo = make_repo(tmp_path, root, "cp guests.txt .eval-baseline/ && env > env.txt")
    done = run_locally(repo, capsys)
    assert "PASS  tests/greeter/eval.yaml prepared" in done.out, done.out
    run = done.run_of("prepared")
    assert all(i.passed for i in run.items), [(i.item_id, i.evidence) for i in run.items]
    # What the setup made is where the agent starts, not something the agent changed.
    assert run.transcript.changed_files == ["hello.txt"]


def test_run__a_failing_vally_setup_is_a_workspace_error_and_the_agent_never_starts(
    tmp_path: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, "true", "echo missing dependency >&2; exit 3")
    done = run_locally(repo, capsys)
    run = done.run_of("prepared")
    assert (run.status, run.error_kind) == (Status.ERROR, ErrorKind.WORKSPACE)
    assert "tests/greeter/eval.yaml" in run.error and "exited with 3" in run.error
    assert "missing dependency" in run.error
    assert not agent_calls(llm)
    assert "FAIL" not in done.out  # an error, never a failed eval


def test_run__a_setup_command_past_the_case_timeout_is_a_workspace_error(
    tmp_path: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, "true", "sleep 30")
    done = run_locally(repo, capsys, extra=["--timeout", "2"])
    run = done.run_of("prepared")
    assert (run.status, run.error_kind) == (Status.ERROR, ErrorKind.WORKSPACE)
    assert "timed out" in run.error
    assert not agent_calls(llm)


def test_run__skill_validator_inline_files_are_staged_and_its_setup_exit_codes_ignored(
    tmp_path: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write_tree(tmp_path / "repo", {
        "plugins/party/skills/greeter/SKILL.md": SKILL,
        "tests/party/greeter/eval.yaml": SKILL_VALIDATOR,
    })  # fmt: skip
    done = run_locally(repo, capsys, extra=["--runs", "1"])
    run = done.run_of("inline")
    assert run.status is Status.PASS, [(i.item_id, i.evidence) for i in run.items]
    assert any("exited with 3" in n and "ignored" in n for n in run.transcript.notes)


@pytest.mark.parametrize("level", LEVELS)
def test_run__a_hostile_setup_command_writes_nothing_outside_and_reads_no_secret(
    tmp_path: Path,
    llm: FakeLLM,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    level: str,
) -> None:
    token = secrets.token_hex(6)
    monkeypatch.setenv("GITHUB_TOKEN", f"ghs_{token}")
    targets = places(tmp_path / "repo", tmp_path)
    command = attack(token, targets).replace("'", "") + "; env > env.txt"
    graders = PREPARED.replace("test-key", f"ghs_{token}").splitlines()[1:]
    repo = make_repo(tmp_path, "true", command, "\n".join(graders) + "\n")
    with at_level(level):
        done = run_locally(repo, capsys)
    run = done.run_of("prepared")
    assert run.status is Status.PASS, (run.error, [(i.item_id, i.evidence) for i in run.items])
    canaries = [p for t in targets for p in t.glob(f"evolve-canary-{token}*")]
    assert not canaries
    assert not list(tmp_path.rglob(f"evolve-canary-{token}*"))


@pytest.mark.parametrize(
    ("entry", "wanted"),
    [
        ("{path: ../../escape.txt, content: pwned}", "must be a relative path inside"),
        ("{path: .git/hooks/post-checkout, content: pwned}", "not under .git"),
        ("{path: big.txt, content: BIG}", "limit for one file"),
    ],
)
def test_run__a_hostile_inline_file_is_an_invalid_eval_file_and_writes_nothing(
    tmp_path: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str], entry: str, wanted: str
) -> None:
    spec = (
        "scenarios:\n  - name: hostile\n    prompt: p\n"
        f"    setup: {{files: [{entry.replace('BIG', 'x' * (1024 * 1024 + 1))}]}}\n"
    )
    repo = write_tree(tmp_path / "repo", {
        "plugins/party/skills/greeter/SKILL.md": SKILL,
        "tests/party/greeter/eval.yaml": spec,
    })  # fmt: skip
    done = run_locally(repo, capsys, extra=["--runs", "1"])
    assert done.code != 0 and not done.runs
    assert "1 invalid eval files" in done.out, done.out
    (invalid,) = done.results.invalid
    assert any(wanted in p.message for p in invalid.problems), invalid.problems
    assert not agent_calls(llm)
    assert not list(tmp_path.rglob("escape.txt"))
