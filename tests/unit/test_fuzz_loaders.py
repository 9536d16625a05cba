"""Mutated eval files of every format through `load_file`: only problems come back, never a crash.

Each seed document is mutated structurally (drop, duplicate, retype and wrap fields at every
depth, nest deeply) and textually (truncate, inject bytes), then written with the file name
its format uses. Every outcome must be a `LoadResult` whose problems all name the file, and no
problem may be the "bug in evolve-action" one that stands for a loader crash. The generator is
seeded, so a failure names a reproducible mutation.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from evolve_action.formats import load_file
from evolve_action.formats.base import LoadContext
from evolve_action.formats.documents import JsonPath
from evolve_action.model.evals import Format, LoadResult, Skill

SEED = 20261122

EVOLVE = {
    "skill_name": "s",
    "models": ["anthropic", "openai/gpt-5.4"],
    "evals": [
        {
            "id": 1,
            "name": "first",
            "prompt": "Fix the workflow",
            "expected_output": "A safe workflow",
            "files": ["files/.github/workflows/ci.yaml", "fixtures/seed.txt"],
            "expectations": ["The workflow pins actions"],
            "assertions": [
                "Uses no secrets",
                {"type": "file_exists", "path": "out.txt"},
                {"type": "file_absent", "path": "tmp.txt"},
                {"type": "regex", "path": "out.txt", "pattern": "^ok$"},
                {"type": "not_regex", "pattern": "(?i)error"},
                {"type": "command", "run": "test -f out.txt", "expect_exit": 0, "cwd": "sub"},
                {"type": "tool_call", "tool": "^Bash$", "min_count": 1},
                {"type": "llm", "text": "The answer is polite"},
            ],
            "max_turns": 5,
            "timeout_seconds": 60,
        },
        {"id": "two", "prompt": "Second", "expectations": ["Done"], "skip_providers": ["openai"]},
    ],
}
TRIGGERS = {
    "skill_name": "s",
    "triggers": [
        {"query": "review my workflow", "should_trigger": True},
        {"query": "bake a cake", "should_trigger": False},
    ],
}
TRIGGER_ARRAY = [
    {"query": "make a sitemap", "should_trigger": True},
    {"query": "what is the weather", "should_trigger": False},
]
SKILL_EVALUATOR = {
    "skill_name": "s",
    "eval_config": {"runs_per_eval": 2, "structural_gate": True, "judge_model": "x"},
    "evals": [
        {
            "id": "plan",
            "prompt": "Plan it",
            "expected_output": "A plan",
            "files": ["evals/files/spec.md"],
            "structural_expectations": [
                {"id": "S1", "type": "file_exists", "pattern": "**/*.md", "critical": True},
                {"type": "file_contains", "pattern": "*.md", "match_any": ["Plan", "Steps"]},
                {"type": "file_not_contains", "match_regex": "TODO", "except_context": ["#"]},
                {"type": "file_count", "pattern": "*", "count": 2, "operator": ">="},
                {"type": "no_errors"},
                {"type": "custom_script", "script": "test -d ."},
            ],
            "quality_rubric": {
                "dimensions": [
                    {
                        "id": "Q1",
                        "name": "correctness",
                        "description": "Is it right?",
                        "weight": 2.0,
                        "scoring": {"1": "wrong", "3": "partly", "5": "right"},
                    }
                ]
            },
        },
        {
            "id": "talk",
            "mode": "guided-conversation",
            "rounds": [
                {"role": "planner", "phase": "p1", "prompt": "Ask"},
                {"role": "user", "response": "Yes"},
            ],
        },
    ],
}
CLAUDITOR = {
    "skill_name": "s",
    "description": "Finds things",
    "test_args": "--count 3",
    "input_files": ["assets/input.txt"],
    "assertions": [
        {"id": "a1", "type": "contains", "needle": "Venues"},
        {"id": "a2", "type": "regex", "pattern": "https?://\\S+"},
        {"id": "a3", "type": "min_length", "length": 10},
        {"id": "a4", "type": "has_entries", "count": 2},
    ],
    "sections": [
        {
            "name": "Venues",
            "tiers": [
                {
                    "label": "default",
                    "min_entries": 1,
                    "fields": [{"id": "f1", "name": "name", "required": True, "format": "url"}],
                }
            ],
        }
    ],
    "grading_criteria": [{"id": "g1", "criterion": "Is it near?"}],
    "grade_thresholds": {"min_pass_rate": 0.7, "min_mean_score": 0.5},
    "variance": {"n_runs": 3, "min_stability": 0.8},
    "trigger_tests": {"should_trigger": ["find venues"], "should_not_trigger": ["weather"]},
    "timeout": 120,
}
AGENTV = {
    "name": "suite",
    "description": "An agentv suite",
    "execution": {
        "evaluators": [
            {"name": "judge", "type": "llm_judge", "prompt": "Score {{candidate_answer}}"},
            {
                "name": "tools",
                "type": "tool_trajectory",
                "mode": "any_order",
                "minimums": {"Read": 1},
            },
        ]
    },
    "evalcases": [
        {
            "id": "c1",
            "expected_outcome": "Says hello",
            "input_messages": [
                {"role": "system", "content": "Be brief"},
                {"role": "user", "content": [{"type": "text", "value": "Hi"}]},
            ],
            "expected_messages": [{"role": "assistant", "content": "Hello"}],
            "rubrics": ["Greets", {"id": "r2", "expected_outcome": "Is brief", "weight": 2}],
        },
        {
            "id": "c2",
            "criteria": "Adds numbers",
            "input": "What is 2+2?",
            "expected_output": "4",
            "assert": [
                {"type": "contains", "value": "4"},
                {"type": "regex", "value": "\\d"},
                {"type": "composite", "evaluators": [{"type": "is_json"}]},
            ],
        },
    ],
}


@dataclass(frozen=True)
class Seed:
    name: str  # the file name its format uses
    fmt: Format
    data: Any
    mutations: int = 150


SEEDS = (
    # Fewer mutations where parsing is pure Python (json5, PyYAML), to stay fast.
    Seed("evals.json", Format.EVOLVE, EVOLVE),
    Seed("evals.yaml", Format.EVOLVE, EVOLVE, mutations=80),
    Seed("evals.jsonc", Format.EVOLVE, EVOLVE, mutations=30),
    Seed("triggers.json", Format.TRIGGERS, TRIGGERS),
    Seed("trigger-eval.json", Format.TRIGGERS, TRIGGER_ARRAY),
    Seed("evals.json", Format.EVOLVE, SKILL_EVALUATOR),  # sniffed as skill-evaluator
    Seed("SKILL.eval.json", Format.CLAUDITOR, CLAUDITOR),
    Seed("EVAL.yaml", Format.AGENTV, AGENTV, mutations=80),
    Seed("dataset.jsonl", Format.AGENTV, AGENTV["evalcases"]),
)

DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

ODD_VALUES: tuple[Any, ...] = (
    None,
    0,
    -1,
    1.5,
    10**30,
    True,
    False,
    "",
    " ",
    "x",
    "../../etc/passwd",
    "/abs/path",
    "(?<=look)behind",
    "\x00nul",
    "é" * 3000,
    [],
    [None],
    [[]],
    {},
    {"": None},
    {"type": None},
)


# --- mutations -----------------------------------------------------------------------------


def paths_of(data: Any, at: JsonPath = ()) -> Iterator[JsonPath]:
    yield at
    if isinstance(data, dict):
        for key, value in data.items():
            yield from paths_of(value, (*at, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from paths_of(value, (*at, i))


def get(data: Any, at: JsonPath) -> Any:
    for part in at:
        data = data[part]
    return data


def replace(data: Any, at: JsonPath, value: Any) -> Any:
    if not at:
        return value
    get(data, at[:-1])[at[-1]] = value
    return data


def deep(depth: int, rng: random.Random) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"k": value}
    return value


def structural(data: Any, rng: random.Random) -> tuple[str, Any]:
    data = json.loads(json.dumps(data))
    at = rng.choice(list(paths_of(data)))
    parent: Any = get(data, at[:-1]) if at else None
    kind = rng.choice(("drop", "duplicate", "retype", "wrap", "deep", "rename"))
    if kind == "drop" and at:
        del parent[at[-1]]
    elif kind == "duplicate" and isinstance(parent, list):
        index = int(at[-1])
        parent.insert(index, json.loads(json.dumps(parent[index])))
    elif kind == "wrap":
        value = get(data, at)
        data = replace(data, at, [value] if rng.random() < 0.5 else {"value": value})
    elif kind == "deep":
        data = replace(data, at, deep(rng.choice((5, 50, 250)), rng))
    elif kind == "rename" and at and isinstance(parent, dict):
        parent[str(at[-1]).upper()] = parent.pop(at[-1])
    else:
        kind = "retype"
        data = replace(data, at, rng.choice(ODD_VALUES))
    return f"{kind} at {list(at)}", data


def serialize(data: Any, name: str) -> bytes:
    if name.endswith((".yaml", ".yml")):
        try:
            return yaml.dump(data, Dumper=DUMPER, allow_unicode=True, sort_keys=False).encode()
        except RecursionError:  # too deep for PyYAML's writer; JSON is YAML's flow style
            return json.dumps(data, ensure_ascii=False).encode()
    if name.endswith(".jsonl"):
        rows = data if isinstance(data, list) else [data]
        return "\n".join(json.dumps(row, ensure_ascii=False) for row in rows).encode()
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if name.endswith(".jsonc"):
        text = "// comment\n" + text
    return text.encode()


def textual(raw: bytes, rng: random.Random) -> tuple[str, bytes]:
    kind = rng.choice(("truncate", "inject", "bom", "invalid-utf8", "swap"))
    cut = rng.randrange(len(raw) + 1)
    if kind == "truncate":
        return f"truncate at {cut}", raw[:cut]
    if kind == "inject":
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        return f"inject {junk!r} at {cut}", raw[:cut] + junk + raw[cut:]
    if kind == "bom":
        return "bom", b"\xef\xbb\xbf" + raw
    if kind == "invalid-utf8":
        return f"invalid utf-8 at {cut}", raw[:cut] + b"\xff\xfe" + raw[cut:]
    chars = [b"{", b"}", b"[", b"]", b":", b",", b'"', b"\n", b"- ", b"&a ", b"*a"]
    return f"swap at {cut}", raw[:cut] + rng.choice(chars) + raw[cut + 1 :]


def mutants(seed: Seed, rng: random.Random) -> Iterator[tuple[str, bytes]]:
    for _ in range(seed.mutations):
        labels, data = [], seed.data
        for _ in range(rng.choice((1, 1, 2, 3))):
            label, data = structural(data, rng)
            labels.append(label)
        label = ", ".join(labels)
        raw = serialize(data, seed.name)
        if rng.random() < 0.3:
            more, raw = textual(raw, rng)
            label += f", then {more}"
        yield label, raw


# --- the test ------------------------------------------------------------------------------


def skill_repo(root: Path) -> Skill:
    skill = root / "skills" / "s"
    for rel in ("SKILL.md", "evals/files/spec.md", "assets/input.txt", "fixtures/seed.txt"):
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_text(
            "---\nname: s\ndescription: d\n---\n" if rel == "SKILL.md" else "x"
        )
    return Skill("s", skill)


def check(result: object, rel: str, label: str) -> None:
    assert isinstance(result, LoadResult), label
    problems = list(result.problems)
    if result.suite is not None:
        problems.extend(result.suite.warnings)
    for problem in problems:
        assert problem.origin.path == rel, f"{label}: {problem.render()}"
        assert "bug in evolve-action" not in problem.message, f"{label}: {problem.message}"


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"{s.fmt.value}-{s.name}")
def test_load_file__survives_mutations(tmp_path: Path, seed: Seed) -> None:
    skill = skill_repo(tmp_path)
    ctx = LoadContext(root=tmp_path, skill=skill)
    path = skill.dir / "evals" / seed.name  # type: ignore[operator]
    rel = f"skills/s/evals/{seed.name}"
    rng = random.Random(f"{SEED}:{SEEDS.index(seed)}")
    path.write_bytes(serialize(seed.data, seed.name))
    check(load_file(path, rel, seed.fmt, ctx), rel, "the seed itself")
    for label, raw in mutants(seed, rng):
        path.write_bytes(raw)
        check(load_file(path, rel, seed.fmt, ctx), rel, label)


def test_mutations__are_many_and_deterministic() -> None:
    assert sum(seed.mutations for seed in SEEDS) >= 1000
    first = [label for label, _ in mutants(SEEDS[0], random.Random(1))]
    again = [label for label, _ in mutants(SEEDS[0], random.Random(1))]
    assert first == again
    assert {label.split()[0] for label in first} >= {"drop", "retype", "wrap", "deep"}


# --- inputs the random walk may miss ---------------------------------------------------------

TOO_LONG = "é" * 3000  # longer than any file name the OS accepts


def load_one(tmp_path: Path, name: str, fmt: Format, raw: bytes) -> tuple[LoadResult, str]:
    skill = skill_repo(tmp_path)
    path = skill.dir / "evals" / name  # type: ignore[operator]
    path.write_bytes(raw)
    rel = f"skills/s/evals/{name}"
    return load_file(path, rel, fmt, LoadContext(root=tmp_path, skill=skill)), rel


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("evals.json", b"[" * 100_000 + b"]" * 100_000),
        ("evals.jsonc", b"[" * 3_000 + b"]" * 3_000),
        ("evals.yaml", b"a: " + b"[" * 1_200 + b"]" * 1_200),
        ("EVAL.yaml", b"- " * 3_000 + b"x"),
        ("evals.json", b""),
        ("evals.yaml", b""),
        ("evals.json", bytes(range(256))),
        ("evals.yaml", b"key: \x12value\n"),
        ("dataset.jsonl", b'{"id": 1}\n[' + b"[" * 5_000 + b"\n"),
    ],
)
def test_load_file__hostile_text_is_a_problem(tmp_path: Path, name: str, raw: bytes) -> None:
    fmt = Format.AGENTV if name in ("EVAL.yaml", "dataset.jsonl") else Format.EVOLVE
    result, rel = load_one(tmp_path, name, fmt, raw)
    check(result, rel, name)
    # An error where the file is surely the format's; a file that may be another tool's (an
    # empty `evals.yaml`) gets a warning that it was not run, never a red check.
    assert result.suite is None and result.problems


def test_load_file__a_directory_in_place_of_the_file(tmp_path: Path) -> None:
    skill = skill_repo(tmp_path)
    (skill.dir / "evals" / "evals.json").mkdir()  # type: ignore[operator]
    result = load_file(
        skill.dir / "evals" / "evals.json",  # type: ignore[operator]
        "evals.json",
        Format.EVOLVE,
        LoadContext(root=tmp_path, skill=skill),
    )
    (problem,) = result.problems
    assert problem.message.startswith("cannot read the file")


def _long_names() -> list[Any]:
    def edit(data: Any, change: Callable[[Any], None]) -> Any:
        data = json.loads(json.dumps(data))
        change(data)
        return data

    return [
        pytest.param(
            "evals.json",
            edit(EVOLVE, lambda d: d["evals"][0]["files"].__setitem__(0, TOO_LONG)),
            id="evolve-files",
        ),
        pytest.param(
            "evals.json",
            edit(SKILL_EVALUATOR, lambda d: d["evals"][0]["files"].__setitem__(0, TOO_LONG)),
            id="skill-evaluator-files",
        ),
        pytest.param(
            "SKILL.eval.json",
            edit(CLAUDITOR, lambda d: d["input_files"].__setitem__(0, TOO_LONG)),
            id="clauditor-input-files",
        ),
        pytest.param(
            "EVAL.yaml",
            edit(AGENTV, lambda d: d.__setitem__("evalcases", TOO_LONG + ".yaml")),
            id="agentv-case-file",
        ),
        pytest.param(
            "EVAL.yaml",
            edit(
                AGENTV,
                lambda d: d["execution"]["evaluators"][0].__setitem__("prompt", TOO_LONG + ".md"),
            ),
            id="agentv-prompt-file",
        ),
    ]


@pytest.mark.parametrize(("name", "data"), _long_names())
def test_load_file__a_file_reference_too_long_for_the_os(
    tmp_path: Path, name: str, data: Any
) -> None:
    fmt = {"SKILL.eval.json": Format.CLAUDITOR, "EVAL.yaml": Format.AGENTV}.get(name, Format.EVOLVE)
    result, rel = load_one(tmp_path, name, fmt, serialize(data, name))
    check(result, rel, name)
    # An error, or a warning where the format's own tool never checks its fixtures (evolve's
    # `files`): the case then runs without the file, and the warning says so.
    assert result.problems, "a file name the OS refuses must be reported"


def test_load_file__composite_evaluators_nested_deeply(tmp_path: Path) -> None:
    evaluator: Any = {"type": "contains", "value": "x"}
    for _ in range(300):  # JSON reaches this depth; YAML's reader stops earlier
        evaluator = {"type": "composite", "evaluators": [evaluator]}
    rows = json.loads(json.dumps(AGENTV["evalcases"]))
    rows[1]["assert"] = [evaluator]
    result, rel = load_one(tmp_path, "dataset.jsonl", Format.AGENTV, serialize(rows, ".jsonl"))
    check(result, rel, "deep composite")
