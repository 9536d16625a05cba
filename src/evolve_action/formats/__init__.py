"""The one place that turns an eval file into a `LoadResult`, whatever its format.

`load_file` reads the document, settles the format where the file name is ambiguous (an
`evals.json` may be evolve, skill-creator or skill-evaluator), sets aside a file whose shape is
another tool's (`shapes.py`: a Vally `eval.yaml`, a CI workflow named `eval.yml`) with a
notice instead of errors, and hands the document to that
format's loader, found through the family registry (`families.py`). Whatever happens, the
caller gets a `LoadResult` back: parse errors become problems at their line, and a loader that
crashes becomes a problem that says so, so one bad file never stops a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from evolve_action.formats import discovery, families, identity, placement, shapes
from evolve_action.formats.base import STRICT, LoadContext
from evolve_action.formats.documents import Document, DocumentError, read
from evolve_action.model.evals import Format, LoadResult, Origin, Problem, Severity
from evolve_action.util import lazy

# Keys only skill-evaluator's extension of skill-creator's evals.json uses.
SKILL_EVALUATOR_KEYS = ("eval_config", "structural_expectations", "quality_rubric")


def load_file(
    path: Path,
    rel: str,
    fmt: Format,
    ctx: LoadContext,
    *,
    declared: bool = False,
    strict: bool = False,
) -> LoadResult:
    """Load one eval file. Never raises for anything in the file.

    `declared`: `.evolve.yaml` says what this file is, so its format is certain. `strict`
    (`validate --strict`): every problem of a loader stays as it said, even for a file whose
    format is not certain."""
    return _load(path, rel, fmt, ctx, declared=declared, strict=strict)


def _load(
    path: Path, rel: str, fmt: Format, ctx: LoadContext, *, declared: bool, strict: bool
) -> LoadResult:
    try:
        doc = read(path, rel, scalar_keys=fmt is Format.AGENTV)
    except DocumentError as exc:
        return _failed(rel, fmt, Origin(rel, exc.line), exc.message)
    except RecursionError:
        return _failed(rel, fmt, Origin(rel), "the document is nested too deeply to read")
    if not declared and fmt is Format.AGENTV and len(fits := fitting(doc.data)) > 1:
        return _ambiguous(rel, doc, fits)
    fmt = fmt if declared else sniff(doc, fmt)
    if declared:
        other = None
    elif fmt is Format.PROMPTFOO:
        other = shapes.foreign_promptfoo(doc.data, shapes.AGENT_PROVIDERS)
    else:
        other = shapes.foreign(doc.data, fmt)
    if other is not None:
        notice = Problem(Origin(rel, doc.line()), other.notice(fmt), Severity.NOTICE)
        return LoadResult(rel, None, None, (notice,))
    try:
        loader = families.loader(fmt)
        if loader is None:
            message = f"this build of evolve-action cannot read {fmt.value} files yet"
            return _failed(rel, fmt, Origin(rel), message)
        token = STRICT.set(strict)
        try:
            result: object = loader(doc, ctx)
        finally:
            STRICT.reset(token)
    except Exception as exc:  # a loader bug must not stop the other files
        return _failed(rel, fmt, Origin(rel), _bug(fmt, exc))
    if not isinstance(result, LoadResult):
        detail = f"returned {type(result).__name__}, not a LoadResult"
        return _failed(rel, fmt, Origin(rel), _bug(fmt, TypeError(detail)))
    if result.errors and not (declared or strict) and not shapes.certain(doc.data, fmt):
        return identity.uncertain(result, fmt, doc.line())
    return result


# The formats that share AgentV's names (`eval.yaml`, `*.eval.yaml`), each with the function
# that says from its keys whether a document is its own (`module:function`). A family's own
# test lives in its package (never its loader, whose imports only its files need), imported
# only once a file with one of these names is seen.
SHARED_NAME = (
    (Format.CALIPER, f"{__name__}.caliper:is_caliper"),
    (Format.SKILLGRADE, f"{__name__}.skillgrade:is_skillgrade"),
    (Format.VALLY, f"{__name__}.shapes:is_vally"),
    (Format.SKILL_VALIDATOR, f"{__name__}.shapes:is_skill_validator"),
    (Format.WAZA, f"{__name__}.shapes:is_waza"),
)


def fitting(data: object) -> list[Format]:
    """Every format sharing AgentV's names whose distinctive keys the document has."""
    return [fmt for fmt, fits in SHARED_NAME if lazy.attribute(fits)(data)]


def sniff(doc: Document, fmt: Format) -> Format:
    """The format a document's content shows where its name leaves a choice."""
    if fmt is Format.AGENTV:
        found = fitting(doc.data)
        return found[0] if found else fmt
    if fmt is not Format.EVOLVE or not isinstance(doc.data, dict):
        return fmt
    if "eval_config" in doc.data:
        return Format.SKILL_EVALUATOR
    evals = doc.data.get("evals")
    if isinstance(evals, list):
        for case in evals:
            if isinstance(case, dict) and any(k in case for k in SKILL_EVALUATOR_KEYS[1:]):
                return Format.SKILL_EVALUATOR
    return fmt


def load_all(
    root: Path,
    *,
    paths: Sequence[str] = (),
    layout: str = "auto",
    declared: Sequence[placement.Declared] = (),
) -> list[LoadResult]:
    """Discover every eval file under `root` and load each; discovery errors come first, each
    as a `LoadResult` without a suite. Discovery's warnings about a file travel with its
    result; the others (why nothing was found) are for `validate`, not for a run. A file that
    is not an eval file (only a notice) is `validate`'s to show: a run has nothing to do with
    it, and it must not count as an invalid eval file."""
    found = discovery.discover(root, paths=paths, layout=layout, declared=declared)
    results = [
        LoadResult(p.origin.path, None, None, (p,))
        for p in found.problems
        if p.severity is Severity.ERROR
    ]
    for item in found.files:
        result = load_found(found.root, item)
        if not result.not_eval:
            results.append(result)
    return results


def load_found(root: Path, item: discovery.EvalFile, *, strict: bool = False) -> LoadResult:
    """Load one file discovery found, with the warnings discovery has about it."""
    ctx = LoadContext(root=root, skill=item.skill)
    result = load_file(item.path, item.rel, item.format, ctx, declared=item.declared, strict=strict)
    if not item.notes or result.not_eval:
        return result
    return replace(result, problems=(*item.notes, *result.problems))


def _ambiguous(rel: str, doc: Document, fits: Sequence[Format]) -> LoadResult:
    """Two formats fit: a notice saying which, and how to choose; nothing runs from it."""
    names = " and ".join(f.value for f in fits)
    message = (
        f"not read: this file has the keys of {names}, so which tool it is for is not certain;"
        f' name its format in .evolve.yaml (formats: [{{paths: "{rel}", as: {fits[0].value}}}]);'
        " nothing runs from it and no check fails for it"
    )
    return LoadResult(
        rel, None, None, (Problem(Origin(rel, doc.line()), message, Severity.NOTICE),)
    )


def _failed(rel: str, fmt: Format, origin: Origin, message: str) -> LoadResult:
    return LoadResult(rel, fmt, None, (Problem(origin, message, Severity.ERROR),))


def _bug(fmt: Format, exc: BaseException) -> str:
    detail = str(exc)
    if len(detail) > 200:
        detail = detail[:200] + "…"
    return (
        f"this is a bug in evolve-action: the {fmt.value} loader failed with"
        f" {type(exc).__name__}: {detail}. Please report it with this file attached"
    )
