"""What a calibration leaves behind: its files, and in Actions its outputs, summary and check.

    calibration/calibration.json                    the measurement (rows, flip rate, alarms)
    calibration/<suite>/<model>/benchmark.json      skill-creator's viewer opens this dir

results.json and the usual per-run files are written by the job beside them, as for any run.
skill-creator's viewer knows two configurations only, `with_skill` and `without_skill`; here
both ran with the skill: `without_skill` is side A and `with_skill` side B, and the file says
so in its notes and metadata. There is no pull request to comment on: the job summary carries
the report, the step outputs the usual names (`regressions` counts the false alarms), and the
check run (named "<check-name> calibration", on the commit calibrated) its conclusion.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from evolve_action.model.evals import Suite
from evolve_action.model.outcomes import RunResult
from evolve_action.publish import check_output
from evolve_action.publish.actions_io import RunnerFiles, set_outputs, write_summary
from evolve_action.publish.github_api import Publisher
from evolve_action.publish.post import Published, conclude
from evolve_action.publish.render import calibration as render
from evolve_action.publish.render.report import ReportInput
from evolve_action.publish.results.skill_creator import benchmark_doc
from evolve_action.publish.results.write import slug
from evolve_action.util.files import atomic_write
from evolve_action.verdict.calibration import Calibration
from evolve_action.verdict.gate import Gate

FOLDER = "calibration"
NOTE = (
    "calibration (an A/A): both configurations ran the same tree with the skill;"
    " without_skill is side A, with_skill is side B"
)


def _json(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def calibration_doc(calibration: Calibration, gate: Gate, head_sha: str) -> dict[str, Any]:
    return {
        "kind": "evolve-action calibration",
        "version": 1,
        "head_sha": head_sha,
        "alpha": calibration.alpha,
        "conclusion": gate.conclusion,
        "reason": gate.reason,
        "false_alarms": calibration.false_alarms,
        "flagged_skills": list(calibration.flagged_skills),
        "flip_rate": calibration.flip_rate,
        "moved": len(calibration.moved),
        "compared": len(calibration.compared),
        "rows": [asdict(r) for r in calibration.rows],
    }


def write_files(
    results_dir: Path,
    calibration: Calibration,
    gate: Gate,
    report: ReportInput,
    *,
    judge_model: str | None,
    timestamp: str,
    repo_root: Path | None,
) -> list[Path]:
    """calibration.json and one benchmark.json per suite and model; the paths written."""
    folder = results_dir / FOLDER
    written = [folder / "calibration.json"]
    atomic_write(written[0], _json(calibration_doc(calibration, gate, report.head_sha)))
    suites: dict[str, Suite] = {s.rel: s for s in report.head_suites}
    by_cell: dict[tuple[str, str], list[RunResult]] = {}
    for run in report.runs:
        by_cell.setdefault((run.suite, run.model), []).append(run)
    for (rel, model), runs in sorted(by_cell.items()):
        suite = suites.get(rel)
        doc = benchmark_doc(
            suite, rel, model, runs, judge_model=judge_model, timestamp=timestamp,
            skill_path=_relative(suite.skill.dir, repo_root) if suite else "",
        )  # fmt: skip
        doc["metadata"]["calibration"] = {"side_a": "without_skill", "side_b": "with_skill"}
        doc["notes"] = [NOTE, *doc["notes"]]
        path = folder / slug(rel) / slug(model) / "benchmark.json"
        atomic_write(path, _json(doc))
        written.append(path)
    return written


def _relative(path: Path | None, root: Path | None) -> str:
    if path is None or root is None:
        return str(path or "")
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def publish(
    calibration: Calibration,
    gate: Gate,
    report: ReportInput,
    *,
    publisher: Publisher | None,
    files: RunnerFiles,
    notices: Sequence[str] = (),
    complete: bool = True,
    stream: TextIO = sys.stdout,
) -> Published:
    """The check run (when there is a token and a commit), then the outputs and the job
    summary, written last and always, with any GitHub problem met on the way."""
    text = render.markdown(calibration, gate, notices=notices, complete=complete)
    result = Published(gate.conclusion, gate.exit_code, problems=[])
    sha = report.head_sha or report.event.sha
    if publisher is not None and sha:
        settings = report.settings
        result.check = conclude(
            publisher, settings, report.event, sha, result,
            conclusion=gate.conclusion, title=render.headline(gate)[:255],
            summary=text[: check_output.SUMMARY_MAX], annotations=[],
            status=check_output.status(gate, gate.reason),
        )  # fmt: skip
    for line in check_output.log_commands([], result.problems):
        print(line, file=stream)
    outputs = check_output.outputs(report, gate, "")
    set_outputs(files.output, outputs)
    summary = text
    if result.problems:
        listed = "\n".join(f"- {p}" for p in result.problems)
        summary += f"\n**⚠️ evolve could not write to GitHub**\n\n{listed}\n"
    write_summary(files.summary, summary)
    return result
