"""JUnit XML for CI test reporters, mapped the way evolve maps its results.

One `<testsuite>` per suite and model, one `<testcase>` per case and head run (the base is the
comparison, not the thing under test). A run that passed is a plain testcase; a failed run
carries `<failure message="assertions failed">` listing the failed items with evidence; an
errored run carries `<error message="<reason>">`, except a run never started because the
budget ran out, which is `<skipped>`. The classname reads `<skill>.<model>.evals` (or
`.triggers`), as evolve writes it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence

from evolve_action.model.evals import CaseKind, Suite
from evolve_action.model.outcomes import ErrorKind, RunResult, Side, Status

MESSAGE_CHARS = 500


def _time(run: RunResult) -> str:
    return f"{run.transcript.duration_s + run.judge.duration_s:.3f}"


def _failure_text(run: RunResult) -> str:
    lines = [f"{i.text}: {i.evidence}" for i in run.items if i.passed is False]
    return "\n".join(lines) or "the run's score is below the format's threshold"


def _testcase(parent: ET.Element, run: RunResult, name: str, classname: str) -> str:
    case = ET.SubElement(parent, "testcase", name=name, classname=classname, time=_time(run))
    if run.status is Status.PASS:
        return "pass"
    if run.status is Status.FAIL:
        failure = ET.SubElement(case, "failure", message="assertions failed")
        failure.text = _failure_text(run)
        return "failure"
    if run.error_kind is ErrorKind.BUDGET:
        ET.SubElement(
            case, "skipped", message=(run.error or "not run: budget spent")[:MESSAGE_CHARS]
        )
        return "skipped"
    reason = run.error or (run.error_kind.value if run.error_kind else "error")
    ET.SubElement(case, "error", message=reason[:MESSAGE_CHARS])
    return "error"


def junit_xml(runs: Sequence[RunResult], suites: Mapping[str, Suite]) -> str:
    """The document as text: XML header, 2-space indentation, trailing newline."""
    root = ET.Element("testsuites")
    totals = {"tests": 0, "failure": 0, "error": 0, "skipped": 0, "time": 0.0}
    head = [r for r in runs if r.side is Side.HEAD]
    for rel, model in sorted({(r.suite, r.model) for r in head}):
        suite = suites.get(rel)
        cases = {c.id: c for c in suite.cases} if suite else {}
        order = {c.id: i for i, c in enumerate(suite.cases)} if suite else {}
        members = sorted(
            (r for r in head if (r.suite, r.model) == (rel, model)),
            key=lambda r: (order.get(r.case_id, len(order)), r.case_id, r.repetition),
        )
        skill = suite.skill.name if suite and suite.skill.name else rel
        element = ET.SubElement(root, "testsuite", name=f"{rel} [{model}]")
        counts = {"tests": 0, "failure": 0, "error": 0, "skipped": 0, "time": 0.0}
        reps = {r.case_id: 0 for r in members}
        for r in members:
            reps[r.case_id] += 1
        for run in members:
            case = cases.get(run.case_id)
            kind = "triggers" if case is not None and case.kind is CaseKind.TRIGGER else "evals"
            label = case.label if case is not None else run.case_id
            name = f"{label} (run {run.repetition})" if reps[run.case_id] > 1 else label
            outcome = _testcase(element, run, name, f"{skill}.{model}.{kind}")
            counts["tests"] += 1
            counts["time"] += float(_time(run))
            if outcome != "pass":
                counts[outcome] += 1
        _attributes(element, counts)
        for key in totals:
            totals[key] += counts[key]
    _attributes(root, totals)
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'


def _attributes(element: ET.Element, counts: Mapping[str, float]) -> None:
    element.set("tests", str(int(counts["tests"])))
    element.set("failures", str(int(counts["failure"])))
    element.set("errors", str(int(counts["error"])))
    element.set("skipped", str(int(counts["skipped"])))
    element.set("time", f"{counts['time']:.3f}")
