"""evolve's deterministic checks and the trigger check on a real workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evolve_action.formats.evolve.assertions import derived_text
from evolve_action.formats.evolve.params import TriggerParams, typed
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.model.evals import Case, Check, Format, Origin, Skill, Suite
from evolve_action.model.outcomes import CommandResult, ItemResult, ToolCall, Transcript
from tests.fakes.commands import ShellRunner

ORIGIN = Origin("evals/demo/evals.json", 1)


def make_check(kind: str, **params: Any) -> Check:
    text = derived_text(kind, params)
    return Check("assertions[0]", f"evolve.{kind}", text, ORIGIN, typed(kind, params))


def context(
    workspace: Path,
    *,
    final: str = "",
    calls: list[ToolCall] | None = None,
    reports: bool = True,
    timeout: float = 10.0,
    runner: ShellRunner | None = None,
) -> CheckContext:
    case = Case("1", "do it", ORIGIN)
    suite = Suite(
        Format.EVOLVE, workspace / "evals.json", "evals.json", Skill("demo", None), (case,)
    )
    transcript = Transcript(final_text=final, tool_calls=calls or [])
    return CheckContext(
        suite,
        case,
        workspace,
        transcript,
        runner or ShellRunner(),
        timeout,
        reports_tool_calls=reports,
    )


async def grade(check: Check, ctx: CheckContext) -> ItemResult:
    result = await run_check(check, ctx)
    assert result.item_id == check.id and result.text == check.text
    return result


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "f.txt").write_text("alpha\nbeta gamma\n")
    (root / "sub" / "note.md").write_text("# Title\n")
    return root


# --- file_exists / file_absent ---------------------------------------------------------------


async def test_file_exists_passes_on_file_and_directory(ws: Path) -> None:
    assert (await grade(make_check("file_exists", path="f.txt"), context(ws))).evidence == (
        "f.txt exists"
    )
    result = await grade(make_check("file_exists", path="sub"), context(ws))
    assert result.passed is True and result.evidence == "sub exists"


async def test_file_exists_fails_when_missing(ws: Path) -> None:
    result = await grade(make_check("file_exists", path="nope.txt"), context(ws))
    assert (result.passed, result.evidence) == (False, "nope.txt missing")


async def test_file_absent_mirrors_file_exists(ws: Path) -> None:
    gone = await grade(make_check("file_absent", path="nope.txt"), context(ws))
    assert (gone.passed, gone.evidence) == (True, "nope.txt missing")
    there = await grade(make_check("file_absent", path="f.txt"), context(ws))
    assert (there.passed, there.evidence) == (False, "f.txt exists")


async def test_leading_slash_joins_onto_the_workspace(ws: Path) -> None:
    result = await grade(make_check("file_exists", path="/sub/note.md"), context(ws))
    assert (result.passed, result.evidence) == (True, "/sub/note.md exists")


async def test_paths_outside_the_workspace_fail_even_for_file_absent(ws: Path) -> None:
    (ws.parent / "secret.txt").write_text("s")
    (ws / "link").symlink_to(ws.parent / "secret.txt")
    for kind, path in [("file_exists", "../secret.txt"), ("file_absent", "link")]:
        result = await grade(make_check(kind, path=path), context(ws))
        assert result.passed is False
        assert "outside the workspace" in result.evidence


# --- regex / not_regex -----------------------------------------------------------------------


async def test_regex_without_path_matches_the_final_answer(ws: Path) -> None:
    result = await grade(make_check("regex", pattern="^Done"), context(ws, final="ok\nDone!"))
    assert (result.passed, result.evidence) == (True, "Done")  # (?m): ^ matches at line starts


async def test_regex_with_path_matches_file_contents(ws: Path) -> None:
    result = await grade(make_check("regex", path="f.txt", pattern=r"beta \w+"), context(ws))
    assert (result.passed, result.evidence) == (True, "beta gamma")
    miss = await grade(make_check("regex", path="f.txt", pattern="delta"), context(ws))
    assert (miss.passed, miss.evidence) == (False, "no match")


async def test_regex_and_not_regex_fail_on_a_missing_file(ws: Path) -> None:
    for kind in ("regex", "not_regex"):
        result = await grade(make_check(kind, path="gone.txt", pattern="x"), context(ws))
        assert (result.passed, result.evidence) == (False, "gone.txt missing")
    directory = await grade(make_check("not_regex", path="sub", pattern="x"), context(ws))
    assert (directory.passed, directory.evidence) == (False, "sub missing")


async def test_not_regex_passes_without_match_and_shows_the_offending_match(ws: Path) -> None:
    ok = await grade(make_check("not_regex", path="f.txt", pattern="delta"), context(ws))
    assert (ok.passed, ok.evidence) == (True, "no match")
    bad = await grade(make_check("not_regex", pattern="secret"), context(ws, final="a secret"))
    assert (bad.passed, bad.evidence) == (False, "secret")


async def test_regex_evidence_is_cut_to_120_bytes(ws: Path) -> None:
    result = await grade(make_check("regex", pattern="x+"), context(ws, final="x" * 500))
    assert result.evidence == "x" * 120
    wide = await grade(make_check("regex", pattern="é+"), context(ws, final="é" * 100))
    assert wide.evidence == "é" * 60  # two bytes each; never half a character


async def test_an_empty_match_gives_empty_evidence(ws: Path) -> None:
    result = await grade(make_check("regex", pattern="z*"), context(ws, final="abc"))
    assert (result.passed, result.evidence) == (True, "")


async def test_an_invalid_pattern_fails_at_grade_time(ws: Path) -> None:
    result = await grade(make_check("regex", pattern="(?=x)"), context(ws, final="x"))
    assert result.passed is False and result.evidence.startswith("invalid pattern:")


async def test_regex_with_a_path_outside_fails(ws: Path) -> None:
    result = await grade(make_check("regex", path="../../etc/passwd", pattern="root"), context(ws))
    assert result.passed is False and "outside the workspace" in result.evidence


# --- command ---------------------------------------------------------------------------------


async def test_command_cwd_is_relative_to_the_workspace(ws: Path) -> None:
    result = await grade(make_check("command", run="test -f ../f.txt", cwd="sub"), context(ws))
    assert (result.passed, result.evidence) == (True, "exit 0: ")


async def test_command_runs_in_the_workspace_with_the_case_timeout(ws: Path) -> None:
    runner = ShellRunner()
    result = await grade(
        make_check("command", run="cat f.txt"), context(ws, runner=runner, timeout=7)
    )
    assert result.passed is True and result.evidence == "exit 0: alpha\nbeta gamma\n"
    assert [(c.argv[-1], c.cwd, c.timeout) for c in runner.calls] == [("cat f.txt", ws, 7)]


async def test_command_expect_exit(ws: Path) -> None:
    one = await grade(make_check("command", run="exit 1", expect_exit=1), context(ws))
    assert (one.passed, one.evidence) == (True, "exit 1: ")
    assert one.text == "command `exit 1` exits 1"
    zero = await grade(make_check("command", run="echo oops >&2; exit 3"), context(ws))
    assert (zero.passed, zero.evidence) == (False, "exit 3: oops")


async def test_command_evidence_is_the_last_200_bytes(ws: Path) -> None:
    result = await grade(
        make_check("command", run="printf 'a%.0s' $(seq 300); echo E >&2"), context(ws)
    )
    assert result.evidence == "exit 0: " + "a" * 199 + "E"


async def test_command_requires_a_missing_binary_skips(ws: Path) -> None:
    runner = ShellRunner()
    check = make_check("command", run="nope-tool --version", requires="nope-tool-xyz")
    result = await grade(check, context(ws, runner=runner))
    assert (result.passed, result.evidence) == (None, "skipped: nope-tool-xyz not installed")
    assert runner.calls == []
    present = await grade(make_check("command", run="true", requires="sh"), context(ws))
    assert present.passed is True


async def test_command_timeout_exits_minus_one(ws: Path) -> None:
    result = await grade(make_check("command", run="sleep 5"), context(ws, timeout=0.3))
    assert (result.passed, result.evidence) == (False, "exit -1: ")
    expected = await grade(
        make_check("command", run="sleep 5", expect_exit=-1), context(ws, timeout=0.3)
    )
    assert expected.passed is True


async def test_command_bad_cwd_is_a_command_error(ws: Path) -> None:
    missing = await grade(make_check("command", run="true", cwd="nowhere"), context(ws))
    assert missing.passed is False and missing.evidence.startswith("command error:")
    outside = await grade(make_check("command", run="true", cwd=".."), context(ws))
    assert outside.passed is False and "outside the workspace" in outside.evidence


async def test_command_runner_errors_fail_with_command_error(ws: Path) -> None:
    class Broken(ShellRunner):
        async def __call__(self, command: Any, **kwargs: Any) -> CommandResult:
            return CommandResult(-1, "", "", error="sandbox helper missing")

    result = await grade(make_check("command", run="true"), context(ws, runner=Broken()))
    assert (result.passed, result.evidence) == (False, "command error: sandbox helper missing")


# --- tool_call -------------------------------------------------------------------------------

CALLS = [
    ToolCall("Read", '{"file_path": "src/a.py"}'),
    ToolCall("Bash", '{"command": "go test ./..."}'),
    ToolCall("mcp__github__create_issue", '{"title": "x"}'),
]


async def test_tool_call_skips_when_calls_are_not_reported(ws: Path) -> None:
    result = await grade(make_check("tool_call", tool="Bash"), context(ws, reports=False))
    assert (result.passed, result.evidence) == (None, "skipped: harness does not report tool calls")


async def test_tool_call_fails_on_an_empty_call_list(ws: Path) -> None:
    result = await grade(make_check("tool_call", tool="Bash"), context(ws, calls=[]))
    assert (result.passed, result.evidence) == (False, "no tool_call matched /Bash/")


async def test_tool_call_matches_name_and_raw_arguments(ws: Path) -> None:
    check = make_check("tool_call", tool="^Bash$", pattern=r"go test")
    result = await grade(check, context(ws, calls=CALLS))
    assert (result.passed, result.evidence) == (True, 'Bash {"command": "go test ./..."}')
    assert check.text == "agent called tool /^Bash$/ with args /go test/"
    mcp = await grade(make_check("tool_call", tool="mcp__github__.*"), context(ws, calls=CALLS))
    assert mcp.passed is True and mcp.evidence.startswith("mcp__github__create_issue ")


async def test_tool_call_pattern_must_match_the_same_call(ws: Path) -> None:
    check = make_check("tool_call", tool="^Read$", pattern="go test")
    result = await grade(check, context(ws, calls=CALLS))
    assert (result.passed, result.evidence) == (False, "no tool_call matched /^Read$/")


async def test_tool_call_invalid_pattern_fails(ws: Path) -> None:
    result = await grade(make_check("tool_call", tool="("), context(ws, calls=CALLS))
    assert result.passed is False and result.evidence.startswith("invalid pattern:")


# --- triggers.fired --------------------------------------------------------------------------


def fired(should: bool) -> Check:
    params = TriggerParams("greeter", should)
    return Check("fired", "triggers.fired", "skill greeter fires", ORIGIN, params)


@pytest.mark.parametrize(
    ("calls", "should", "passed"),
    [
        ([ToolCall("Skill", '{"skill": "greeter"}')], True, True),
        ([ToolCall("Read", '{"file_path": ".claude/skills/greeter/SKILL.md"}')], True, True),
        ([ToolCall("Skill", '{"skill": "greeter"}')], False, False),
        ([ToolCall("Skill", '{"skill": "changelog"}')], True, False),
        ([ToolCall("Read", '{"file_path": "README.md"}')], False, True),
        ([], False, True),
    ],
)
async def test_trigger_hit_detection(
    ws: Path, calls: list[ToolCall], should: bool, passed: bool
) -> None:
    result = await grade(fired(should), context(ws, calls=calls))
    assert result.passed is passed


async def test_trigger_evidence_says_what_happened(ws: Path) -> None:
    hit = await grade(fired(True), context(ws, calls=[ToolCall("Skill", '{"skill": "greeter"}')]))
    assert hit.evidence == 'fired: Skill {"skill": "greeter"}'
    other = [ToolCall("Skill", '{"skill": "changelog"}')]
    miss = await grade(fired(True), context(ws, calls=other))
    assert "greeter was not loaded" in miss.evidence and "changelog" in miss.evidence
    none = await grade(fired(False), context(ws, calls=[]))
    assert none.evidence.startswith("did not fire: no Skill call")
    unknown = await grade(fired(True), context(ws, reports=False))
    assert unknown.passed is None


# --- the bundled example: a correct answer passes every deterministic check -------------------

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "demo-plugin"


def example_case(skill: str, case_id: str) -> Case:
    from evolve_action.formats import load_all

    for loaded in load_all(EXAMPLE):
        if loaded.suite is not None and loaded.suite.skill.name == skill:
            for c in loaded.suite.cases:
                if c.id == case_id:
                    return c
    raise AssertionError(f"{skill}/{case_id} not in the example")


def stage_into(ws: Path, c: Case) -> None:
    for fixture in c.files:
        target = ws / fixture.dest
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(fixture.source.read_bytes())


async def test_example_guest_list_passes_with_a_correct_answer(tmp_path: Path) -> None:
    c = example_case("greeter", "guest-list")
    stage_into(tmp_path, c)
    (tmp_path / "greetings").mkdir()
    for name in ("Ana", "Bo", "Chidi"):
        text = f"Hello, {name}!\nWe are glad you are here.\n"
        (tmp_path / "greetings" / f"{name.lower()}.txt").write_text(text)
    ctx = context(tmp_path, final="I wrote 3 greetings.")
    results = [await run_check(check, ctx) for check in c.checks]
    assert [(r.text, r.evidence) for r in results if r.passed is False] == []


async def test_example_changelog_entry_passes_with_a_correct_answer(tmp_path: Path) -> None:
    import subprocess

    c = example_case("changelog", "add-entry")
    stage_into(tmp_path, c)
    git = [
        "git",
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t.invalid",
        "-c",
        "init.defaultBranch=main",
    ]
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "-A"], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "initial"], cwd=tmp_path, check=True)
    log = tmp_path / "CHANGELOG.md"
    log.write_text(
        log.read_text().replace(
            "## [Unreleased]\n", "## [Unreleased]\n\n### Added\n\n- Add a --dry-run flag to sync.\n"
        )
    )
    ctx = context(tmp_path)
    results = [await run_check(check, ctx) for check in c.checks]
    assert [(r.text, r.evidence) for r in results if r.passed is not True] == []


async def test_unusable_paths_fail_with_evidence(ws: Path) -> None:
    (ws / "loop").symlink_to(ws / "loop")
    for path in ("bad\x00name", "loop/x"):
        result = await grade(make_check("file_exists", path=path), context(ws))
        assert result.passed is False and "not a valid path" in result.evidence
