"""The Vally loader: stimuli, graders, rubric, constraints, expect_activation, environment
files, config/defaults, type; what cannot run is warned or rejected, never dropped; and the
dotnet/skills and hve-core snapshots in ../shared load with no error but left-out fixtures."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from evolve_action.formats import load_all, load_file
from evolve_action.formats.base import LoadContext
from evolve_action.formats.graders.params import (
    Activation,
    Grader,
    OutputContains,
    OutputMatches,
    Tools,
)
from evolve_action.model.evals import Check, Format, JudgeItem, LoadResult, Scale, Severity, Skill

SKILL = "---\nname: {name}\ndescription: d\n---\nbody\n"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text))
    return root


def load(root: Path, rel: str) -> LoadResult:
    path = root / rel
    return load_file(path, rel, Format.AGENTV, LoadContext(root, Skill("near", None)))


def messages(result: LoadResult, severity: Severity) -> list[str]:
    return [f"{p.origin.pointer}: {p.message}" for p in result.problems if p.severity is severity]


FULL = """\
name: dump-collect
type: regression
environment:
  skills: [../../plugins/diag/skills/dump-collect]
  files:
    - {src: fixtures/app.cs, dest: src/app.cs}
defaults: {runs: 3, executor: copilot-sdk}
config: {timeout: 2m}
scoring:
  weights: {prompt: 0.5}
  threshold: 0.7
stimuli:
  - name: configure dumps
    prompt: Configure crash dumps.
    environment:
      files:
        - {src: fixtures/more, dest: extra}
    graders:
      - {type: output-contains, config: {substring: DOTNET_DbgEnableMiniDump}}
      - {type: output-matches, name: no-edit, config: {pattern: '(?i)edited', negate: true}}
      - {type: file-contains, config: {path: "src/*.cs", value: Main}}
      - {type: run-command, config: {command: dotnet build, expected_exit_code: 0, timeout: 30s}}
      - {type: wall-time, config: {max: 90s}}
      - type: prompt
        config: {scoring: scale_1_10, threshold: 0.6}
    rubric: [Sets the variable, Explains how to verify]
    constraints: {expect_tools: [bash], reject_tools: [edit, web_fetch], max_turns: 12}
  - name: unrelated request
    prompt: Write a haiku.
    expect_activation: false
    timeout: 30s
    graders: [{type: exit-success}]
"""


def test_a_full_spec_loads_every_part(tmp_path: Path) -> None:
    write(tmp_path, {
        "tests/diag/dump-collect/eval.yaml": FULL,
        "tests/diag/dump-collect/fixtures/app.cs": "class A { static void Main() {} }",
        "tests/diag/dump-collect/fixtures/more/a.txt": "a",
        "tests/diag/dump-collect/fixtures/more/sub/b.txt": "b",
        "plugins/diag/skills/dump-collect/SKILL.md": SKILL.format(name="dump-collect"),
    })  # fmt: skip
    result = load(tmp_path, "tests/diag/dump-collect/eval.yaml")
    assert result.ok, messages(result, Severity.ERROR)
    suite = result.suite
    assert suite is not None and suite.format is Format.VALLY
    assert (suite.skill.name, suite.skill.plugin) == ("dump-collect", "diag")
    assert suite.runs == 3
    assert suite.policy.doc() == {
        "weights": {"prompt": 0.5},
        "threshold": 0.7,
        "type": "regression",
    }
    first, second = suite.cases
    assert (first.id, first.prompt, first.timeout_seconds, first.max_turns) == (
        "configure dumps", "Configure crash dumps.", 120.0, 12
    )  # fmt: skip
    assert [f.dest for f in first.files] == ["src/app.cs", "extra/a.txt", "extra/sub/b.txt"]
    kinds = [(i.id, i.kind) for i in first.items]
    assert kinds == [
        ("output-contains-1", "vally.output-contains"),
        ("no-edit", "vally.output-matches"),
        ("file-contains-3", "vally.file-contains"),
        ("run-command-4", "vally.run-command"),
        ("wall-time-5", "vally.wall-time"),
        ("prompt-6", "rubric"),
        ("constraints.tools", "vally.tools"),
        ("constraints.limits", "vally.limits"),
    ]
    judge = first.items[5]
    assert isinstance(judge, JudgeItem) and judge.scale is Scale.RANGE10
    assert "- Sets the variable\n- Explains how to verify" in judge.text
    assert judge.params.threshold == 0.6
    assert first.items[1].params == OutputMatches(negate=True, pattern="(?i)edited")
    assert first.items[6].params == Tools(expect_tools=("Bash",), reject_tools=("Edit",))
    (activation,) = [i for i in second.items if i.kind == "vally.activation"]
    assert isinstance(activation, Check)
    assert activation.params == Activation(skill="dump-collect", expected=False)
    assert second.timeout_seconds == 30.0
    warned = messages(result, Severity.WARNING)
    assert any("web_fetch" in w for w in warned)


def test_turns_and_commands_are_read_and_what_cannot_run_is_warned(tmp_path: Path) -> None:
    write(tmp_path, {"evals/x/eval.yaml": """\
        environment: {commands: [mkdir -p .eval-baseline]}
        stimuli:
          - name: two turns
            turns: [Launch the agent, Now review this]
            graders:
              - {type: prompt, turn: 1}
              - {type: output-contains, turn: 0, config: {substring: ready}}
              - {type: file-exists, turn: 0, config: {path: x}}
          - name: one turn
            turns: [Review this]
            graders: [{type: output-contains, turn: 0, config: {substring: ok}}]
          - name: prepared
            prompt: Run the tests.
            environment: {commands: [git init -q]}
            graders: [{type: exit-success}]
          - name: lookahead
            prompt: p
            graders: [{type: output-matches, config: {pattern: '(?=.*a)(?=.*b)'}}]
            rubric: [a rubric without a prompt grader]
    """})  # fmt: skip
    result = load(tmp_path, "evals/x/eval.yaml")
    assert result.ok and result.suite is not None
    two, one, prepared, lookahead = result.suite.cases
    assert (two.prompt, two.follow_ups) == ("Launch the agent", ("Now review this",))
    judged, said, exists = two.items
    assert isinstance(judged, JudgeItem) and judged.params.turn == 1
    assert judged.text.startswith("About the agent's answer to user turn 2: ")
    assert isinstance(said, Check) and isinstance(exists, Check)
    assert said.params == OutputContains(substring=said.params.substring, turn=0)
    assert isinstance(exists.params, Grader) and exists.params.turn is None
    first_item = one.items[0]
    assert isinstance(first_item, Check) and isinstance(first_item.params, Grader)
    assert (one.prompt, one.follow_ups, first_item.params.turn) == ("Review this", (), None)
    said = [(c.run, c.check_exit) for c in prepared.setup_commands]
    assert said == [("mkdir -p .eval-baseline", True), ("git init -q", True)]
    assert [c.run for c in one.setup_commands] == ["mkdir -p .eval-baseline"]  # the root's
    assert lookahead.items[0].kind == "vally.skipped"
    warned = "\n".join(messages(result, Severity.WARNING))
    assert "file-exists is graded on the run as it is after the last turn" in warned
    assert "this grader is not run and counts in no verdict" in warned
    assert "not graded: a rubric is read by a `prompt` grader" in warned


@pytest.mark.parametrize(
    ("spec", "wanted"),
    [
        ("stimuli: []", "must be a non-empty list of stimuli"),
        (
            "stimuli: [{name: a, prompt: p, environment: {files: [{src: ../../../x, dest: x}]}}]",
            "leads outside the repository",
        ),
    ],
)
def test_what_vally_refuses_is_an_error(tmp_path: Path, spec: str, wanted: str) -> None:
    write(tmp_path, {"evals/x/eval.yaml": spec + "\n"})
    result = load(tmp_path, "evals/x/eval.yaml")
    assert not result.ok
    assert any(wanted in m for m in messages(result, Severity.ERROR)), result.problems


GOOD = "{name: good, prompt: p, graders: [{type: completed}]}"


@pytest.mark.parametrize(
    ("spec", "wanted", "cases"),
    [
        ("type: smoke\nstimuli: [GOOD]", "read as capability", ["good"]),
        ("config: {executor: my-plugin}\nstimuli: [GOOD]", "executor plugin", ["good"]),
        ("config: {timeout: soon}\nstimuli: [GOOD]", "must be a duration", ["good"]),
        ("stimuli: [{name: a}, GOOD]", "a stimulus needs a prompt", ["good"]),
        ("stimuli: [{name: a, turns: []}, GOOD]", "must hold at least one user message", ["good"]),
        (
            "stimuli: [{name: a, turns: [x, y], graders: [{type: completed, turn: 2},"
            " {type: completed}]}]",
            "this stimulus has 2 turn(s), so `turn` must be a turn from 0 to 1, not 2",
            ["a"],
        ),
        (
            "stimuli: [{name: a, prompt: p, environment: {files: [{src: nope.cs, dest: x}]}}]",
            "'nope.cs' does not exist next to the eval file",
            ["a"],
        ),
        (
            "stimuli: [{name: a, prompt: p, expect_activation: maybe}, GOOD]",
            "true or false",
            ["good"],
        ),
        (
            "stimuli: [{name: a, prompt: p, rubric: [x, {y: z}]}]",
            "judged as the sentence 'y: z'",
            ["a"],
        ),
    ],
)
def test_what_vally_cannot_read_is_left_out_warned_and_the_rest_runs(
    tmp_path: Path, spec: str, wanted: str, cases: list[str]
) -> None:
    write(tmp_path, {"evals/x/eval.yaml": spec.replace("GOOD", GOOD) + "\n"})
    result = load(tmp_path, "evals/x/eval.yaml")
    assert result.ok and result.suite is not None, result.problems
    assert [c.id for c in result.suite.cases] == cases
    assert any(wanted in m for m in messages(result, Severity.WARNING)), result.problems


def test_a_vally_file_none_of_whose_stimuli_reads_is_not_run(tmp_path: Path) -> None:
    write(tmp_path, {"evals/x/eval.yaml": "stimuli: [{name: a}, {name: b, turns: []}]\n"})
    result = load(tmp_path, "evals/x/eval.yaml")
    assert result.suite is None and not result.errors and not result.failed
    assert result.problems[0].message.startswith("not run: no stimulus of this file can run")


@pytest.mark.parametrize(
    ("value", "wanted"), [("2m40s", 160.0), ("1h30m", 5400.0), ("1.5s", 1.5), (90, 90.0)]
)
def test_durations_read_as_vally_writes_them(tmp_path: Path, value: object, wanted: float) -> None:
    write(tmp_path, {"evals/x/eval.yaml": f"config: {{timeout: {value}}}\nstimuli: [{GOOD}]\n"})
    result = load(tmp_path, "evals/x/eval.yaml")
    assert result.ok and result.suite is not None
    assert result.suite.cases[0].timeout_seconds == wanted


@pytest.mark.parametrize(
    ("grader", "wanted"),
    [
        ("pairwise", "grader 'pairwise' is not run here"),
        ("code-review", "grader 'code-review' is not run here"),
        ("my-grader", "grader type 'my-grader' is not run"),
    ],
)
def test_a_grader_that_cannot_run_here_is_warned_and_the_rest_runs(
    tmp_path: Path, grader: str, wanted: str
) -> None:
    spec = (
        "stimuli:\n"
        f"  - {{name: a, prompt: p, graders: [{{type: {grader}}}, {{type: completed}}]}}\n"
        f"  - {{name: b, prompt: q, graders: [{{type: {grader}}}]}}\n"
    )
    write(tmp_path, {"evals/x/eval.yaml": spec})
    result = load(tmp_path, "evals/x/eval.yaml")
    assert result.ok and result.suite is not None, result.problems
    assert [c.id for c in result.suite.cases] == ["a"]
    warned = messages(result, Severity.WARNING)
    assert any(wanted in m for m in warned), warned
    assert any("stimulus 'b' is not run: none of its graders runs here" in m for m in warned)


def test_duplicate_stimulus_names_are_warned_and_kept(tmp_path: Path) -> None:
    write(tmp_path, {"evals/x/eval.yaml": "stimuli: [{name: a, prompt: p}, {name: a, prompt: q}]"})
    result = load(tmp_path, "evals/x/eval.yaml")
    assert result.suite is not None and [c.id for c in result.suite.cases] == ["a", "a (2)"]


def test_names_that_say_vally_and_discovery(tmp_path: Path) -> None:
    write(tmp_path, {
        "eng/skill-evals/s/eval.vally.yaml": "stimuli: [{name: a, prompt: p}]",
        ".vally.yaml": "paths: {evals: evals}",  # Vally's project config: no eval
        "evals/t/eval.yaml": "stimuli: [{name: b, prompt: p}]",
    })  # fmt: skip
    results = load_all(tmp_path)
    assert {(r.rel, r.format) for r in results} == {
        ("eng/skill-evals/s/eval.vally.yaml", Format.VALLY),
        ("evals/t/eval.yaml", Format.VALLY),
    }


def test_the_skill_comes_from_the_root_experiment(tmp_path: Path) -> None:
    write(tmp_path, {
        "repo.experiment.yaml": """\
            evals: ["tests/*/!(agent.*)/eval.yaml"]
            baseline: baseline
            variants:
              baseline: {environment: {skills: []}}
              skilled:
                environment: {skills: ["plugins/${eval.grandparent}/skills/${eval.parent}"]}
        """,
        "tests/p/s/eval.yaml": "stimuli: [{name: a, prompt: p}]",
        "tests/p/agent.x/eval.yaml": "stimuli: [{name: a, prompt: p}]",
        "plugins/p/skills/s/SKILL.md": SKILL.format(name="s"),
    })  # fmt: skip
    named = load(tmp_path, "tests/p/s/eval.yaml").suite
    assert named is not None and named.skill.dir == (tmp_path / "plugins/p/skills/s").resolve()
    excluded = load(tmp_path, "tests/p/agent.x/eval.yaml").suite
    assert excluded is not None and excluded.skill.name == "near"  # discovery's guess stays
    # Its skill-free arm asks for the no-skill arm (`plan.no_skill`); the excluded eval not.
    assert named.policy.no_skill_arm is True and excluded.policy.no_skill_arm is None


@pytest.mark.parametrize("repo", ["dotnet-skills-98f8485", "microsoft-hve-core-b1cae50"])
def test_corpus__vally_repositories_load_with_no_error_but_left_out_fixtures(
    corpus_dir: Path, repo: str
) -> None:
    root = corpus_dir / "repos/vally" / repo
    if not root.is_dir():
        pytest.skip(f"{root} is absent")
    results = load_all(root)
    assert results and all(r.format is Format.VALLY for r in results)
    errors = [p for r in results for p in r.errors]
    # The snapshots left out code fixtures (.cs, .csproj, ...): those, and only those, fail.
    assert all("does not exist next to the eval file" in p.message for p in errors), errors[:3]
    assert sum(len(r.suite.cases) for r in results if r.suite) > 150
