"""Write bench/corpus/manifest.json: the corpus of other people's skill repositories for
measuring how `evolve-action validate` reads eval files it did not write.

Run: `.venv/bin/python -m bench.corpus.make_manifest [--data DIR]` (default DIR
/work/wt/corpus-data, where each repository is checked out as `<owner>+<name>/` with its
commit in `<owner>+<name>.commit`). The repositories, their conventions and the globs of the
eval files each convention's own tool loads are listed below by hand; the script counts the
files and draws the held-out third.

The split is drawn once, with a fixed seed, stratified by convention (strata of one
repository are pooled, so a lone repository is not always on the build side), and written
into the manifest. Re-running keeps an existing split: the held-out third is fixed before any
reader is built and must not be redrawn or looked at while building them.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from bench.corpus.build3 import BUILD3
from bench.corpus.globs import match_files
from bench.corpus.repo import Repo

SEED = 20261128
ADDED = ("build2", "build3")  # sets gathered after the draw, on a fixed side
MANIFEST = Path(__file__).with_name("manifest.json")
DATA = Path("/work/wt/corpus-data")

VALLY = ["**/eval.yaml", "**/eval.yml", "**/*.eval.yaml", "**/*.eval.yml"]
NOT_CI = ["**/node_modules/**", ".github/**"]
SKILL_CREATOR = ["**/evals/evals.json", "**/evals/trigger-eval.json", "**/evals/trigger_eval.json"]

# Files of one reconstructed repository: the snapshot store had none of them (its snapshot
# predates the format), so each was read from the search index at its own commit.
HOMEASSISTANT_COMMITS = {
    "area-target-over-entity-list": "0c1e36cc886ae86e106aa9fa2eedbfabd558d32d",
    "arrive-home-automation": "0c1e36cc886ae86e106aa9fa2eedbfabd558d32d",
    "assist-shortcut-card": "0c1e36cc886ae86e106aa9fa2eedbfabd558d32d",
    "automation-storage-location": "ae0c2b4168f77cbb1e05a8bd65390427bf071c12",
    "avg-temperature": "0324b3d05d7b4b4d5af19289c3c7caa8f05414f6",
    "backup-deletion-confirmation": "0c1e36cc886ae86e106aa9fa2eedbfabd558d32d",
    "battery-low-notification": "0324b3d05d7b4b4d5af19289c3c7caa8f05414f6",
    "blueprint-authoring": "0c1e36cc886ae86e106aa9fa2eedbfabd558d32d",
    "button-event-entity": "060a3bd14f59144eed7cfb7e90592f7106788f01",
    "device-id-trigger-migration": "0c1e36cc886ae86e106aa9fa2eedbfabd558d32d",
    "doorbell-flash-restore-lights": "0c1e36cc886ae86e106aa9fa2eedbfabd558d32d",
    "floor-no-motion-lights-off": "0c1e36cc886ae86e106aa9fa2eedbfabd558d32d",
    "holdout-hue-triple-press": "64ec9fafc2fa0d53b035bcf6edf41816f25b2bb7",
}

# Three AXIS repositories the snapshot store had no snapshot of, read from the search index.
AUTHSTACK_COMMITS = {
    "axis.config.json": "83404281ac7519eddeeca3a0766a64c7bafa6692",
    "setup-agentkit": "931e4c262abab8aaebeee7b70f3b03710cb3d346",
    "agentkit-empty-project": "931e4c262abab8aaebeee7b70f3b03710cb3d346",
    "add-mcp-oauth": "da1547c8bd815908fa7b27a35779512080c3d6d1",
    "setup-scalekit": "f41851f64da795d05cc9c8bc6481cb803795d577",
}
LOISIR_COMMITS = {
    "axis.config.json": "96073c7dc7c70f413183a388b7ab4e63795fd3c7",
    "ai-discovery": "9e999c861d176543ae7e398a57b27de078f547c2",
    "comparison": "69694839c4a4755aa3044c485b3245efc86518cc",
    "fact-extraction": "e25b4977f3e4a2526cc35ba5cc16d533776f862e",
    "multilingual-cs": "22ea2c493cf269d547e7b24881ba773b4b2d100d",
    "planning": "9e999c861d176543ae7e398a57b27de078f547c2",
    "structured-data": "22ea2c493cf269d547e7b24881ba773b4b2d100d",
}


REPOS: tuple[Repo, ...] = (
    Repo(
        "homeassistant-ai/skills",
        ("claude-plugin-eval",),
        ("evals/*/case.yaml",),
        parts=("evals/*/prompt.md", "evals/*/graders/*.md"),
        note="13 of the 29 self-contained case.yaml (execution.prompt, inline graders)",
        source="index-reconstruction",
        directory="homeassistant-ai+skills-index",
        file_commits=HOMEASSISTANT_COMMITS,
    ),
    Repo("diegovelasquezweb/a11y-skill", ("best-practice-case",), ("evals/*.json",)),
    Repo(
        "sfc-gh-wkot/streamlit-from-diagram-skill",
        ("best-practice-case",),
        ("**/evaluations/*.json",),
        note="adds a grading object beside expected_behavior",
    ),
    Repo(
        "alpic-ai/skybridge",
        ("best-practice-case",),
        ("skills/*/evals/*.json",),
        note="variant: a JSON array of {query, expected_behavior} per file",
    ),
    Repo("dwmkerr/claude-toolkit", ("skill-test-action",), ("**/skill-tests.yaml",), NOT_CI),
    Repo("dwmkerr/slides", ("skill-test-action",), ("**/skill-tests.yaml",), NOT_CI),
    Repo(
        "netlify/axis",
        ("axis",),
        ("**/axis.config.json",),
        ("**/node_modules/**", "src/**", "test/unit/**"),
        parts=("**/scenarios/*.json", "scenarios/*.ts"),
        note="the tool's own repository: its self-test scenarios and e2e fixtures",
    ),
    Repo(
        "netlify/context-and-tools",
        ("axis",),
        ("axis.config.json",),
        ("axis-scenarios/helpers/**",),
        parts=("axis-scenarios/**/*.ts",),
        note="scenarios as TypeScript modules",
    ),
    Repo("MarkTechson/angular-developer", ("skillgrade",), ("**/eval.yaml",)),
    Repo("jimmyokusa/GoSkill", ("skillgrade",), ("**/eval.yaml",)),
    Repo(
        "mgechev/skillgrade",
        ("skillgrade",),
        ("**/eval.yaml",),
        ("**/node_modules/**", "src/**", "tests/**"),
        note="the tool's own repository: its eval.yaml and examples",
    ),
    Repo(
        "edonadei/caliper",
        ("caliper",),
        ("**/*.eval.yaml",),
        note="the tool's own repository: starter pack, skill specs, smoke specs",
    ),
    Repo("adriancooney/evals", ("eval-md",), ("**/*.eval.md",)),
    Repo("dash0hq/agent-skills", ("tessl-plugin",), ("**/criteria.json",)),
    Repo("martinfrancois/java-streams-skill", ("tessl-plugin",), ("**/criteria.json",)),
    Repo("jbaruch/speaker-toolkit", ("tessl-plugin",), ("**/criteria.json",)),
    Repo("pyxll/pyxll-agent-skills", ("tessl-plugin",), ("**/criteria.json",)),
    Repo("igmarin/elixir-phoenix-skills", ("tessl-plugin",), ("**/criteria.json",)),
    Repo("microsoft/GitHub-Copilot-for-Azure", ("vally-suite",), tuple(VALLY), NOT_CI),
    Repo("Azure/AKS-Skills", ("vally-suite",), tuple(VALLY), NOT_CI),
    Repo("Azure/azure-functions-skills", ("vally-suite",), tuple(VALLY), NOT_CI),
    Repo(
        "AzureCosmosDB/cosmosdb-agent-kit",
        ("vally-suite",),
        ("evals/*/eval.yaml",),
        parts=("evals/*/tasks/*.yaml",),
        note=".vally.yaml with files.taskGlob: a suite file plus task files",
    ),
    Repo("heaths/plugins", ("vally-suite",), tuple(VALLY), NOT_CI),
    Repo("huanluu/evalVally", ("vally-suite",), tuple(VALLY), NOT_CI),
    Repo(
        "microsoft/vscode-team-kit",
        ("waza",),
        ("**/evals/eval.yaml", "**/evals/trigger_tests.yaml"),
        NOT_CI,
        parts=("**/evals/tasks/*.yaml",),
        note="found by its .vally.yaml paths, but its files are waza's; relabelled after the"
        " split was drawn (the split itself did not move)",
    ),
    Repo("TimeWarpEngineering/timewarp-architecture", ("vally-suite",), tuple(VALLY), NOT_CI),
    Repo("mjrousos/ChessTrainer", ("vally-suite",), tuple(VALLY), NOT_CI),
    Repo("AaronLPS/loop-builder", ("skill-creator",), tuple(SKILL_CREATOR)),
    Repo("1273984347/self-evolution", ("skill-creator",), tuple(SKILL_CREATOR)),
    Repo("1273984347/mem-wrap-up", ("skill-creator",), tuple(SKILL_CREATOR)),
    Repo(
        "A-H-911/tamheed",
        ("skill-creator",),
        tuple(SKILL_CREATOR),
        note="variant: {skill, standard, method, results_layout, cases}",
    ),
    Repo("88lin/zheng-qinan-skill", ("skill-creator",), tuple(SKILL_CREATOR)),
    Repo("16Miku/auto-remotion", ("skill-creator",), tuple(SKILL_CREATOR)),
    Repo("24kchengYe/prompt-harness", ("skill-creator",), tuple(SKILL_CREATOR)),
    Repo(
        "Marcusk19/obsidian-agent-tools",
        ("unknown-tool",),
        ("eval.yaml",),
        note="an eval.yaml of a tool we do not know (execution.mode, runner.type)",
    ),
)


# A second build set, gathered after the held-out third was drawn and measured, to test that
# the readers generalize to repositories none of them was tuned on before being measured.
# Never held out (the held-out third stays as drawn); measured before the readers changed.
BUILD2: tuple[Repo, ...] = (
    Repo(
        "adityamandaleeka/skills",
        ("vally-suite",),
        ("tests/**/eval.vally.yaml",),
        note="a .vally.yaml naming `eval.vally.yaml` as the eval file name; the `eval.yaml`"
        " beside each is the skill-validator file of the same cases",
        split="build2",
    ),
    Repo(
        "microsoft/hve-core",
        ("vally-suite",),
        ("evals/**/eval.yaml",),
        NOT_CI,
        note="suites chosen by tag filters, multi-turn stimuli, wall-time graders",
        split="build2",
    ),
    Repo(
        "elvisw/dotnet-skills",
        ("vally-suite",),
        ("tests/**/eval.yaml",),
        note="dotnet/skills before its .vally.yaml: Vally-shaped specs read by skill-validator",
        split="build2",
    ),
    Repo(
        "spboyer/waza",
        ("waza",),
        ("examples/*/eval.yaml", "examples/*/trigger_tests.yaml"),
        parts=("examples/*/tasks/*.yaml",),
        note="the tool's own repository: its example suite",
        split="build2",
    ),
    Repo(
        "scalekit-inc/authstack",
        ("axis",),
        ("axis.config.json",),
        parts=("scenarios/setup/*.json",),
        note="4 of its 24 scenarios (scenario-level `skills`, `agents`, `skip`), config keys"
        " `skills`, `env`",
        source="index-reconstruction",
        directory="scalekit-inc+authstack-index",
        file_commits=AUTHSTACK_COMMITS,
        split="build2",
    ),
    Repo(
        "FocusedCreativity/knowngate",
        ("axis",),
        ("axis.config.json",),
        parts=("axis/scenarios/*.json",),
        note="config keys `name`, `env`, `artifacts`",
        source="index-reconstruction",
        directory="FocusedCreativity+knowngate-index",
        file_commits={"*": "61ce348bb34486bcbf15c038245f1bfaf7f1ebe4"},
        split="build2",
    ),
    Repo(
        "eddie-boop14/Loisir-74",
        ("axis",),
        ("axis.config.json",),
        parts=("axis-scenarios/*.json",),
        source="index-reconstruction",
        directory="eddie-boop14+Loisir-74-index",
        file_commits=LOISIR_COMMITS,
        split="build2",
    ),
    Repo(
        "getsentry/skills",
        ("axis",),
        ("**/axis.config.json",),
        parts=("**/evals/scenarios/*.json",),
        note="an AXIS config per skill, found after the held-out measurement",
        split="build2",
    ),
    Repo("adobe/aio-lib-telemetry", ("tessl-plugin",), ("**/criteria.json",), split="build2"),
    Repo("ivan-magda/uikit-expert-skill", ("tessl-plugin",), ("**/criteria.json",), split="build2"),
    Repo(
        "nicholasjackson/tessl-tile-opa-rego-language",
        ("tessl-plugin",),
        ("**/criteria.json",),
        split="build2",
    ),
    Repo("igmarin/rails-agent-skills", ("tessl-plugin",), ("**/criteria.json",), split="build2"),
    Repo("88lin/diataxis-docs-skill", ("skill-creator",), tuple(SKILL_CREATOR), split="build2"),
    Repo("16Miku/Mapping-Skill", ("skill-creator",), tuple(SKILL_CREATOR), split="build2"),
)


def commit_of(data: Path, repo: Repo) -> str | None:
    marker = data / f"{repo.dir}.commit"
    return marker.read_text().strip() if marker.is_file() else None


def draw_split(repos: tuple[Repo, ...]) -> dict[str, str]:
    """A third of each convention held out at random; strata of one pooled as `rare`."""
    strata: dict[str, list[str]] = {}
    sizes: dict[str, int] = {}
    for r in repos:
        sizes[r.conventions[0]] = sizes.get(r.conventions[0], 0) + 1
    for r in repos:
        key = r.conventions[0] if sizes[r.conventions[0]] > 1 else "rare"
        strata.setdefault(key, []).append(r.repo)
    rng = random.Random(SEED)
    split: dict[str, str] = {}
    for key in sorted(strata):
        members = sorted(strata[key])
        rng.shuffle(members)
        held = max(1, round(len(members) / 3))
        for i, name in enumerate(members):
            split[name] = "heldout" if i < held else "build"
    return split


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--redraw", action="store_true", help="draw the split again (never)")
    args = parser.parse_args()
    previous = json.loads(MANIFEST.read_text()) if MANIFEST.is_file() else None
    if previous and not args.redraw:
        split = {r["repo"]: r["split"] for r in previous["repos"] if r["split"] not in ADDED}
        missing = [r.repo for r in REPOS if r.repo not in split]
        if missing:
            raise SystemExit(f"repositories without a split: {missing}; the split is fixed")
    else:
        split = draw_split(REPOS)
    split.update({r.repo: r.split for r in (*BUILD2, *BUILD3)})
    entries = []
    for r in (*REPOS, *BUILD2, *BUILD3):
        files = match_files(args.data / r.dir, r.globs, r.exclude)
        parts = match_files(args.data / r.dir, r.parts, r.exclude) if r.parts else []
        entries.append(
            {
                "repo": r.repo,
                "dir": r.dir,
                "commit": commit_of(args.data, r),
                "source": r.source,
                "conventions": list(r.conventions),
                "split": split[r.repo],
                "eval_globs": list(r.globs),
                "exclude_globs": list(r.exclude),
                "eval_files": len(files),
                **({"part_globs": list(r.parts), "part_files": len(parts)} if r.parts else {}),
                **({"file_commits": r.file_commits} if r.file_commits else {}),
                **({"note": r.note} if r.note else {}),
            }
        )
    manifest = {
        "version": 1,
        "seed": SEED,
        "stratified_by": "first convention; strata of one pooled as 'rare'",
        "data_dir_default": str(DATA),
        "repos": entries,
    }
    MANIFEST.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    held = sum(e["split"] == "heldout" for e in entries)
    files = sum(e["eval_files"] for e in entries)
    print(f"{len(entries)} repositories, {held} held out, {files} eval files")


if __name__ == "__main__":
    main()
