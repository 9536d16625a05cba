"""A fresh workspace per run: fixtures staged, skills installed, a commit (docs/design.md §Running).

Layout of a run directory (under the base directory we are given; by default, as root, a
root-owned one the sandbox users can reach, `sandbox_shared.runs_dir`, else the system temp):

    evolve-run-XXXX/
      workspace/      what the agent sees (as `/workspace` in the sandbox): fixtures, skills, .git
      control.git/    a copy of workspace/.git taken right after the first commit

`changed_files()` asks git about the workspace through `control.git`, never through the
workspace's own `.git`: the agent could have planted a `core.fsmonitor` or a filter driver in
that config, which `git status` would execute on the host. The copy is also the true initial
state, so a change the agent committed still counts as a change.

`prepare` is synchronous (file copies and three short git calls); from async code call it
through `asyncio.to_thread`, unless the workspace is bare (`is_bare`). Failures raise
`WorkspaceError`, which the runner reports as a run error of kind `ErrorKind.WORKSPACE`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from evolve_action.execute.sandbox.confine import HOME_DIR, TMP_DIR
from evolve_action.execute.sandbox.shared import runs_dir
from evolve_action.execute.skill_install import (
    SKILLS_DIR,
    SkillInfo,
    WorkspaceError,
    install_skill,
    plugin_skills,
)
from evolve_action.model.evals import Case, CaseKind, Fixture, Suite
from evolve_action.model.fixtures import Refusal, fixture_dest, fixture_source, inline_refusal

__all__ = ["SkillInfo", "Workspace", "WorkspaceError", "prepare"]

log = logging.getLogger(__name__)

_GIT_TIMEOUT_S = 60
_SCAFFOLDING = (f"{HOME_DIR}/", f"{TMP_DIR}/")
# A fixed identity and date make the initial commit's id the same on every run.
_GIT_ENV = {
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_SYSTEM": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "evolve",
    "GIT_AUTHOR_EMAIL": "evolve@workspace.invalid",
    "GIT_COMMITTER_NAME": "evolve",
    "GIT_COMMITTER_EMAIL": "evolve@workspace.invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
    "LANG": "C",
    "LC_ALL": "C",
}
_GIT_OPTS = (
    *("-c", "core.excludesFile=/dev/null", "-c", "commit.gpgSign=false"),
    *("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"),
)


@dataclass
class Workspace:
    """One run's workspace; use as a context manager or call `cleanup()`."""

    root: Path
    skills: tuple[SkillInfo, ...]
    run_dir: Path
    keep: bool = False
    tracked: bool = True  # False: no git baseline (no tools can change it); nothing changed
    bare: bool = False  # `is_bare`: made, and removed, by a few system calls

    def changed_files(self) -> list[str]:
        """Files added, modified or deleted since the initial commit, workspace-relative.

        Raises WorkspaceError when git fails (the agent removed the workspace directory)."""
        if not self.tracked:
            return []
        out = _git(
            self.run_dir / "control.git",
            self.root,
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            # A repository a setup command made inside the workspace is a gitlink of the
            # baseline: git must not run in it, with whatever config it holds.
            "--ignore-submodules=all",
        )
        paths = {entry[3:] for entry in out.split("\0") if len(entry) > 3}
        return sorted(p for p in paths if not p.startswith(_SCAFFOLDING))

    def rebaseline(self) -> None:
        """Make the workspace as it is now the initial state (after its setup commands ran).

        Git runs through `control.git`, as in `changed_files`: the commands could have planted
        config in the workspace's `.git`. That `.git` is then replaced by a copy of the
        control one, so the agent's repository starts at the new baseline, with nothing the
        commands left in it."""
        if not self.tracked:
            return
        control = self.run_dir / "control.git"
        nested = _nested_repositories(self.root)
        if nested:  # git refuses to add one without a commit, and must never run in one
            with (control / "info" / "exclude").open("a", encoding="utf-8") as fh:
                fh.writelines(f"/{_glob_quoted(rel)}/\n" for rel in nested)
        _git(control, self.root, "add", "-A")
        _git(control, self.root, "commit", "-q", "--allow-empty", "--no-verify", "-m", "setup")
        own = self.root / ".git"
        if own.is_symlink() or own.is_file():
            own.unlink()
        elif own.exists():
            shutil.rmtree(own, onerror=_make_writable_and_retry)
        shutil.copytree(control, own, symlinks=True)
        own.chmod(0o755)

    def cleanup(self) -> None:
        if self.keep:
            log.info("workspace kept for debugging at %s", self.root)
            return
        if self.bare:  # two empty directories, unless a check left something in it
            with contextlib.suppress(OSError):
                self.root.rmdir()
                self.run_dir.rmdir()
                return
        shutil.rmtree(self.run_dir, onerror=_make_writable_and_retry)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *_: object) -> None:
        self.cleanup()


def is_bare(case: Case, *, with_skill: bool, tracked: bool) -> bool:
    """Whether the workspace of a run of `case` is a bare directory: no git baseline, no skill,
    no fixture, no setup command (a model evaluated without tools). Making and removing one
    is a few system calls, cheaper on the event loop than a hop to a worker thread and back
    (`pipeline/runner.py`)."""
    return not tracked and not with_skill and not case.files and not case.setup_commands


def prepare(
    suite: Suite,
    case: Case,
    *,
    base_dir: Path | None = None,
    keep: bool = False,
    with_skill: bool = True,
    tracked: bool = True,
    skills_dir: str = SKILLS_DIR,
) -> Workspace:
    """Build the workspace for one run of `case`.

    Task runs get the skill under test; trigger runs get every skill of its plugin too;
    `with_skill=False` installs none (a baseline run). `tracked=False` skips the git
    baseline, for a run whose model gets no tools: nothing but the fixtures is there to grade.
    `skills_dir` is where the agent looks for skills (Codex: `.agents/skills`).
    """
    if base_dir is None:
        base_dir = runs_dir()
    try:
        if base_dir is not None:
            base_dir.mkdir(parents=True, exist_ok=True)
        real_base = _real(base_dir or Path(tempfile.gettempdir()))
        run_dir = Path(tempfile.mkdtemp(prefix="evolve-run-", dir=real_base))
    except OSError as exc:
        raise WorkspaceError(
            f"cannot create a workspace under {base_dir or tempfile.gettempdir()}: "
            f"{exc.strerror}; point the workspace directory at a writable place"
        ) from exc
    root = run_dir / "workspace"
    try:
        # Searchable, not readable: a sandbox user (sandbox_user) must reach its workspace,
        # never list the run directory or read control.git.
        run_dir.chmod(0o711)
        root.mkdir()
        skills = _install_skills(suite, case, root, skills_dir) if with_skill else ()
        repo = repo_root(suite)
        inline: list[str] = []
        for fixture in case.files:
            stage_fixture(fixture, repo, root, inline)
        if tracked:
            _commit(root)
            shutil.copytree(root / ".git", run_dir / "control.git", symlinks=True)
            (run_dir / "control.git").chmod(0o700)
    except OSError as exc:
        shutil.rmtree(run_dir, ignore_errors=True)
        name = Path(exc.filename).name if isinstance(exc.filename, str) else ""
        raise WorkspaceError(
            f"{suite.rel}: cannot prepare the workspace of case {case.id}: "
            f"{exc.strerror or exc}{f' ({name})' if name else ''}; check the case's files"
        ) from exc
    except BaseException:
        shutil.rmtree(run_dir, ignore_errors=True)
        raise
    if keep:
        log.info("keeping the workspace of %s case %s at %s", suite.rel, case.id, root)
    bare = is_bare(case, with_skill=with_skill, tracked=tracked)
    return Workspace(root, skills, run_dir, keep, tracked, bare)


@functools.lru_cache(maxsize=16)
def _real(base_dir: Path) -> Path:
    """`base_dir` by its real path, which every run directory made in it then has too (the
    agent's tools check each path against it): one resolution per job rather than one per
    run, each a system call per path component."""
    return base_dir.resolve()


def repo_root(suite: Suite) -> Path:
    """The repository holding the eval file: `suite.path` minus its repository-relative part."""
    parts = PurePosixPath(suite.rel).parts
    root = suite.path
    if suite.path.parts[-len(parts) :] != parts:
        return suite.path.parent
    for _ in parts:
        root = root.parent
    return root


def stage_fixture(
    fixture: Fixture, repo: Path, workspace: Path, inline: list[str] | None = None
) -> None:
    """Copy one fixture's bytes to its destination (mode 0644), by the rule `validate` applied
    (`model.fixtures`), checked again here: the checkout may have changed since. An inline
    fixture's text is written instead; `inline` holds the case's inline texts so far."""
    where = f"{fixture.origin}: fixture {fixture.dest!r}"
    bad_dest = fixture_dest(fixture.dest)
    if bad_dest is not None:
        raise WorkspaceError(f"{where}: {bad_dest}; fix the eval's `files` entry")
    real: Path | Refusal | None = None
    if fixture.content is not None:
        too_big = inline_refusal(fixture.content, inline or ())
        if too_big is not None:
            raise WorkspaceError(f"{where}: {too_big}")
        if inline is not None:
            inline.append(fixture.content)
    else:
        real = fixture_source(fixture.source, repo)
        if isinstance(real, Refusal):
            raise WorkspaceError(f"{where}: the source {fixture.source.name} {real}")
    target = workspace / fixture.dest
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.parent.resolve().is_relative_to(workspace.resolve()):
        raise WorkspaceError(f"{where}: the destination's directory leads outside the workspace")
    target.unlink(missing_ok=True)  # a later entry wins, and never writes through a link
    if real is None:
        # O_EXCL: a file, never through a link someone placed here since the unlink.
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write((fixture.content or "").encode("utf-8", "surrogatepass"))
    else:
        shutil.copyfile(real, target)
    target.chmod(0o644)


def _install_skills(suite: Suite, case: Case, root: Path, skills_dir: str) -> tuple[SkillInfo, ...]:
    skill = suite.skill
    if skill.dir is None:
        raise WorkspaceError(
            f"{suite.rel}: the skill {skill.name!r} was not found, so there is nothing to "
            "install; check the skill's directory name or the eval file's location"
        )
    sources = [skill.dir]
    if case.kind is CaseKind.TRIGGER:
        sources += plugin_skills(skill.plugin_dir)
    installed: dict[str, SkillInfo] = {}
    seen: set[Path] = set()
    for source in sources:
        if source.resolve() in seen:
            continue
        seen.add(source.resolve())
        info = install_skill(source, root, skills_dir)
        installed.setdefault(info.dir_name, info)
    return tuple(sorted(installed.values(), key=lambda s: s.name))


def _commit(root: Path) -> None:
    exclude = root / ".git" / "info" / "exclude"
    _git(None, root, "init", "-q", "-b", "main")
    exclude.parent.mkdir(parents=True, exist_ok=True)
    # The scaffolding HOME and TMPDIR of commands are not the agent's work.
    exclude.write_text(f"/{HOME_DIR}/\n/{TMP_DIR}/\n", encoding="utf-8")
    _git(None, root, "add", "-A")
    _git(
        None, root, "commit", "-q", "--allow-empty", "--no-verify", "-m", "initial workspace state"
    )


def _git(git_dir: Path | None, work_tree: Path, *args: str) -> str:
    where = ["--git-dir", str(git_dir), "--work-tree", str(work_tree)] if git_dir else []
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work_tree), **_GIT_ENV}
    try:
        done = subprocess.run(
            ["git", *_GIT_OPTS, *where, *args],
            cwd=work_tree,
            env=env,
            capture_output=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
    except FileNotFoundError as exc:
        raise WorkspaceError("git is not installed; workspaces need git on PATH") from exc
    except subprocess.TimeoutExpired as exc:
        raise WorkspaceError(
            f"git {args[0]} took over {_GIT_TIMEOUT_S} s in the workspace"
        ) from exc
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip()
        raise WorkspaceError(f"git {args[0]} failed in the workspace: {detail}")
    return done.stdout.decode("utf-8", "surrogateescape")


def _nested_repositories(root: Path) -> list[str]:
    """Folders of the workspace (not its root) holding a `.git`, workspace-relative."""
    found = []
    for current, dirs, files in os.walk(root):
        here = Path(current)
        if here != root and (".git" in dirs or ".git" in files):
            found.append(here.relative_to(root).as_posix())
            dirs.clear()
        elif here == root:
            dirs[:] = [d for d in dirs if d != ".git"]
    return sorted(found)


def _glob_quoted(rel: str) -> str:
    """`rel` as a literal gitignore pattern."""
    return "".join(f"\\{c}" if c in "*?[]\\!# " else c for c in rel)


def _make_writable_and_retry(func: Callable[[str], object], path: str, _exc: object) -> None:
    """The agent may have left read-only directories; make them writable and try again."""
    parent = Path(path).parent
    parent.chmod(parent.stat().st_mode | stat.S_IWUSR | stat.S_IXUSR)
    func(path)
