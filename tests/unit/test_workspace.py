"""Run workspaces: fixtures, installed skills, the initial commit, changed files, cleanup."""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import logging
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from evolve_action.execute.skill_install import first_paragraph, parse_skill_md
from evolve_action.execute.workspace import WorkspaceError, is_bare, prepare, repo_root
from evolve_action.model.evals import (
    Case,
    CaseKind,
    Fixture,
    Format,
    Origin,
    SetupCommand,
    Skill,
    Suite,
)
from evolve_action.model.outcomes import RunResult, Side

ORIGIN = Origin("evals/demo/evals.json", 3)
SKILL_MD = "---\nname: demo\ndescription: Does demo things.\n---\n# Demo\n\nUse it well.\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    skill = root / "skills" / "demo"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    (skill / "scripts" / "run.sh").write_text("#!/bin/sh\necho run\n")
    (skill / "scripts" / "run.sh").chmod(0o755)
    (skill / "evals").mkdir()
    (skill / "evals" / "evals.json").write_text('{"secret": "grading"}')
    (skill / "demo.eval.json").write_text("{}")
    other = root / "skills" / "other"
    other.mkdir(parents=True)
    (other / "SKILL.md").write_text("---\nname: other\ndescription: Other things.\n---\nBody\n")
    files = root / "evals" / "demo" / "files"
    (files / "src").mkdir(parents=True)
    (files / "src" / "main.py").write_text("print('hi')\n")
    (files / "src" / "main.py").chmod(0o600)
    (root / "evals" / "demo" / "evals.json").write_text("{}")
    return root


@pytest.fixture
def base(tmp_path: Path) -> Path:
    path = tmp_path / "runs"
    path.mkdir()
    return path


def make_suite(repo: Path, *, skill_dir: Path | None = None, plugin: bool = False) -> Suite:
    skill = Skill(
        "demo",
        skill_dir if skill_dir is not None else repo / "skills" / "demo",
        plugin="p" if plugin else "",
        plugin_dir=repo if plugin else None,
    )
    rel = "evals/demo/evals.json"
    return Suite(Format.EVOLVE, repo / rel, rel, skill, ())


def make_case(*fixtures: Fixture, kind: CaseKind = CaseKind.TASK) -> Case:
    return Case("1", "do it", ORIGIN, kind=kind, files=fixtures)


def fixture(repo: Path, source: str, dest: str) -> Fixture:
    return Fixture(repo / "evals" / "demo" / source, dest, ORIGIN)


def git(root: Path, *args: str) -> str:
    env = {"PATH": os.environ["PATH"], "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": str(root)}
    done = subprocess.run(
        ["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_prepare_stages_fixtures_installs_the_skill_and_commits(repo: Path, base: Path) -> None:
    case = make_case(fixture(repo, "files/src/main.py", "src/main.py"))
    with prepare(make_suite(repo), case, base_dir=base) as ws:
        staged = ws.root / "src" / "main.py"
        assert staged.read_text() == "print('hi')\n"
        assert staged.stat().st_mode & 0o777 == 0o644
        installed = ws.root / ".claude" / "skills" / "demo"
        assert not installed.is_symlink() and (installed / "SKILL.md").read_text() == SKILL_MD
        assert (installed / "scripts" / "run.sh").stat().st_mode & 0o111
        assert not (installed / "evals").exists()  # the agent cannot read its grading
        assert not (installed / "demo.eval.json").exists()
        assert [s.name for s in ws.skills] == ["demo"]
        info = ws.skills[0]
        assert info.path_in_workspace == ".claude/skills/demo"
        assert info.description == "Does demo things."
        assert info.files == ("scripts/run.sh",)
        assert git(ws.root, "log", "--format=%an <%ae> %s") == (
            "evolve <evolve@workspace.invalid> initial workspace state\n"
        )
        assert git(ws.root, "branch", "--show-current") == "main\n"
        assert git(ws.root, "status", "--porcelain") == ""
        assert ws.changed_files() == []
        assert ws.root.is_relative_to(base.resolve())
    assert not ws.run_dir.exists()


def test_initial_commit_is_the_same_on_every_run(repo: Path, base: Path) -> None:
    case = make_case(fixture(repo, "files/src/main.py", "src/main.py"))
    with (
        prepare(make_suite(repo), case, base_dir=base) as one,
        prepare(make_suite(repo), case, base_dir=base) as two,
    ):
        assert git(one.root, "rev-parse", "HEAD") == git(two.root, "rev-parse", "HEAD")


def test_changed_files_sees_additions_edits_deletions_and_commits(repo: Path, base: Path) -> None:
    case = make_case(fixture(repo, "files/src/main.py", "src/main.py"))
    with prepare(make_suite(repo), case, base_dir=base) as ws:
        (ws.root / "src" / "main.py").write_text("print('changed')\n")
        (ws.root / "new dir").mkdir()
        (ws.root / "new dir" / "n.txt").write_text("n")
        (ws.root / ".claude" / "skills" / "demo" / "scripts" / "run.sh").unlink()
        (ws.root / ".home").mkdir()
        (ws.root / ".home" / "x").write_text("scaffolding")
        (ws.root / ".tmp").mkdir()
        (ws.root / ".tmp" / "y").write_text("scaffolding")
        expected = [".claude/skills/demo/scripts/run.sh", "new dir/n.txt", "src/main.py"]
        assert ws.changed_files() == expected
        # The agent committing its work does not hide it.
        git(ws.root, "-c", "user.name=a", "-c", "user.email=a@b", "add", "-A")
        git(ws.root, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "agent")
        assert ws.changed_files() == expected


def plant_hooks(root: Path, pwned: Path) -> str:
    """A workspace's git config made to run a hook that touches `pwned` (fsmonitor, a clean
    filter every file uses); the config text, to plant elsewhere too."""
    hook = root / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {pwned}\n")
    hook.chmod(0o755)
    planted = f'[core]\n\tfsmonitor = {hook}\n[filter "x"]\n\tclean = {hook}\n'
    with (root / ".git" / "config").open("a") as fh:
        fh.write(planted)
    (root / ".gitattributes").write_text("* filter=x\n")
    return planted


def test_changed_files_never_runs_config_planted_in_the_workspace(
    repo: Path, base: Path, tmp_path: Path
) -> None:
    pwned = tmp_path / "pwned"
    with prepare(make_suite(repo), make_case(), base_dir=base) as ws:
        plant_hooks(ws.root, pwned)
        assert ws.changed_files() == [".gitattributes", "hook.sh"]
    assert not pwned.exists()


def test_keep_leaves_the_workspace_and_logs_its_path(
    repo: Path, base: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="evolve_action.execute.workspace"):
        ws = prepare(make_suite(repo), make_case(), base_dir=base, keep=True)
        ws.cleanup()
    assert ws.root.is_dir()
    assert str(ws.root) in caplog.text


def test_cleanup_copes_with_read_only_directories(repo: Path, base: Path) -> None:
    ws = prepare(make_suite(repo), make_case(), base_dir=base)
    locked = ws.root / "locked"
    locked.mkdir()
    (locked / "f").write_text("x")
    locked.chmod(0o500)
    ws.cleanup()
    assert not ws.run_dir.exists()


@pytest.mark.parametrize("dest", ["../escape.txt", "/etc/evil", "", ".git/config", "a/../../b"])
def test_fixture_destination_must_stay_inside(repo: Path, base: Path, dest: str) -> None:
    case = make_case(fixture(repo, "files/src/main.py", dest))
    with pytest.raises(WorkspaceError, match="destination must be a relative path"):
        prepare(make_suite(repo), case, base_dir=base)
    assert list(base.iterdir()) == []  # nothing left behind


def test_a_fixture_source_linked_out_of_the_repo_is_refused(
    repo: Path, base: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("PLANTED")
    (repo / "evals" / "demo" / "link.txt").symlink_to(secret)
    case = make_case(fixture(repo, "link.txt", "link.txt"))
    with pytest.raises(WorkspaceError, match=r"outside the repository \(through a symlink"):
        prepare(make_suite(repo), case, base_dir=base)


def test_fixture_source_outside_the_repo_is_refused(repo: Path, base: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("PLANTED")
    case = make_case(Fixture(tmp_path / "outside.txt", "o.txt", ORIGIN))
    with pytest.raises(WorkspaceError, match="outside the repository"):
        prepare(make_suite(repo), case, base_dir=base)


def test_missing_fixture_is_an_error_naming_the_eval(repo: Path, base: Path) -> None:
    case = make_case(fixture(repo, "files/nope.txt", "nope.txt"))
    with pytest.raises(WorkspaceError, match=r"evals/demo/evals.json:3: fixture 'nope.txt'"):
        prepare(make_suite(repo), case, base_dir=base)


def test_skill_symlinks_pointing_outside_are_not_followed(
    repo: Path, base: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("PLANTED")
    skill = repo / "skills" / "demo"
    (skill / "leak.txt").symlink_to(secret)
    (skill / "leakdir").symlink_to(tmp_path)
    (skill / "alias.md").symlink_to(skill / "SKILL.md")
    with prepare(make_suite(repo), make_case(), base_dir=base) as ws:
        installed = ws.root / ".claude" / "skills" / "demo"
        assert not (installed / "leak.txt").exists()
        assert not (installed / "leakdir").exists()
        assert (installed / "alias.md").read_text() == SKILL_MD  # inside: copied as a file
        assert not (installed / "alias.md").is_symlink()


def test_trigger_runs_install_every_plugin_skill(repo: Path, base: Path) -> None:
    case = make_case(kind=CaseKind.TRIGGER)
    with prepare(make_suite(repo, plugin=True), case, base_dir=base) as ws:
        assert [s.name for s in ws.skills] == ["demo", "other"]
        assert (ws.root / ".claude" / "skills" / "other" / "SKILL.md").is_file()
    with prepare(make_suite(repo, plugin=True), make_case(), base_dir=base) as task:
        assert [s.name for s in task.skills] == ["demo"]


def test_baseline_runs_install_no_skill(repo: Path, base: Path) -> None:
    with prepare(make_suite(repo), make_case(), base_dir=base, with_skill=False) as ws:
        assert ws.skills == () and not (ws.root / ".claude").exists()


def test_missing_skill_is_a_workspace_error(repo: Path, base: Path, tmp_path: Path) -> None:
    suite = make_suite(repo)
    gone = Suite(suite.format, suite.path, suite.rel, Skill("demo", None), ())
    with pytest.raises(WorkspaceError, match="'demo' was not found"):
        prepare(gone, make_case(), base_dir=base)
    empty = tmp_path / "empty-skill"
    empty.mkdir()
    with pytest.raises(WorkspaceError, match=r"SKILL\.md is missing"):
        prepare(make_suite(repo, skill_dir=empty), make_case(), base_dir=base)


def test_a_command_file_installs_as_a_skill(repo: Path, base: Path) -> None:
    command = repo / ".claude" / "commands" / "review.md"
    command.parent.mkdir(parents=True)
    command.write_text("Review the code carefully.\n")
    with prepare(make_suite(repo, skill_dir=command), make_case(), base_dir=base) as ws:
        (info,) = ws.skills
        assert (info.name, info.path_in_workspace) == ("review", ".claude/skills/review")
        assert info.description == "Review the code carefully."


def test_repo_root_is_the_eval_path_minus_its_relative_part(repo: Path) -> None:
    assert repo_root(make_suite(repo)) == repo


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (SKILL_MD, ("demo", "Does demo things.", "# Demo\n\nUse it well.\n")),
        ("# Title\n\nFirst para\nline two.\n\nSecond.\n", ("dir", "First para line two.", None)),
        ("---\nname: [unclosed\n---\nBody text.\n", ("dir", "Body text.", "Body text.\n")),
        ("---\nname: n\n---\n\nOnly body.\n", ("n", "Only body.", "Only body.\n")),
        ("---\n- a list\n---\nB\n", ("dir", "B", "B\n")),
    ],
)
def test_parse_skill_md_falls_back_gracefully(
    text: str, expected: tuple[str, str, str | None]
) -> None:
    name, description, body = parse_skill_md(text, "dir")
    assert (name, description) == expected[:2]
    assert body == (expected[2] if expected[2] is not None else text)


def test_first_paragraph_skips_headings() -> None:
    assert first_paragraph("\n# H\n## H2\nText here\nmore\n\nnext") == "Text here more"


def test_base_dir_is_created_and_os_errors_become_workspace_errors(
    repo: Path, tmp_path: Path
) -> None:
    base = tmp_path / "not" / "yet"
    clash = make_case(
        fixture(repo, "files/src/main.py", "src/main.py"),
        fixture(repo, "files/src/main.py", "src/main.py/inner.py"),
    )
    with pytest.raises(WorkspaceError, match="cannot prepare the workspace of case 1"):
        prepare(make_suite(repo), clash, base_dir=base)
    assert base.is_dir() and list(base.iterdir()) == []


def test_symlink_loops_in_a_skill_are_skipped(repo: Path, base: Path) -> None:
    skill = repo / "skills" / "demo"
    (skill / "loop-a").symlink_to(skill / "loop-b")
    (skill / "loop-b").symlink_to(skill / "loop-a")
    with prepare(make_suite(repo), make_case(), base_dir=base) as ws:
        assert not (ws.root / ".claude" / "skills" / "demo" / "loop-a").exists()


def test_an_untracked_workspace_has_the_fixtures_and_no_git(repo: Path, base: Path) -> None:
    # A run whose model gets no tools: nothing can change, so no git baseline is built.
    case = make_case(fixture(repo, "files/src/main.py", "main.py"))
    suite = make_suite(repo)
    with prepare(suite, case, base_dir=base, with_skill=False, tracked=False) as ws:
        assert (ws.root / "main.py").read_text() == "print('hi')\n"
        assert not (ws.root / ".git").exists() and not (ws.run_dir / "control.git").exists()
        assert not (ws.root / ".claude").exists()
        assert ws.changed_files() == []
    assert not ws.run_dir.exists()


@pytest.mark.parametrize(
    ("with_skill", "tracked", "files", "setup", "bare"),
    [
        (False, False, False, False, True),  # a model evaluated without tools
        (True, False, False, False, False),  # a skill to copy
        (False, True, False, False, False),  # a git baseline to build
        (False, False, True, False, False),  # a fixture to copy
        (False, False, False, True, False),  # setup commands to run and hash
    ],
)
def test_a_workspace_is_bare_only_with_nothing_to_copy_commit_or_run(
    repo: Path, base: Path, with_skill: bool, tracked: bool, files: bool, setup: bool, bare: bool
) -> None:
    fixtures = (fixture(repo, "files/src/main.py", "main.py"),) if files else ()
    commands = (SetupCommand("true", ORIGIN),) if setup else ()
    case = Case("1", "do it", ORIGIN, files=fixtures, setup_commands=commands)
    assert is_bare(case, with_skill=with_skill, tracked=tracked) is bare
    with prepare(
        make_suite(repo), case, base_dir=base, with_skill=with_skill, tracked=tracked
    ) as ws:
        assert ws.bare is bare
    assert not ws.run_dir.exists()


def test_a_bare_run_never_hops_to_a_thread(
    repo: Path, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its workspace is made and removed, its changes read and its snapshot taken on the
    event loop: each hop to a worker thread and back cost more than the work (`bench/`)."""
    from evolve_action.execute import workspace
    from evolve_action.pipeline.runner import RunEnvironment, run_and_grade
    from evolve_action.plan.planning import RunSpec
    from tests.unit.judge_fakes import ScriptedProvider, text

    monkeypatch.setattr(workspace, "runs_dir", lambda: base)
    suite = dataclasses.replace(make_suite(repo), agent=False)
    case = Case("1", "say hi", ORIGIN)
    provider = ScriptedProvider([text("hi")], id="openai")
    env = RunEnvironment(providers={"openai": provider})
    hops: list[object] = []

    class Counting(concurrent.futures.ThreadPoolExecutor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
            hops.append(fn)
            return super().submit(fn, *args, **kwargs)

    async def one() -> RunResult:
        asyncio.get_running_loop().set_default_executor(Counting(max_workers=1))
        return await run_and_grade(RunSpec(suite, case, "openai/m", Side.HEAD, 1), env)

    result = asyncio.run(one())
    assert result.transcript.final_text == "hi" and not result.error
    assert hops == [] and list(base.iterdir()) == []


def test_a_bare_workspace_something_was_left_in_is_removed_whole(repo: Path, base: Path) -> None:
    """Bare: removed by two `rmdir`s, unless a check left a file or a read-only folder in it;
    then the whole tree goes as any workspace's does."""
    case = Case("1", "say hi", ORIGIN)
    with prepare(make_suite(repo), case, base_dir=base, with_skill=False, tracked=False) as ws:
        assert ws.bare
        (ws.root / "left" / "deeper").mkdir(parents=True)
        (ws.root / "left" / "deeper" / "out.txt").write_text("a check wrote this")
        (ws.root / "left").chmod(0o555)
    assert not ws.run_dir.exists()
    assert list(base.iterdir()) == []


def test_a_run_directory_is_named_by_its_real_path_under_a_linked_base(
    repo: Path, tmp_path: Path
) -> None:
    """The agent's tools check every path against the workspace's real path; a base reached
    through a link (macOS's /tmp, a runner's moved temp directory) still gives one."""
    real = tmp_path / "real-base"
    real.mkdir()
    linked = tmp_path / "linked-base"
    linked.symlink_to(real)
    case, suite = Case("1", "say hi", ORIGIN), make_suite(repo)
    for _ in range(2):  # the base's real path is looked up once, and holds for the second
        with prepare(suite, case, base_dir=linked, with_skill=False, tracked=False) as ws:
            assert ws.root == ws.root.resolve()
            assert ws.run_dir.parent == real
    assert list(real.iterdir()) == []
