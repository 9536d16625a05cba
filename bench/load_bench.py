"""Time discovery + loading + `validate` over a generated repository of 200 suites, 2,000 cases.

Run: `.venv/bin/python bench/load_bench.py` (add `--keep DIR` to keep the generated repo).
Prints one JSON line; the figure that matters is `best_s`, the best of five full passes.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from evolve_action.commands import validate
from evolve_action.formats import load_all
from evolve_action.formats.discovery import discover

SUITES = 200
CASES_PER_SUITE = 10
REPEATS = 5

# Suites per format; the rest are evolve evals.json. A mix like a real marketplace's.
MIX = {"evolve-yaml": 10, "triggers": 20, "skill-evaluator": 10, "clauditor": 10, "agentv": 10}


def evolve_case(i: int) -> dict[str, Any]:
    return {
        "id": i,
        "name": f"case {i}",
        "prompt": f"Fix the workflow in case {i} so that it pins every action to a commit SHA.",
        "expected_output": "A workflow whose actions are pinned.",
        "files": ["files/.github/workflows/ci.yaml"],
        "expectations": ["Every uses: line is pinned to a full commit SHA"],
        "assertions": [
            "The explanation names the risk",
            {"type": "file_exists", "path": ".github/workflows/ci.yaml"},
            {"type": "regex", "path": ".github/workflows/ci.yaml", "pattern": "@[0-9a-f]{40}"},
            {"type": "not_regex", "path": ".github/workflows/ci.yaml", "pattern": "@v\\d+"},
            {"type": "command", "run": "test -s .github/workflows/ci.yaml", "expect_exit": 0},
            {"type": "tool_call", "tool": "^(Edit|Write)$", "min_count": 1},
        ],
    }


def skill_evaluator_case(i: int) -> dict[str, Any]:
    return {
        "id": f"e{i}",
        "prompt": f"Plan feature {i}",
        "expected_output": "A plan",
        "structural_expectations": [
            {"type": "file_exists", "pattern": "**/*.md", "critical": True},
            {"type": "file_contains", "pattern": "*.md", "match_any": ["Plan", "Steps"]},
        ],
        "quality_rubric": {
            "dimensions": [
                {
                    "name": "correctness",
                    "description": "Is the plan right?",
                    "weight": 2.0,
                    "scoring": {"1": "wrong", "3": "partly", "5": "right"},
                }
            ]
        },
    }


def clauditor_spec(n: int) -> dict[str, Any]:
    return {
        "description": "Finds venues",
        "test_args": "--count 3",
        "assertions": [
            {"id": f"a{i}", "type": "contains", "needle": f"Venue {i}"} for i in range(n - 1)
        ],
        "grading_criteria": [{"id": "g1", "criterion": "Are the venues near?"}],
    }


def agentv_suite(n: int) -> dict[str, Any]:
    return {
        "description": "agentv suite",
        "evalcases": [
            {
                "id": f"c{i}",
                "expected_outcome": "Answers correctly",
                "input_messages": [{"role": "user", "content": f"What is {i} + {i}?"}],
                "expected_messages": [{"role": "assistant", "content": str(2 * i)}],
                "rubrics": ["States the sum", "Is brief"],
            }
            for i in range(n)
        ],
    }


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def generate(root: Path) -> None:
    """A marketplace of 20 plugins holding every format; SUITES files, SUITES×10 cases."""
    write(root / ".claude-plugin/marketplace.json", '{"name": "bench"}')
    kinds = [kind for kind, count in MIX.items() for _ in range(count)]
    kinds += ["evolve"] * (SUITES - len(kinds))
    for n, kind in enumerate(kinds):
        plugin = root / "plugins" / f"p{n % 20:02d}"
        skill = f"skill-{n:03d}"
        skill_dir = plugin / "skills" / skill
        write(skill_dir / "SKILL.md", f"---\nname: {skill}\ndescription: Use when {n}.\n---\n")
        eval_dir = plugin / "evals" / skill
        write(eval_dir / "files/.github/workflows/ci.yaml", "on: push\n")
        cases = [evolve_case(i) for i in range(CASES_PER_SUITE)]
        if kind == "evolve":
            write(eval_dir / "evals.json", json.dumps({"skill_name": skill, "evals": cases}))
        elif kind == "evolve-yaml":
            write(eval_dir / "evals.yaml", yaml.safe_dump({"evals": cases}, sort_keys=False))
        elif kind == "triggers":
            queries = [
                {"query": f"please review workflow {i}", "should_trigger": i % 2 == 0}
                for i in range(CASES_PER_SUITE)
            ]
            write(eval_dir / "triggers.json", json.dumps({"triggers": queries}))
        elif kind == "skill-evaluator":
            evals = [skill_evaluator_case(i) for i in range(CASES_PER_SUITE)]
            data = {"eval_config": {"runs_per_eval": 3}, "evals": evals}
            write(skill_dir / "evals/evals.json", json.dumps(data))
        elif kind == "clauditor":
            # clauditor's primary case plus its trigger tests make up the ten cases.
            spec = clauditor_spec(5)
            spec["trigger_tests"] = {
                "should_trigger": [f"find venues {i}" for i in range(5)],
                "should_not_trigger": [f"weather {i}" for i in range(4)],
            }
            write(skill_dir / "SKILL.eval.json", json.dumps(spec))
        else:
            write(root / "agentv" / skill / "EVAL.yaml", yaml.safe_dump(agentv_suite(10)))


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def one_pass(root: Path) -> dict[str, Any]:
    discover_s, found = timed(lambda: discover(root))
    load_s, results = timed(lambda: load_all(root))

    def run_validate() -> validate.Report:
        report = validate.collect([root], globs=None, layout=None, as_format=None, cwd=root)
        validate.write_text(report, io.StringIO())
        return report

    validate_s, report = timed(run_validate)
    return {
        "discover_s": discover_s,
        "load_all_s": load_s,
        "validate_s": validate_s,
        "files": len(found.files),
        "cases": sum(len(r.suite.cases) for r in results if r.suite is not None),
        "errors": report.counts()[2],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, help="generate the repository here and keep it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch)
        generate(root)
        passes = [one_pass(root) for _ in range(REPEATS)]
    best = min(passes, key=lambda p: p["validate_s"])
    line = {
        "bench": "load",
        "suites": SUITES,
        "files": best["files"],
        "cases": best["cases"],
        "errors": best["errors"],
        "best_s": round(best["validate_s"], 3),
        "discover_s": round(min(p["discover_s"] for p in passes), 3),
        "load_all_s": round(min(p["load_all_s"] for p in passes), 3),
        "validate_runs_s": [round(p["validate_s"], 3) for p in passes],
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
