"""The third build set: AXIS repositories gathered after the second, measured before the
AXIS reader learned their shapes (configs written as TypeScript, scenarios as modules), and a
repository whose `axis.config.json` is another tool's file (a name collision)."""

from __future__ import annotations

from bench.corpus.repo import Repo

# The snapshot store's newest snapshot of storyblok/monoblok no longer holds its AXIS
# folders, so these five files were read from the search index at these commits.
MONOBLOK_COMMITS = {
    "tools/axis/axis.config.ts": "2603f8e9ee08be345210ece87f1efadb3e704002",
    "tools/axis/scenarios/offline/validate-schema.ts": "2603f8e9ee08be345210ece87f1efadb3e704002",
    "tools/axis/scenarios/space/add-field.ts": "2603f8e9ee08be345210ece87f1efadb3e704002",
    "tools/agent-evals/axis.config.ts": "3d37876afd5c6ff29ae395a2ae2e689269b00165",
    "tools/agent-evals/scenarios/skills/triage.ts": "811a381e2bd78969e0aa9b7bf34148e65a8626a6",
}

BUILD3: tuple[Repo, ...] = (
    Repo(
        "storyblok/monoblok",
        ("axis",),
        ("**/axis.config.ts",),
        parts=("tools/*/scenarios/**/*.ts",),
        note="two `axis.config.ts` (a literal `export default {...}`, and a typed `const`"
        " exported by name with code-valued `agents`); scenario modules whose prompt is"
        ' `[...].join(" ")`, one a template with `${}`, one a helper call',
        source="index-reconstruction",
        directory="storyblok+monoblok-index",
        file_commits=MONOBLOK_COMMITS,
        split="build3",
    ),
    Repo(
        "ViVaLaDaniel/Axis-Studio",
        ("unknown-tool",),
        ("axis.config.json",),
        note="an `axis.config.json` that is not AXIS's (project paths and LLM settings):"
        " must get no error",
        split="build3",
    ),
)
