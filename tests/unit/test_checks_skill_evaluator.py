"""skill-evaluator structural checks against a real workspace and a real shell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evolve_action.formats.base import LoadContext
from evolve_action.formats.documents import read
from evolve_action.formats.skill_evaluator.checks import glob_match, matching
from evolve_action.formats.skill_evaluator.load import load
from evolve_action.grade.checks import CheckContext, load_all, run_check
from evolve_action.model.checking import parameter_types
from evolve_action.model.evals import Case, Check, CheckParams, Format, Origin, Skill, Suite
from evolve_action.model.outcomes import ItemResult, ToolCall, Transcript
from tests.fakes.commands import ShellRunner


def _typed(kind: str, params: dict[str, Any]) -> CheckParams:
    load_all()
    return parameter_types()[f"skill_evaluator.{kind}"](**params)


def make_check(kind: str, critical: bool = False, **params: Any) -> Check:
    return Check(
        id="S1",
        kind=f"skill_evaluator.{kind}",
        text=kind,
        origin=Origin("evals/evals.json", 1),
        params=_typed(kind, params),
        critical=critical,
        source="structural",
    )


def context(
    workspace: Path,
    *,
    transcript: Transcript | None = None,
    runner: ShellRunner | None = None,
    timeout_s: float = 600.0,
) -> CheckContext:
    case = Case(id="1", prompt="p", origin=Origin("evals/evals.json", 1))
    suite = Suite(
        format=Format.SKILL_EVALUATOR,
        path=workspace / "evals.json",
        rel="evals/evals.json",
        skill=Skill("demo", None),
        cases=(case,),
    )
    return CheckContext(
        suite=suite,
        case=case,
        workspace=workspace,
        transcript=transcript or Transcript(),
        run_command=runner or ShellRunner(),
        timeout_s=timeout_s,
    )


def files(root: Path, tree: dict[str, str]) -> Path:
    for rel, text in tree.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


async def run(check: Check, ctx: CheckContext) -> ItemResult:
    return await run_check(check, ctx)


# --- globbing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "rel", "hit"),
    [
        ("*.test.ts", "a.test.ts", True),
        ("*.test.ts", "src/deep/a.test.ts", True),
        ("*.test.ts", "a.ts", False),
        ("response.md", "docs/response.md", True),
        ("src/*.ts", "pkg/src/a.ts", True),
        ("src/*.ts", "src/x/a.ts", False),
        ("src/**/*.ts", "src/x/y/a.ts", True),
        ("*", ".hidden", True),
        ("*.MD", "a.md", False),
    ],
)
def test_glob_match__like_rglob(pattern: str, rel: str, hit: bool) -> None:
    assert glob_match(pattern, rel) is hit


def test_matching__skips_git_and_claude_counts_dirs(tmp_path: Path) -> None:
    files(tmp_path, {".git/HEAD": "x", ".claude/skills/s/SKILL.md": "x", "a/b.md": "x"})
    assert matching(tmp_path, "*") == ["a", "a/b.md"]
    assert matching(tmp_path, "*.md") == ["a/b.md"]


# --- file_exists ------------------------------------------------------------------------------


async def test_file_exists__lists_up_to_five(tmp_path: Path) -> None:
    files(tmp_path, {f"t{i}.test.ts": "" for i in range(7)})
    result = await run(make_check("file_exists", pattern="*.test.ts"), context(tmp_path))
    assert result.passed is True
    assert result.evidence == "found: " + ", ".join(f"t{i}.test.ts" for i in range(5))
    assert (result.item_id, result.kind) == ("S1", "skill_evaluator.file_exists")


async def test_file_exists__fails_without_absolute_path(tmp_path: Path) -> None:
    result = await run(make_check("file_exists", pattern="*.test.ts"), context(tmp_path))
    assert result.passed is False
    assert str(tmp_path) not in result.evidence
    assert "no files matching '*.test.ts'" in result.evidence


# --- file_contains ----------------------------------------------------------------------------


async def test_file_contains__term_with_line(tmp_path: Path) -> None:
    files(tmp_path, {"out/response.md": "# Spec\nWe believe X\n"})
    check = make_check("file_contains", pattern="response.md", terms=("We believe",))
    result = await run(check, context(tmp_path))
    assert result.passed is True
    assert result.evidence == "found 'We believe' in out/response.md:2: We believe X"


async def test_file_contains__any_term_is_enough_and_case_sensitive(tmp_path: Path) -> None:
    files(tmp_path, {"a.ts": "const stub = 1"})
    ok = make_check("file_contains", pattern="*.ts", terms=("Stub", "stub"))
    assert (await run(ok, context(tmp_path))).passed is True
    miss = make_check("file_contains", pattern="*.ts", terms=("STUB",))
    result = await run(miss, context(tmp_path))
    assert result.passed is False and "not found in 1 matching file" in result.evidence


async def test_file_contains__regex_on_whole_file_with_inline_flag(tmp_path: Path) -> None:
    files(tmp_path, {"response.md": "intro\n### MUSTS\n- a\n"})
    check = make_check("file_contains", pattern="*.md", terms=(), match_regex="(?i)### Musts")
    result = await run(check, context(tmp_path))
    assert result.passed is True
    assert result.evidence == "regex matched '### MUSTS' in response.md"


async def test_file_contains__no_matching_file_fails(tmp_path: Path) -> None:
    check = make_check("file_contains", pattern="response.md", terms=("x",))
    result = await run(check, context(tmp_path))
    assert (result.passed, result.evidence) == (False, "no files matching 'response.md'")


# --- file_not_contains ------------------------------------------------------------------------


async def test_file_not_contains__vacuous_pass(tmp_path: Path) -> None:
    check = make_check("file_not_contains", pattern="*.test.ts", terms=("vi.mock(",))
    result = await run(check, context(tmp_path))
    assert result.passed is True and "vacuously true" in result.evidence


async def test_file_not_contains__violation_evidence(tmp_path: Path) -> None:
    body = "".join(f"vi.mock('m{i}')\n" for i in range(5))
    files(tmp_path, {"a.test.ts": body})
    check = make_check("file_not_contains", pattern="*.test.ts", terms=("vi.mock(",))
    result = await run(check, context(tmp_path))
    assert result.passed is False
    assert result.evidence == (
        "found banned text: a.test.ts:1: vi.mock('m0'); a.test.ts:2: vi.mock('m1');"
        " a.test.ts:3: vi.mock('m2') (+2 more)"
    )


async def test_file_not_contains__except_context_exempts_line(tmp_path: Path) -> None:
    files(tmp_path, {"a.test.ts": "const onSubmit = vi.fn()\n"})
    check = make_check(
        "file_not_contains", pattern="*.ts", terms=("vi.fn(",), except_context=("onSubmit",)
    )
    result = await run(check, context(tmp_path))
    assert result.passed is True and "no matches for 'vi.fn('" in result.evidence
    files(tmp_path, {"b.test.ts": "const save = vi.fn()\n"})
    assert (await run(check, context(tmp_path))).passed is False


async def test_file_not_contains__comment_exemption_for_terms_only(tmp_path: Path) -> None:
    files(tmp_path, {"a.ts": "  // never vi.fn( here\n# vi.fn( in a hash comment\n"})
    terms = make_check("file_not_contains", pattern="*.ts", terms=("vi.fn(",))
    assert (await run(terms, context(tmp_path))).passed is True
    regex = make_check("file_not_contains", pattern="*.ts", terms=(), match_regex="vi\\.fn\\(")
    result = await run(regex, context(tmp_path))
    assert result.passed is False and "a.ts:1: // never vi.fn( here" in result.evidence


async def test_file_not_contains__regex_and_terms_both_checked(tmp_path: Path) -> None:
    files(tmp_path, {"r.md": "use as needed\n"})
    check = make_check(
        "file_not_contains", pattern="*.md", terms=("TODO",), match_regex="(?i)AS NEEDED"
    )
    assert (await run(check, context(tmp_path))).passed is False
    files(tmp_path, {"r.md": "TODO later\n"})
    assert (await run(check, context(tmp_path))).passed is False
    files(tmp_path, {"r.md": "clean\n"})
    assert (await run(check, context(tmp_path))).passed is True


async def test_file_not_contains__symlink_out_of_workspace_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("vi.mock(secret)\n")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "link.ts").symlink_to(outside)
    check = make_check("file_not_contains", pattern="*.ts", terms=("vi.mock(",))
    result = await run(check, context(workspace))
    assert result.passed is True and "secret" not in result.evidence


# --- no_errors --------------------------------------------------------------------------------


async def test_no_errors__scans_tool_results_and_final_text(tmp_path: Path) -> None:
    clean = Transcript(
        final_text="Done.", tool_calls=[ToolCall("Bash", '{"command": "ls"}', "a b")]
    )
    assert (await run(make_check("no_errors"), context(tmp_path, transcript=clean))).passed
    failing = Transcript(
        final_text="All good",
        tool_calls=[
            ToolCall("Write", '{"content": "throw new Error: x"}', "written"),
            ToolCall("Bash", '{"command": "pytest"}', "collected 3\n1 FAILED\n"),
        ],
    )
    result = await run(make_check("no_errors"), context(tmp_path, transcript=failing))
    assert result.passed is False
    assert result.evidence == "errors in the transcript: Bash result: 1 FAILED"


async def test_no_errors__final_text_counts(tmp_path: Path) -> None:
    transcript = Transcript(final_text="Traceback (most recent call last):\n  boom")
    result = await run(make_check("no_errors"), context(tmp_path, transcript=transcript))
    assert result.passed is False and "final answer: Traceback" in result.evidence


async def test_no_errors__empty_transcript_skips(tmp_path: Path) -> None:
    result = await run(make_check("no_errors"), context(tmp_path))
    assert result.passed is None and "skipped" in result.evidence


# --- file_count -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operator", "count", "passed"),
    [
        ("==", 2, True),
        ("==", 3, False),
        (">=", 2, True),
        ("<=", 1, False),
        (">", 1, True),
        ("<", 2, False),
        ("=>", 3, False),  # an unknown operator falls back to >=
        ("=>", 2, True),
    ],
)
async def test_file_count__operators(
    tmp_path: Path, operator: str, count: int, passed: bool
) -> None:
    files(tmp_path, {"a.md": "", "sub/b.md": "", "c.txt": ""})
    check = make_check("file_count", pattern="*.md", count=count, operator=operator)
    result = await run(check, context(tmp_path))
    assert result.passed is passed
    assert result.evidence == f"found 2 matching '*.md' (expected {operator} {count})"


async def test_file_count__directories_count(tmp_path: Path) -> None:
    files(tmp_path, {"a/x": "", "b/y": ""})
    check = make_check("file_count", pattern="*", count=4, operator="==")
    assert (await run(check, context(tmp_path))).passed is True


# --- custom_script ----------------------------------------------------------------------------


async def test_custom_script__exit_zero_passes_in_workspace(tmp_path: Path) -> None:
    files(tmp_path, {"response.md": "hello"})
    runner = ShellRunner()
    script = 'test -f response.md && cd / && test -f "$OUTPUTS_DIR/response.md" && [[ 1 ]]'
    script += ' && echo "ok in $OUTPUTS_DIR"'
    result = await run(make_check("custom_script", script=script), context(tmp_path, runner=runner))
    assert result.passed is True
    assert result.evidence == "exit code 0: ok in $OUTPUTS_DIR"
    (call,) = runner.calls
    assert call.argv[0] == "bash" and call.argv[-1] == script
    assert call.cwd == tmp_path
    assert call.timeout == 30.0


async def test_custom_script__outputs_dir_is_the_workspace_as_the_command_sees_it(
    tmp_path: Path,
) -> None:
    script = 'echo "$OUTPUTS_DIR" > seen.txt'
    result = await run(make_check("custom_script", script=script), context(tmp_path))
    assert result.passed is True
    assert Path((tmp_path / "seen.txt").read_text().strip()).resolve() == tmp_path.resolve()


async def test_custom_script__errors_name_bash_not_the_launcher(tmp_path: Path) -> None:
    result = await run(make_check("custom_script", script="no-such-cmd-xyz"), context(tmp_path))
    assert result.passed is False
    assert result.evidence.startswith("exit code 127: bash: line 1: no-such-cmd-xyz")


async def test_custom_script__failure_evidence_capped(tmp_path: Path) -> None:
    script = "printf 'x%.0s' $(seq 1 300) >&2; exit 3"
    result = await run(make_check("custom_script", script=script), context(tmp_path))
    assert result.passed is False
    assert result.evidence == "exit code 3: " + "x" * 200


async def test_custom_script__timeout_capped_by_case(tmp_path: Path) -> None:
    runner = ShellRunner()
    ctx = context(tmp_path, runner=runner, timeout_s=0.3)
    result = await run(make_check("custom_script", script="sleep 5"), ctx)
    assert result.passed is False
    assert result.evidence == "the script timed out after 0.3 s"
    assert runner.calls[0].timeout == 0.3


# --- the corpus's own structural.json, reproduced ---------------------------------------------


async def test_corpus_structural_sample_reproduced(corpus_dir: Path, tmp_path: Path) -> None:
    """The acd-plan dark-mode-toggle run: our checks on a like response give its results."""
    folder = corpus_dir / "skill-evaluator"
    (evals_path,) = folder.glob("*acd-plan__evals__evals.json")
    (sample_path,) = folder.glob("*_structural.json")
    loaded = load(read(evals_path, rel="evals.json"), LoadContext(corpus_dir, Skill("acd", None)))
    assert loaded.suite is not None
    case = next(c for c in loaded.suite.cases if c.id == "dark-mode-toggle")
    response = (
        "# Dark mode\n\n**Hypothesis:** We believe adding a three-way theme toggle\n\n"
        "Given the user has never visited the application before\n\n### Musts\n- x\n\n"
        "## Acceptance Criteria\n- y\n\nThe toggle lives in the kebab menu.\n"
    )
    files(tmp_path, {"response.md": response})
    ctx = context(tmp_path)
    ours = [await run_check(c, ctx) for c in case.checks]
    sample = json.loads(sample_path.read_text())["expectations"]
    assert [(r.item_id, r.passed) for r in ours] == [(e["id"], e["passed"]) for e in sample]
    assert [c.critical for c in case.checks] == [e["critical"] for e in sample]
    assert ours[2].evidence == "regex matched '### Musts' in response.md"
    assert ours[3].evidence == "regex matched 'Acceptance Criteria' in response.md"


async def test_custom_script__under_the_real_sandbox(tmp_path: Path) -> None:
    """Inside bubblewrap the workspace is /workspace: OUTPUTS_DIR must follow it."""
    from evolve_action.execute.sandbox.confine import Confinement, probe_bwrap

    if not probe_bwrap().works:
        pytest.skip("bubblewrap does not work on this machine")
    files(tmp_path, {"response.md": "spec"})
    runner = Confinement(tmp_path).run
    script = 'cd / && grep -q spec "$OUTPUTS_DIR/response.md" && echo "$OUTPUTS_DIR"'
    ctx = CheckContext(
        context(tmp_path).suite, context(tmp_path).case, tmp_path, Transcript(), runner, 60.0
    )
    result = await run(make_check("custom_script", script=script), ctx)
    assert (result.passed, result.evidence) == (True, "exit code 0: /workspace")
