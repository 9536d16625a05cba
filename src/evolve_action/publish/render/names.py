"""One name per case, everywhere a report names one: tables, phrases, suggestions, costs,
annotations.

A case is shown by its `name`, with its `id` beside it where the two differ, so a reader can
find it in the eval file; a trigger case (whose id is its query) by its query, quoted and
cut short, and what it expects of the skill. When a report covers several skills (or trigger
sets) the skill comes first. `CaseIndex` also knows where each case was written, for links
and annotations: head's suites first, then base's (a removed case is only on base).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evolve_action.model.evals import Case, CaseKind, Format, Origin, Suite
from evolve_action.publish.render.escape import cell, code, shorten

if TYPE_CHECKING:
    from evolve_action.publish.render.report import ReportInput
    from evolve_action.verdict.stats import CaseStats

NAME_LIMIT = 48  # characters of a name or a trigger's query in a table cell
SKILL_LIMIT = 30


def plain_name(case: Case | None, case_id: str) -> str:
    """The unescaped name for plain-text outputs (check annotations): "name (id)"."""
    if case is None:
        return case_id
    if case.kind is CaseKind.TRIGGER:
        return f"“{shorten(case.prompt or case.label, NAME_LIMIT)}”{_expects(case)}"
    if case.name and case.name != case.id:
        return f"{shorten(case.name, NAME_LIMIT)} ({case.id})"
    return case.id


def _expects(case: Case) -> str:
    if case.should_trigger is False:
        return " (must not fire)"
    return " (should fire)" if case.should_trigger else ""


def markdown_name(case: Case | None, case_id: str) -> str:
    """The same name for Markdown: the name as text, the id as code."""
    if case is None:
        return code(case_id, NAME_LIMIT)
    if case.kind is CaseKind.TRIGGER:
        return f"“{cell(case.prompt or case.label, NAME_LIMIT)}”{_expects(case)}"
    if case.name and case.name != case.id:
        return f"{cell(case.name, NAME_LIMIT)} {code(case.id, NAME_LIMIT)}"
    return code(case.id, NAME_LIMIT)


@dataclass(frozen=True)
class CaseIndex:
    """Where each case was written, for names and links: head suites first, then base."""

    cases: dict[tuple[str, str], tuple[Suite, Case, str]]  # (rel, id) → suite, case, sha
    suites: dict[str, Suite]
    models: tuple[str, ...]

    @classmethod
    def of(cls, report: ReportInput) -> CaseIndex:
        found: dict[tuple[str, str], tuple[Suite, Case, str]] = {}
        suites: dict[str, Suite] = {}
        sides = [(report.head_suites, report.head_sha), (report.base_suites, report.base_sha)]
        for side_suites, sha in sides:
            for suite in side_suites:
                suites.setdefault(suite.rel, suite)
                for case in suite.cases:
                    found.setdefault((suite.rel, case.id), (suite, case, sha or ""))
        models = tuple(dict.fromkeys(c.model for c in report.aggregate.cases))
        return cls(found, suites, models)

    def suite_label(self, rel: str) -> str:
        """The skill (or file) a suite is about; a trigger set says so beside its evals."""
        suite = self.suites.get(rel)
        if suite is None:
            return rel
        return f"{suite.label} (triggers)" if suite.format is Format.TRIGGERS else suite.label

    def skill_label(self, rel: str) -> str:
        suite = self.suites.get(rel)
        return suite.label if suite is not None else rel

    def case(self, rel: str, case_id: str) -> Case | None:
        entry = self.cases.get((rel, case_id))
        return entry[1] if entry else None

    def origin(self, rel: str, case_id: str, item_id: str = "") -> Origin | None:
        case = self.case(rel, case_id)
        if case is None:
            return None
        for item in case.items:
            if item_id and item.id == item_id:
                return item.origin
        return case.origin

    def every_model(self, models: Sequence[str]) -> str:
        """ "both models" or "all 3 models" when `models` are all the report's; else ""."""
        if len(self.models) > 1 and set(models) == set(self.models):
            return "both models" if len(self.models) == 2 else f"all {len(self.models)} models"
        return ""

    @property
    def several(self) -> bool:
        """More than one suite: each name says its skill first."""
        return len(self.suites) > 1 or len({k[0] for k in self.cases}) > 1

    def name(self, c: CaseStats) -> str:
        return self.named(c.suite, c.case_id)

    def named(self, rel: str, case_id: str) -> str:
        """A case's one name in Markdown: its skill before it when the report has several."""
        label = markdown_name(self.case(rel, case_id), case_id)
        if self.several:
            return f"{cell(self.suite_label(rel), SKILL_LIMIT)} / {label}"
        return label

    def plain(self, rel: str, case_id: str) -> str:
        """The same name unescaped, for plain-text outputs (annotations)."""
        label = plain_name(self.case(rel, case_id), case_id)
        return f"{self.suite_label(rel)} / {label}" if self.several else label
