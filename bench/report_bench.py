"""Time `evolve-action report` on a large results file (issue 16, item 3; issue 17).

Writes a results directory of 1,800 runs (30 suites × 5 cases × 2 models × 3 runs × 2
sides, each run with six items, twelve tool calls and a few hundred bytes of final text, as
a real agent run leaves), then times `evolve-action report DIR` as a fresh process (best of
`--repeat`) and, in process, the stages of loading it: JSON parsing, schema validation and
rebuilding the runs, and jsonschema's own validation for comparison. Prints one JSON line
with the best wall and CPU time of each.

    .venv/bin/python -m bench.report_bench           # --suites 30 --repeat 3 --keep DIR
    .venv/bin/python -m bench.report_bench --python ../main/.venv/bin/python   # another tree
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evolve_action.model.evals import Case, Check, Format, Origin, Skill, Suite
from evolve_action.model.outcomes import (
    ItemResult,
    JudgeReport,
    RunResult,
    Side,
    Status,
    ToolCall,
    Transcript,
    Usage,
)
from evolve_action.model.records import run_from_doc
from evolve_action.publish.results.load import load_results, validate
from evolve_action.publish.results.record import JobRecord
from evolve_action.publish.results.write import ResultsData, _validator, write_results
from evolve_action.verdict.stats import aggregate

MODELS = ("anthropic/claude-sonnet-4-6", "openai/gpt-5.4")
CASES, RUNS, ITEMS, CALLS = 5, 3, 6, 12


def suites(count: int) -> list[Suite]:
    out = []
    for n in range(count):
        rel = f"evals/skill-{n:03d}/evals.json"
        cases = tuple(
            Case(
                f"case-{c}",
                f"Write the report for customer {c} and check it.",
                Origin(rel, 3 + 10 * c),
                items=tuple(
                    Check(f"a{i}", "evolve.regex", f"item {i}", Origin(rel, 5 + 10 * c + i))
                    for i in range(ITEMS)
                ),
            )
            for c in range(CASES)
        )
        out.append(Suite(Format.EVOLVE, Path(rel), rel, Skill(f"skill-{n:03d}", None), cases))
    return out


def run(suite: Suite, case: Case, model: str, side: Side, rep: int) -> RunResult:
    passed = (rep + len(case.id) + (side is Side.HEAD)) % 3 != 0
    items = [
        ItemResult(f"a{i}", f"item {i} of {case.id}", passed or i > 0, "" if passed else "no match")
        for i in range(ITEMS)
    ]
    calls = [
        ToolCall("Bash" if i % 2 else "Write", json.dumps({"command": f"echo step {i} > out-{i}"}))
        for i in range(CALLS)
    ]
    return RunResult(
        suite.rel,
        case.id,
        model,
        side,
        rep,
        Status.PASS if passed else Status.FAIL,
        1.0 if passed else 0.5,
        items=items,
        transcript=Transcript(
            final_text="I wrote the report and checked every figure. " * 8,
            tool_calls=calls,
            turns=CALLS + 1,
            usage=Usage(input_tokens=12_000, output_tokens=900, cost_usd=0.05, calls=CALLS + 1),
            duration_s=21.5,
            stop_reason="end_turn",
            changed_files=["report.md"],
        ),
        judge=JudgeReport(model=MODELS[0], called=True, usage=Usage(2_000, 150, cost_usd=0.01)),
        fingerprint=f"{hash((suite.rel, case.id, model, side, rep)) & 0xFFFFFFFF:08x}" * 8,
    )


def generate(out: Path, count: int) -> int:
    all_suites = suites(count)
    runs = [
        run(s, c, m, side, rep)
        for s in all_suites
        for c in s.cases
        for m in MODELS
        for side in (Side.BASE, Side.HEAD)
        for rep in range(1, RUNS + 1)
    ]
    data = ResultsData(
        runs=runs,
        aggregate=aggregate(runs, all_suites),
        suites=all_suites,
        judge_model=MODELS[0],
        record=JobRecord(head_sha="a" * 40, base_sha="b" * 40, models=tuple(MODELS)),
        generated_at="2026-11-24T00:00:00Z",
    )
    write_results(out, data)
    return len(runs)


def best(repeat: int, call: Any) -> dict[str, float]:
    """The best wall time and the best CPU time (this process and its children) of `repeat`
    calls. On a shared machine the CPU time is the steadier figure."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = _cpu()
        started = time.perf_counter()
        call()
        walls.append(time.perf_counter() - started)
        cpus.append(_cpu() - before)
    return {"wall_s": round(min(walls), 3), "cpu_s": round(min(cpus), 3)}


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suites", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the results directory here")
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter whose evolve_action runs `report` (another checkout's venv, to"
        " compare); default: this one",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        runs = generate(work / "results", args.suites)
        path = work / "results" / "results.json"
        text = path.read_text(encoding="utf-8")
        doc = json.loads(text)
        command = [args.python, "-m", "evolve_action", "report", str(path)]
        command += ["--results-dir", str(work / "merged")]

        def report() -> None:
            done = subprocess.run(command, check=False, capture_output=True, text=True, cwd=work)
            if done.returncode not in (0, 1):  # 1: the gate failed, as it may
                raise SystemExit(f"report failed ({done.returncode}): {done.stderr}")

        figures = {
            "runs": runs,
            "bytes": len(text.encode("utf-8")),
            "report": best(args.repeat, report),
            "parse": best(args.repeat, lambda: json.loads(text)),
            "validate": best(args.repeat, lambda: validate(doc)),
            "jsonschema": best(args.repeat, lambda: _validator().is_valid(doc)),
            "rebuild": best(args.repeat, lambda: [run_from_doc(r) for r in doc["runs"]]),
            "load_results": best(args.repeat, lambda: load_results(path)),
        }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
