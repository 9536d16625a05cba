"""Discovery: layouts, marker precedence, one file per basename, every format's convention."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evolve_action.formats.discovery import describe_file, discover, format_for_name
from evolve_action.model.evals import Format
from evolve_action.util.globs import PathFilter, glob_problem

EVALS = '{"evals": [{"id": 1, "prompt": "p", "expectations": ["e"]}]}'
SKILL_MD = "---\nname: pdf\ndescription: Use when pdf.\n---\n"


def make(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def found(root: Path, **kwargs: object) -> dict[str, Format]:
    result = discover(root, **kwargs)  # type: ignore[arg-type]
    return {f.rel: f.format for f in result.files}


# --- layouts ---------------------------------------------------------------------------


def test_discover__marketplace_lists_plugins_from_the_directory(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".claude-plugin/marketplace.json": "{}",
            ".claude-plugin/plugin.json": '{"name": "stray"}',
            "plugins/beta/evals/b-skill/evals.json": EVALS,
            "plugins/alpha/evals/a-skill/triggers.yaml": "triggers: []",
            "plugins/alpha/skills/a-skill/SKILL.md": "---\nname: a-skill\n---\n",
            "plugins/alpha/evals/only-results/results.json": "{}",
            "plugins/README.md": "not a plugin",
        },
    )
    result = discover(tmp_path)
    assert result.layout == "marketplace"
    assert [f.rel for f in result.files] == [
        "plugins/alpha/evals/a-skill/triggers.yaml",
        "plugins/beta/evals/b-skill/evals.json",
    ]
    alpha = result.files[0].skill
    assert (alpha.name, alpha.plugin) == ("a-skill", "alpha")
    assert alpha.dir == tmp_path.resolve() / "plugins/alpha/skills/a-skill"
    assert alpha.plugin_dir == tmp_path.resolve() / "plugins/alpha"
    beta = result.files[1].skill
    assert beta.dir is None  # the eval set names a skill that does not exist
    assert result.files[0].format is Format.TRIGGERS


def test_discover__multi_wins_over_a_root_plugin_manifest(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".claude-plugin/plugin.json": "{}",
            "plugins/p/.claude-plugin/plugin.json": "{}",
            "plugins/p/evals/s/evals.json": EVALS,
            "evals/root-skill/evals.json": EVALS,
        },
    )
    result = discover(tmp_path)
    assert result.layout == "multi"
    assert [f.rel for f in result.files] == ["plugins/p/evals/s/evals.json"]


def test_discover__single_names_the_plugin_from_its_manifest(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".claude-plugin/plugin.json": '{"name": "my-plugin"}',
            "evals/s/evals.yml": "evals: []",
            "skills/s/SKILL.md": "x",
        },
    )
    result = discover(tmp_path)
    assert result.layout == "single"
    (only,) = result.files
    assert (only.rel, only.skill.plugin, only.skill.name) == ("evals/s/evals.yml", "my-plugin", "s")
    assert only.skill.plugin_dir == tmp_path.resolve()


def test_discover__single_without_a_manifest_name_uses_the_directory(tmp_path: Path) -> None:
    root = make(
        tmp_path / "checkout", {".claude-plugin/plugin.json": "[]", "evals/s/evals.json": EVALS}
    )
    assert discover(root).files[0].skill.plugin == "checkout"


def test_discover__no_marker_still_reads_a_root_evals_directory(tmp_path: Path) -> None:
    make(tmp_path, {"evals/s/evals.json": EVALS, "skills/s/SKILL.md": "x"})
    result = discover(tmp_path)
    assert result.layout == ""
    assert [f.rel for f in result.files] == ["evals/s/evals.json"]
    assert result.files[0].skill.dir == tmp_path.resolve() / "skills/s"


def test_discover__forced_multi_on_a_marketplace_works(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".claude-plugin/marketplace.json": "{}",
            "plugins/p/.claude-plugin/plugin.json": "{}",
            "plugins/p/evals/s/evals.json": EVALS,
        },
    )
    result = discover(tmp_path, layout="multi")
    assert result.layout == "multi" and not result.problems
    assert len(result.files) == 1


def test_discover__forced_single_without_its_marker_is_an_error(tmp_path: Path) -> None:
    make(tmp_path, {"evals/s/evals.json": EVALS})
    result = discover(tmp_path, layout="single")
    (problem,) = result.problems
    assert problem.origin.path == ".claude-plugin/plugin.json"
    assert "layout 'single' was requested" in problem.message
    assert "plugins/*/.claude-plugin/plugin.json" in problem.message
    assert result.files == ()


def test_discover__unknown_layout_is_a_programming_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown layout"):
        discover(tmp_path, layout="flat")


# --- one per basename ------------------------------------------------------------------


def test_discover__two_formats_of_one_stem_are_ambiguous(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".claude-plugin/plugin.json": "{}",
            "evals/s/evals.json": EVALS,
            "evals/s/evals.yaml": "evals: []",
            "evals/s/triggers.json": '{"triggers": []}',
        },
    )
    result = discover(tmp_path)
    assert [f.rel for f in result.files] == ["evals/s/triggers.json"]
    (problem,) = result.problems
    assert problem.origin.path == "evals/s/evals.json"
    assert "evals.json, evals.yaml" in problem.message
    assert "keep exactly one" in problem.message


def test_discover__ambiguity_outside_the_paths_filter_is_not_reported(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".claude-plugin/plugin.json": "{}",
            "evals/s/evals.json": EVALS,
            "evals/s/evals.jsonc": EVALS,
            "evals/t/evals.json": EVALS,
        },
    )
    result = discover(tmp_path, paths=["evals/t/**"])
    assert [f.rel for f in result.files] == ["evals/t/evals.json"]
    assert result.problems == ()


# --- skill-creator, clauditor, agentv ------------------------------------------------


def test_discover__skill_creator_evals_and_trigger_set(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "tools/skills/pdf/SKILL.md": "x",
            "tools/skills/pdf/evals/evals.json": EVALS,
            "tools/skills/pdf/evals/trigger-eval.json": "[]",
            "tools/skills/pdf/evals/files/a.pdf": "x",
            "notes/evals/evals.json": EVALS,  # no SKILL.md beside `evals/`: not a skill
        },
    )
    result = discover(tmp_path)
    assert {f.rel: f.format for f in result.files} == {
        "tools/skills/pdf/evals/evals.json": Format.EVOLVE,
        "tools/skills/pdf/evals/trigger-eval.json": Format.TRIGGERS,
    }
    skill = result.files[0].skill
    assert skill.name == "pdf" and skill.dir == tmp_path.resolve() / "tools/skills/pdf"


def test_discover__skill_creator_at_the_repository_root(tmp_path: Path) -> None:
    root = make(tmp_path / "my-skill", {"SKILL.md": "x", "evals/evals.json": EVALS})
    (only,) = discover(root).files
    assert (only.rel, only.skill.name) == ("evals/evals.json", "my-skill")
    assert only.skill.dir == root.resolve()


def test_discover__skill_creator_inside_a_plugin_knows_its_plugin(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".claude-plugin/marketplace.json": "{}",
            "plugins/p/skills/s/SKILL.md": "x",
            "plugins/p/skills/s/evals/evals.json": EVALS,
        },
    )
    (only,) = discover(tmp_path).files
    assert (only.skill.name, only.skill.plugin) == ("s", "p")


def test_discover__clauditor_conventions(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".claude/commands/greet.md": "x",
            ".claude/commands/greet.eval.json": "{}",
            ".claude/skills/find/SKILL.md": "x",
            ".claude/skills/find/SKILL.eval.json": "{}",
            "skills/review/SKILL.md": "x",
            "skills/review/assets/review.eval.json": "{}",
        },
    )
    files = {f.rel: f for f in discover(tmp_path).files}
    assert {rel: f.format for rel, f in files.items()} == dict.fromkeys(files, Format.CLAUDITOR)
    command = files[".claude/commands/greet.eval.json"].skill
    assert (command.name, command.dir) == ("greet", None)  # a command file is not a directory
    assert files[".claude/skills/find/SKILL.eval.json"].skill.name == "find"
    review = files["skills/review/assets/review.eval.json"].skill
    assert review.dir == tmp_path.resolve() / "skills/review"


def test_discover__agentv_names_and_jsonl_sidecars(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "evals/suite/EVAL.yaml": "x: 1",
            "a/csv.EVAL.yaml": "x: 1",
            "b/skill-invocation.eval.yaml": "x: 1",
            "c/evals/dataset.yaml": "x: 1",
            "c/evals/dataset-field-accuracy.yaml": "x: 1",
            "d/evals/dataset.jsonl": "{}",
            "d/evals/dataset.yaml": "description: sidecar",
            ".github/workflows/ci.yaml": "on: push",
            ".agentv/config.yaml": "x: 1",
        },
    )
    assert found(tmp_path) == {
        "a/csv.EVAL.yaml": Format.AGENTV,
        "b/skill-invocation.eval.yaml": Format.AGENTV,
        "c/evals/dataset-field-accuracy.yaml": Format.AGENTV,
        "c/evals/dataset.yaml": Format.AGENTV,
        "d/evals/dataset.jsonl": Format.AGENTV,
        "evals/suite/EVAL.yaml": Format.AGENTV,
    }


def test_discover__agentv_file_takes_the_enclosing_skill(tmp_path: Path) -> None:
    make(tmp_path, {"skills/s/SKILL.md": "x", "skills/s/evals/EVAL.yaml": "x: 1"})
    (only,) = discover(tmp_path).files
    assert (only.skill.name, only.skill.dir) == ("s", tmp_path.resolve() / "skills/s")


# --- the walk --------------------------------------------------------------------------


def test_discover__skips_vendored_and_tool_directories(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "node_modules/x/EVAL.yaml": "x: 1",
            ".venv/lib/EVAL.yaml": "x: 1",
            ".git/EVAL.yaml": "x: 1",
            "src/__pycache__/EVAL.yaml": "x: 1",
            ".hidden/EVAL.yaml": "x: 1",
        },
    )
    assert list(found(tmp_path)) == [".hidden/EVAL.yaml"]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_discover__does_not_enter_linked_directories_or_read_links_out(tmp_path: Path) -> None:
    outside = make(tmp_path / "outside", {"EVAL.yaml": "x: 1", "secret.eval.json": "{}"})
    root = make(tmp_path / "repo", {"inner/EVAL.yaml": "x: 1"})
    (root / "escape").symlink_to(outside, target_is_directory=True)
    (root / "alias").symlink_to(root / "inner", target_is_directory=True)
    (root / "loop").symlink_to(root, target_is_directory=True)
    (root / "leak.eval.json").symlink_to(outside / "secret.eval.json")
    result = discover(root)
    assert [f.rel for f in result.files] == ["inner/EVAL.yaml"]
    (problem,) = result.problems
    assert problem.origin.path == "leak.eval.json"
    assert "outside the repository" in problem.message


def test_discover__paths_filter_and_prefix(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".claude-plugin/marketplace.json": "{}",
            "plugins/a/evals/x/evals.json": EVALS,
            "plugins/b/evals/y/evals.json": EVALS,
            "plugins/b/evals/y/triggers.json": "{}",
        },
    )
    assert list(found(tmp_path, paths=["plugins/b"])) == [
        "plugins/b/evals/y/evals.json",
        "plugins/b/evals/y/triggers.json",
    ]
    assert list(found(tmp_path, paths=["**/triggers.*"])) == ["plugins/b/evals/y/triggers.json"]
    assert list(found(tmp_path, paths=["plugins/a/**", "nothing/*"], prefix="repo/")) == [
        "repo/plugins/a/evals/x/evals.json"
    ]


def test_discover__empty_tree(tmp_path: Path) -> None:
    result = discover(tmp_path)
    assert (result.files, result.problems, result.layout) == ((), (), "")


# --- names and single files ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("evals.json", Format.EVOLVE),
        ("evals.YML", Format.EVOLVE),
        ("triggers.jsonc", Format.TRIGGERS),
        ("trigger-eval.json", Format.TRIGGERS),
        ("SKILL.eval.json", Format.CLAUDITOR),
        ("review.eval.json", Format.CLAUDITOR),
        ("EVAL.yaml", Format.AGENTV),
        ("x.eval.yml", Format.AGENTV),
        ("dataset-field-accuracy.yaml", Format.AGENTV),
        ("dataset.jsonl", Format.AGENTV),
        ("results.json", None),
        ("evals.toml", None),
        ("eval.schema.json", None),
        ("README", None),
    ],
)
def test_format_for_name(name: str, fmt: Format | None) -> None:
    assert format_for_name(name) is fmt


def test_describe_file__guesses_the_skill_of_an_evolve_eval_set(tmp_path: Path) -> None:
    make(tmp_path, {"plugins/p/skills/s/SKILL.md": "x", "plugins/p/evals/s/evals.json": EVALS})
    item = describe_file(tmp_path, tmp_path / "plugins/p/evals/s/evals.json")
    assert (item.rel, item.format, item.skill.name) == (
        "plugins/p/evals/s/evals.json",
        Format.EVOLVE,
        "s",
    )
    assert item.skill.dir == tmp_path.resolve() / "plugins/p/skills/s"


def test_describe_file__needs_a_format_for_an_unknown_name(tmp_path: Path) -> None:
    make(tmp_path, {"suite.json": EVALS})
    with pytest.raises(ValueError, match="cannot tell the format"):
        describe_file(tmp_path, tmp_path / "suite.json")
    assert describe_file(tmp_path, tmp_path / "suite.json", Format.EVOLVE).format is Format.EVOLVE


# --- globs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("evals/**/evals.json", "evals/evals.json", True),
        ("evals/**/evals.json", "evals/a/b/evals.json", True),
        ("evals/*/evals.json", "evals/a/b/evals.json", False),
        ("**", "anything/at/all", True),
        ("**/x.yaml", "x.yaml", True),
        ("plugins/a", "plugins/a/evals/s/evals.json", True),
        ("plugins/a", "plugins/ab/evals/s/evals.json", False),
        ("./plugins/a/", "plugins/a/x", True),
        ("evals/?/e.json", "evals/a/e.json", True),
        ("evals/[ab]/e.json", "evals/b/e.json", True),
        ("evals/[!ab]/e.json", "evals/b/e.json", False),
        ("evals/[ab/e.json", "evals/[ab/e.json", True),
        ("a.b", "axb", False),
        ("pl*ns/**", "plugins/x", True),
    ],
)
def test_path_filter(pattern: str, path: str, hit: bool) -> None:
    assert PathFilter([pattern])(path) is hit


def test_path_filter__no_patterns_keeps_everything_unusable_ones_keep_nothing() -> None:
    assert PathFilter()("a/b")
    assert not PathFilter(["", "../x"])("a/b")


def test_glob_problem() -> None:
    assert glob_problem("evals/**") is None
    assert "empty" in (glob_problem("  ") or "")
    assert ".." in (glob_problem("../x") or "")


def test_describe_file__a_skill_creator_file_names_its_skill_directory(tmp_path: Path) -> None:
    make(tmp_path, {"pdf/evals/evals.json": EVALS, "pdf/evals/trigger-eval.json": "[]"})
    item = describe_file(tmp_path, tmp_path / "pdf/evals/evals.json")
    assert (item.skill.name, item.skill.dir) == ("pdf", None)  # no SKILL.md: not installable
    make(tmp_path, {"pdf/SKILL.md": SKILL_MD})
    item = describe_file(tmp_path, tmp_path / "pdf/evals/trigger-eval.json")
    assert (item.format, item.skill.name) == (Format.TRIGGERS, "pdf")
    assert item.skill.dir == tmp_path.resolve() / "pdf"


def test_describe_file__falls_back_to_the_directory_or_the_stem(tmp_path: Path) -> None:
    make(tmp_path, {"suites/a/evals.yaml": "x: 1", "suites/b/review.eval.json": "{}"})
    assert describe_file(tmp_path, tmp_path / "suites/a/evals.yaml").skill.name == "a"
    assert describe_file(tmp_path, tmp_path / "suites/b/review.eval.json").skill.name == "review"


def test_discover__finds_plugins_and_marketplaces_below_the_root(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "examples/demo/.claude-plugin/plugin.json": '{"name": "demo-plugin"}',
            "examples/demo/evals/greeter/evals.json": EVALS,
            "examples/demo/skills/greeter/SKILL.md": "x",
            "vendor/market/.claude-plugin/marketplace.json": "{}",
            "vendor/market/plugins/p/.claude-plugin/plugin.json": "{}",
            "vendor/market/plugins/p/evals/s/triggers.json": "{}",
        },
    )
    result = discover(tmp_path)
    assert result.layout == ""
    files = {f.rel: f.skill for f in result.files}
    assert list(files) == [
        "examples/demo/evals/greeter/evals.json",
        "vendor/market/plugins/p/evals/s/triggers.json",
    ]
    greeter = files["examples/demo/evals/greeter/evals.json"]
    assert (greeter.plugin, greeter.dir) == (
        "demo-plugin",
        tmp_path.resolve() / "examples/demo/skills/greeter",
    )
    assert files["vendor/market/plugins/p/evals/s/triggers.json"].plugin == "p"
    assert discover(tmp_path, layout="single").files == ()  # a forced layout reads only the root


def test_discover__an_unreadable_plugin_manifest_falls_back_to_the_directory(
    tmp_path: Path,
) -> None:
    root = make(tmp_path / "repo", {"evals/s/evals.json": EVALS})
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin/plugin.json").write_bytes(b"[" * 200_000)
    assert discover(root).files[0].skill.plugin == "repo"


def test_discover__agentv_generations_and_what_is_not_an_eval(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "a/evals/suite.yaml": "tests: []",  # AgentV 5
            "a/evals/suite.baseline.jsonl": "{}",  # results AgentV wrote
            "a/evals/suite.grader-scores.yaml": "- test_id: x",  # a helper beside it
            "b/suite.yaml": "x: 1",  # generic names count only below evals/
            "b/dataset.yaml": "x: 1",
            "c/evals/dataset.eval.yaml": "tests: ./dataset.jsonl\n",
            "c/evals/dataset.jsonl": "{}",  # read through the file above, not alone
            "d/evals/all.eval.yaml": "tests:\n  - file://cases/*.yaml\n",
            "d/evals/cases/dataset-one.yaml": "- id: x",
            "e/evals/dataset-2.jsonl": "{}",  # a JSONL dataset no file reads: its own suite
        },
    )
    assert found(tmp_path) == {
        "a/evals/suite.yaml": Format.AGENTV,
        "c/evals/dataset.eval.yaml": Format.AGENTV,
        "d/evals/all.eval.yaml": Format.AGENTV,
        "e/evals/dataset-2.jsonl": Format.AGENTV,
    }


def test_discover__a_root_skill_is_named_by_its_frontmatter(tmp_path: Path) -> None:
    root = make(tmp_path / "workspace", {"SKILL.md": SKILL_MD, "evals/evals.json": EVALS})
    (only,) = discover(root).files
    assert (only.skill.name, only.skill.dir) == ("pdf", root.resolve())
    assert describe_file(root, root / "evals/evals.json").skill.name == "pdf"


def test_discover__a_marketplace_plugin_at_the_root_and_its_trigger_sets(tmp_path: Path) -> None:
    marketplace = '{"plugins": [{"name": "docs", "source": "./"}, {"name": "x", "source": "gh"}]}'
    make(
        tmp_path,
        {
            ".claude-plugin/marketplace.json": marketplace,
            "skills/a/SKILL.md": SKILL_MD,
            "skills/b/SKILL.md": SKILL_MD,
            "evals/evals.json": '{"skill_name": "a", "evals": []}',
            "evals/trigger-eval.json": "[]",
            "evals/b/evals.json": EVALS,
            "evals/b/trigger-eval.json": "[]",
        },
    )
    files = {f.rel: (f.format, f.skill.name, f.skill.plugin) for f in discover(tmp_path).files}
    assert files == {
        "evals/evals.json": (Format.EVOLVE, "a", "docs"),
        "evals/trigger-eval.json": (Format.TRIGGERS, "a", "docs"),
        "evals/b/evals.json": (Format.EVOLVE, "b", "docs"),
        "evals/b/trigger-eval.json": (Format.TRIGGERS, "b", "docs"),
    }


def test_discover__says_why_a_tree_with_skills_yields_nothing(tmp_path: Path) -> None:
    make(tmp_path, {"skills/a/SKILL.md": SKILL_MD})
    (warning,) = discover(tmp_path).problems
    assert warning.severity.value == "warning" and warning.origin.path == "skills/a/SKILL.md"
    assert "found 1 skill(s) (a) but no eval file" in warning.message
    make(tmp_path, {"a/dataset.yaml": "tests: []"})
    (warning,) = discover(tmp_path).problems
    assert warning.origin.path == "a/dataset.yaml"
    assert "only below an evals/ folder" in warning.message
    assert discover(tmp_path / "skills").problems != ()


def test_discover__clauditor_reads_the_sibling_spec_first(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "skills/r/SKILL.md": SKILL_MD,
            "skills/r/SKILL.eval.json": "{}",
            "skills/r/assets/r.eval.json": "{}",
        },
    )
    (only,) = discover(tmp_path).files
    assert only.rel == "skills/r/SKILL.eval.json"
    (note,) = only.notes
    assert note.origin.path == "skills/r/assets/r.eval.json" and "not read" in note.message
