"""The agent's tools: Claude Code shapes, validation, confinement, caps, the system prompt."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from evolve_action.execute.sandbox import confine as sandbox
from evolve_action.execute.sandbox.confine import BwrapStatus, Confinement, SandboxMode
from evolve_action.execute.skill_install import SkillInfo
from evolve_action.execute.tools import fs as tools_fs
from evolve_action.execute.tools.fs import glob_regex
from evolve_action.execute.tools.run import WorkspaceTools, find_skill, system_prompt
from evolve_action.execute.tools.specs import AGENT_TOOLS, JUDGE_TOOLS, TRIGGER_TOOLS
from evolve_action.model.provider import ToolBox, ToolResultPart

SKILLS = (
    SkillInfo("pdf", "Work with PDF files.", "# PDF\nSteps.\n", ".claude/skills/pdf", ("x.py",)),
    SkillInfo("docx", "Word documents.", "Body D\n", ".claude/skills/docx-skill"),
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "main.py").write_text("import os\nprint('hello')\n# hello again\n")
    (root / "src" / "pkg" / "util.py").write_text("def hello():\n    return 1\n")
    (root / "README.md").write_text("hello readme\n")
    (root / "data.bin").write_bytes(b"\0\1\2hello")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("hello from git\n")
    return root


@pytest.fixture
def tools(ws: Path) -> WorkspaceTools:
    return WorkspaceTools(ws, Confinement(ws, mode=SandboxMode.NONE), SKILLS)


async def call(tools: WorkspaceTools, name: str, **args: object) -> ToolResultPart:
    return await tools.call(name, json.dumps(args))


# -- specs and validation -----------------------------------------------------------------


def test_specs_have_claude_code_names_and_valid_schemas(tools: WorkspaceTools) -> None:
    box: ToolBox = tools
    specs = box.specs()
    assert [s.name for s in specs] == list(AGENT_TOOLS)
    fields = {s.name: set(s.input_schema["properties"]) for s in specs}
    assert fields["Bash"] == {"command", "timeout", "description"}
    assert fields["Read"] == {"file_path", "offset", "limit"}
    assert fields["Edit"] == {"file_path", "old_string", "new_string", "replace_all"}
    assert fields["Grep"] == {"pattern", "path", "glob"}
    assert fields["Skill"] == {"skill"}
    for spec in specs:
        Draft202012Validator.check_schema(dict(spec.input_schema))
        assert spec.description and "/tmp" not in spec.description


@pytest.mark.parametrize("offer", [JUDGE_TOOLS, TRIGGER_TOOLS])
async def test_subsets_offer_only_their_tools(ws: Path, offer: tuple[str, ...]) -> None:
    tools = WorkspaceTools(ws, None, SKILLS, offer)
    assert tuple(s.name for s in tools.specs()) == offer
    refused = await call(tools, "Write", file_path="x", content="y")
    assert refused.is_error and "no tool named 'Write'" in refused.content
    assert not (ws / "x").exists()


def test_bash_needs_a_confinement_and_names_must_exist(ws: Path) -> None:
    with pytest.raises(ValueError, match="needs a Confinement"):
        WorkspaceTools(ws, None)
    with pytest.raises(ValueError, match="unknown tools"):
        WorkspaceTools(ws, None, offer=("Read", "Browse"))


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("Read", "{not json", "not valid JSON"),
        ("Read", "[1]", "must be a JSON object"),
        ("Read", "{}", "'file_path' is a required property"),
        ("Read", '{"file_path": 3}', "file_path: 3 is not of type 'string'"),
        ("Read", '{"file_path": "a", "color": 1}', "'color' was unexpected"),
        (
            "Edit",
            '{"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": "no"}',
            "is not of type 'boolean'",
        ),
        ("Frobnicate", "{}", "no tool named 'Frobnicate'"),
    ],
)
async def test_bad_calls_are_error_results(
    tools: WorkspaceTools, name: str, raw: str, message: str
) -> None:
    result = await tools.call(name, raw)
    assert result.is_error and message in result.content


async def test_empty_arguments_mean_an_empty_object(tools: WorkspaceTools) -> None:
    result = await tools.call("Glob", "")
    assert result.is_error and "'pattern' is a required property" in result.content


async def test_results_are_capped_with_a_note(ws: Path) -> None:
    (ws / "big.txt").write_text("x" * 100 + "\n")
    tools = WorkspaceTools(ws, None, offer=JUDGE_TOOLS, result_cap=50)
    result = await call(tools, "Read", file_path="big.txt")
    assert result.content.endswith("[result truncated: 50 of 107 characters shown]")


# -- paths --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["../outside.txt", "../../etc/passwd", "/etc/passwd", "src/../../x", "/tmp/x"]
)
async def test_paths_outside_the_workspace_are_refused(tools: WorkspaceTools, path: str) -> None:
    for name, args in [
        ("Read", {"file_path": path}),
        ("Write", {"file_path": path, "content": "x"}),
        ("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}),
        ("Glob", {"pattern": "*", "path": path}),
        ("Grep", {"pattern": "a", "path": path}),
    ]:
        result = await call(tools, name, **args)
        assert result.is_error and "outside the workspace" in result.content, (name, result)


async def test_workspace_absolute_paths_map_into_it(tools: WorkspaceTools, ws: Path) -> None:
    read = await call(tools, "Read", file_path="/workspace/src/main.py")
    assert not read.is_error and "import os" in read.content
    real = await call(tools, "Read", file_path=str(ws / "README.md"))
    assert not real.is_error and "hello readme" in real.content


async def test_symlinks_leading_outside_are_refused(
    tools: WorkspaceTools, ws: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("PLANTED")
    (ws / "link.txt").symlink_to(secret)
    (ws / "linkdir").symlink_to(tmp_path)
    for name, args in [
        ("Read", {"file_path": "link.txt"}),
        ("Write", {"file_path": "link.txt", "content": "x"}),
        ("Write", {"file_path": "linkdir/new.txt", "content": "x"}),
        ("Edit", {"file_path": "link.txt", "old_string": "PLANTED", "new_string": "x"}),
    ]:
        result = await call(tools, name, **args)
        assert result.is_error and "outside the workspace" in result.content
    assert secret.read_text() == "PLANTED" and not (tmp_path / "new.txt").exists()
    grep = await call(tools, "Grep", pattern="PLANTED")
    assert "PLANTED" not in grep.content


async def test_symlinks_inside_the_workspace_work(tools: WorkspaceTools, ws: Path) -> None:
    (ws / "alias.py").symlink_to(ws / "src" / "main.py")
    result = await call(tools, "Read", file_path="alias.py")
    assert not result.is_error and "import os" in result.content


# -- Read, Write, Edit --------------------------------------------------------------------


async def test_read_numbers_lines_like_cat_n(tools: WorkspaceTools) -> None:
    result = await call(tools, "Read", file_path="src/main.py")
    assert result.content == "     1\timport os\n     2\tprint('hello')\n     3\t# hello again"


async def test_read_offset_and_limit(tools: WorkspaceTools, ws: Path) -> None:
    (ws / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    result = await call(tools, "Read", file_path="long.txt", offset=4, limit=2)
    assert result.content == (
        "     4\tline 4\n     5\tline 5\n[lines 4-5 of 10; use offset and limit to read more]"
    )
    past = await call(tools, "Read", file_path="long.txt", offset=50)
    assert past.content == "(long.txt has 10 lines; offset 50 is past its end)"


async def test_read_cuts_overlong_lines(tools: WorkspaceTools, ws: Path) -> None:
    (ws / "min.js").write_text("x" * 100_000 + "\nnext\n" + "y" * 2000 + "\n")
    result = await call(tools, "Read", file_path="min.js")
    first, second, third = result.content.split("\n")
    assert first == "     1\t" + "x" * 2000 + " [line truncated]"
    assert second == "     2\tnext"
    assert third == "     3\t" + "y" * 2000


async def test_read_refuses_binaries_directories_and_missing_files(
    tools: WorkspaceTools, ws: Path
) -> None:
    (ws / "empty.txt").write_text("")
    assert "binary file" in (await call(tools, "Read", file_path="data.bin")).content
    assert "is a directory" in (await call(tools, "Read", file_path="src")).content
    assert "no such file" in (await call(tools, "Read", file_path="nope.txt")).content
    assert (await call(tools, "Read", file_path="empty.txt")).content == "(empty.txt is empty)"


async def test_write_creates_parents_and_reports_relative_paths(
    tools: WorkspaceTools, ws: Path
) -> None:
    created = await call(tools, "Write", file_path="new/dir/f.txt", content="héllo")
    assert created.content == "Created new/dir/f.txt (6 bytes)"
    assert (ws / "new" / "dir" / "f.txt").read_text() == "héllo"
    updated = await call(tools, "Write", file_path="new/dir/f.txt", content="")
    assert updated.content == "Updated new/dir/f.txt (0 bytes)"


async def test_edit_replaces_unique_text_and_refuses_ambiguity(
    tools: WorkspaceTools, ws: Path
) -> None:
    main = ws / "src" / "main.py"
    ok = await call(tools, "Edit", file_path="src/main.py", old_string="import os", new_string="")
    assert ok.content == "Edited src/main.py: replaced 1 occurrence(s)"
    ambiguous = await call(
        tools, "Edit", file_path="src/main.py", old_string="hello", new_string="bye"
    )
    assert ambiguous.is_error and "occurs 2 times" in ambiguous.content
    missing = await call(tools, "Edit", file_path="src/main.py", old_string="zzz", new_string="y")
    assert missing.is_error and "not found" in missing.content
    empty = await call(tools, "Edit", file_path="src/main.py", old_string="", new_string="y")
    assert empty.is_error and "use Write" in empty.content
    every = await call(
        tools,
        "Edit",
        file_path="src/main.py",
        old_string="hello",
        new_string="bye",
        replace_all=True,
    )
    assert every.content == "Edited src/main.py: replaced 2 occurrence(s)"
    assert main.read_text() == "\nprint('bye')\n# bye again\n"


# -- Glob and Grep ------------------------------------------------------------------------


async def test_glob_matches_paths_sorted_and_skips_git(tools: WorkspaceTools) -> None:
    assert (await call(tools, "Glob", pattern="**/*.py")).content == (
        "src/main.py\nsrc/pkg/util.py"
    )
    assert (await call(tools, "Glob", pattern="*.py", path="src")).content == "src/main.py"
    assert (await call(tools, "Glob", pattern="*.{md,bin}")).content == "README.md\ndata.bin"
    assert (await call(tools, "Glob", pattern="**/config")).content == "No files found"
    bad = await call(tools, "Glob", pattern="../*")
    assert bad.is_error and "relative glob" in bad.content


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.py", "main.py", True),
        ("*.py", "src/main.py", False),
        ("**/*.py", "main.py", True),
        ("**/*.py", "a/b/c.py", True),
        ("src/**", "src/a/b", True),
        ("[!a]*.txt", "b.txt", True),
        ("[!a]*.txt", "a.txt", False),
        ("?.c", "x.c", True),
        ("{a,b}/x,y", "b/x,y", True),
        ("a+b(c).txt", "a+b(c).txt", True),
    ],
)
def test_glob_regex(pattern: str, path: str, matches: bool) -> None:
    assert (re.fullmatch(glob_regex(pattern), path) is not None) is matches


async def test_grep_returns_file_line_text_and_honours_glob(tools: WorkspaceTools) -> None:
    everything = await call(tools, "Grep", pattern="hel+o")
    assert everything.content == (
        "README.md:1:hello readme\nsrc/main.py:2:print('hello')\n"
        "src/main.py:3:# hello again\nsrc/pkg/util.py:1:def hello():"
    )
    only_py = await call(tools, "Grep", pattern="^def", glob="*.py")
    assert only_py.content == "src/pkg/util.py:1:def hello():"
    one_file = await call(tools, "Grep", pattern="again", path="src/main.py")
    assert one_file.content == "src/main.py:3:# hello again"
    assert (await call(tools, "Grep", pattern="zzz")).content == "No matches found"


async def test_grep_uses_re2_and_caps_matches(tools: WorkspaceTools, ws: Path) -> None:
    bad = await call(tools, "Grep", pattern="(?<=x)y")
    assert bad.is_error and "RE2" in bad.content
    (ws / "many.txt").write_text("m\n" * 400)
    many = await call(tools, "Grep", pattern="^m$", path="many.txt")
    lines = many.content.splitlines()
    assert len(lines) == 251 and lines[-1].startswith("[more than 250 matches")


# -- Skill and Bash -----------------------------------------------------------------------


async def test_skill_loads_the_body_with_a_note_of_its_files(tools: WorkspaceTools) -> None:
    result = await call(tools, "Skill", skill="pdf")
    assert result.content == (
        'Loaded skill "pdf". Its directory is .claude/skills/pdf/ (relative to the workspace).\n'
        "Its other files: x.py. Read them when the skill refers to them.\n\n# PDF\nSteps.\n"
    )
    assert "Body D" in (await call(tools, "Skill", skill="docx-skill")).content
    assert "Body D" in (await call(tools, "Skill", skill="plugin:docx")).content
    unknown = await call(tools, "Skill", skill="xlsx")
    assert unknown.is_error and "installed skills: pdf, docx" in unknown.content


def test_find_skill_matches_name_dir_and_plugin_prefix() -> None:
    assert find_skill(SKILLS, "docx") is SKILLS[1]
    assert find_skill(SKILLS, "docx-skill") is SKILLS[1]
    assert find_skill(SKILLS, "my-plugin:pdf") is SKILLS[0]
    assert find_skill(SKILLS, "nope") is None


async def test_bash_runs_in_the_workspace(tools: WorkspaceTools) -> None:
    ok = await call(tools, "Bash", command="pwd; cat README.md", description="look")
    assert (ok.is_error, ok.content) == (False, "/workspace\nhello readme")
    failed = await call(tools, "Bash", command="echo out; echo err >&2; exit 2")
    assert failed.is_error and failed.content == "Error: out\nerr\n[exit code 2]"
    quiet = await call(tools, "Bash", command="true")
    assert quiet.content == "(no output)"


async def test_bash_timeout_is_in_ms_and_capped_by_the_run_deadline(ws: Path) -> None:
    now = [100.0]
    tools = WorkspaceTools(
        ws,
        Confinement(ws, mode=SandboxMode.NONE, kill_grace_s=0.2),
        deadline=100.5,
        clock=lambda: now[0],
    )
    capped = await call(tools, "Bash", command="sleep 30", timeout=60_000)
    assert capped.is_error and "the run's time ran out" in capped.content
    short = await call(tools, "Bash", command="sleep 30", timeout=300)
    assert "timed out after 0.3 s" in short.content
    now[0] = 101.0
    late = await call(tools, "Bash", command="touch late")
    assert late.is_error and "time is up" in late.content
    assert not (ws / "late").exists()


async def test_bash_runner_errors_are_error_results(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "probe_bwrap", lambda: BwrapStatus(False, "no namespaces"))
    tools = WorkspaceTools(ws, Confinement(ws, mode=SandboxMode.BWRAP))
    result = await call(tools, "Bash", command="touch ran")
    assert result.is_error and "sandbox is required" in result.content
    assert not (ws / "ran").exists()


# -- system prompt ------------------------------------------------------------------------


def test_system_prompt_lists_skills_deterministically() -> None:
    prompt = system_prompt(SKILLS)
    assert prompt == system_prompt(tuple(reversed(SKILLS)))
    assert "- docx: Word documents.\n- pdf: Work with PDF files." in prompt
    assert '{"skill": "docx"}' in prompt
    assert "current directory" in prompt and "/tmp" not in prompt


def test_system_prompt_without_skills_and_inline() -> None:
    assert "Available skills" not in system_prompt(())
    assert system_prompt(SKILLS, inline_body="You are a reviewer.") == "You are a reviewer."


# -- failures of our own ------------------------------------------------------------------


async def test_os_errors_and_bugs_become_error_results(
    tools: WorkspaceTools, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def denied(*_: object, **__: object) -> str:
        raise PermissionError(13, "Permission denied", "/real/abs/path")

    def buggy(*_: object, **__: object) -> str:
        raise RuntimeError("boom")

    monkeypatch.setattr(tools_fs, "read", denied)
    result = await call(tools, "Read", file_path="README.md")
    assert (result.is_error, result.content) == (True, "Error: Read failed: Permission denied")
    monkeypatch.setattr(tools_fs, "read", buggy)
    result = await call(tools, "Read", file_path="README.md")
    assert result.is_error and result.content == "Error: internal error in tool Read: RuntimeError"
    assert "tool Read failed" in caplog.text


async def test_write_into_a_file_as_directory_is_an_error(tools: WorkspaceTools) -> None:
    result = await call(tools, "Write", file_path="README.md/x.txt", content="x")
    assert result.is_error and "cannot write" in result.content


async def test_symlink_loops_are_errors_not_crashes(tools: WorkspaceTools, ws: Path) -> None:
    (ws / "loop-a").symlink_to(ws / "loop-b")
    (ws / "loop-b").symlink_to(ws / "loop-a")
    read = await call(tools, "Read", file_path="loop-a/x")
    assert read.is_error and "cannot be resolved" in read.content
    glob = await call(tools, "Glob", pattern="*")
    assert not glob.is_error and "loop-a" not in glob.content
    grep = await call(tools, "Grep", pattern="hello", path=".")
    assert not grep.is_error and "README.md:1:hello readme" in grep.content
