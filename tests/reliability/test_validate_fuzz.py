"""10,000 mutated eval files of every format through `evolve-action validate`.

Mutations (drop, duplicate, retype, wrap, deeply nest, rename fields; truncate, inject
bytes, BOM, invalid UTF-8) come from `tests/unit/test_fuzz_loaders.py`, seeded. Files are
written in batches under their format's file names and validated by `cli.main` in-process
(the same entry point as the console script), one call per batch; one batch also goes
through discovery in a real subprocess. Asserted every time: no traceback, exit 0 or 1,
every file reported, and every problem names the file it is about.

Four shards of 2,500 let `pytest -n` spread the work.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from evolve_action.commands.cli import main
from tests.reliability.helpers import run_cli
from tests.unit.test_fuzz_loaders import SEEDS, Seed, mutants, serialize

TOTAL = 10_000
SHARDS = 4
BATCH = 250
SEED = 20261122
# Relative weights: the pure-Python parsers (YAML with line numbers, json5) cost 5-25 times
# more per file than JSON, so they get fewer files; every format is still well covered.
WEIGHTS = {
    "evals.json": 6.0,  # evolve and skill-evaluator (sniffed) seeds share the name
    "evals.yaml": 1.0,
    "evals.jsonc": 0.2,
    "triggers.json": 3.0,
    "trigger-eval.json": 2.0,
    "SKILL.eval.json": 6.0,
    "EVAL.yaml": 1.0,
    "dataset.jsonl": 3.0,
}


def fixtures_of(seed: Seed) -> tuple[str, ...]:
    """The fixtures the seed lists, where its format looks for them."""
    if seed.name == "SKILL.eval.json":
        return ("assets/input.txt",)
    if isinstance(seed.data, dict) and "eval_config" in seed.data:  # skill-evaluator
        return ("evals/files/spec.md",)
    if seed.name.startswith("evals."):  # evolve reads `files` from the evals directory
        return ("evals/fixtures/seed.txt", "evals/files/.github/workflows/ci.yaml")
    return ()


SKILL_MD = "---\nname: {name}\ndescription: d\n---\nDo it.\n"


def mutated(rng: random.Random, count: int) -> list[tuple[Seed, str, bytes]]:
    weights = [WEIGHTS[s.name] for s in SEEDS]
    out = []
    for _ in range(count):
        seed = rng.choices(SEEDS, weights)[0]
        ((label, raw),) = mutants(replace(seed, mutations=1), rng)
        out.append((seed, label, raw))
    return out


def place(root: Path, index: int, seed: Seed) -> Path:
    """Where the file's format puts it, in its own skill directory (fixtures included)."""
    skill = root / "skills" / f"s{index}"
    for fixture in fixtures_of(seed):  # only what the seed lists: fewer files to write
        (skill / fixture).parent.mkdir(parents=True, exist_ok=True)
        (skill / fixture).write_text("x")
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(SKILL_MD.format(name=f"s{index}"))
    if seed.name == "SKILL.eval.json":
        return skill / f"s{index}.eval.json"  # clauditor: beside the skill, named after it
    if seed.name == "triggers.json":
        return root / "evals" / f"s{index}" / seed.name  # evolve: evals/<skill>/
    return skill / "evals" / seed.name  # skill-creator's layout (agentv files go anywhere)


def write_batch(root: Path, batch: list[tuple[Seed, str, bytes]]) -> dict[str, str]:
    """Write the batch below `root`; returns each file's relative path → its mutation."""
    labels = {}
    for index, (seed, label, raw) in enumerate(batch):
        path = place(root, index, seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
        labels[path.relative_to(root).as_posix()] = f"{seed.fmt.value} {seed.name}: {label}"
    return labels


def check_report(code: int, out: str, err: str, labels: dict[str, str]) -> None:
    assert "Traceback" not in out + err, err[-3000:]
    assert code in (0, 1), (code, err[-2000:])
    report = json.loads(out)
    assert report["problems"] == [] or all(p["path"] for p in report["problems"])
    reported = [f["path"] for f in report["files"]]
    assert sorted(reported) == sorted(labels), set(labels) ^ set(reported)
    for entry in report["files"]:
        label = labels[entry["path"]]
        for problem in entry["problems"]:
            assert problem["path"] == entry["path"], (label, problem)
            assert "bug in evolve-action" not in problem["message"], (label, problem)
            assert problem["message"].strip(), (label, problem)
    errors = sum(p["severity"] == "error" for f in report["files"] for p in f["problems"])
    assert code == (1 if errors else 0), (code, errors)


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A memory-backed directory when there is one: thousands of small files are written."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(dir=shm, prefix="evolve-fuzz-") as name:
        yield Path(name)


@pytest.mark.parametrize("shard", range(SHARDS))
def test_validate_fuzz__no_traceback_exit_0_or_1_every_problem_names_its_file(
    shard: int, scratch: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(f"{SEED}:{shard}")
    files = mutated(rng, TOTAL // SHARDS)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    for start in range(0, len(files), BATCH):
        root = scratch / f"batch{start}"
        labels = write_batch(root, files[start : start + BATCH])
        monkeypatch.chdir(root)
        code = main(["validate", "--format", "json", *labels])
        out, err = capsys.readouterr()
        check_report(code, out, err, labels)
        monkeypatch.chdir(scratch)
        shutil.rmtree(root)


def test_validate_fuzz__a_mutated_repository_through_discovery_in_a_subprocess(
    tmp_path: Path,
) -> None:
    """The console entry point on a whole repository: discovery finds every file."""
    labels = write_batch(tmp_path / "repo", mutated(random.Random(f"{SEED}:cli"), BATCH))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = run_cli(["validate", "--format", "json", "."], env, tmp_path / "repo")
    check_report(done.returncode, done.stdout, done.stderr, labels)


def test_validate_fuzz__mutants_are_seeded_and_cover_every_format() -> None:
    first = mutated(random.Random(f"{SEED}:0"), 300)
    again = mutated(random.Random(f"{SEED}:0"), 300)
    assert [(s.name, label, raw) for s, label, raw in first] == [
        (s.name, label, raw) for s, label, raw in again
    ]
    assert {s.fmt for s, _, _ in first} == {s.fmt for s in SEEDS}
    assert serialize  # the same writer as the unit fuzz test
