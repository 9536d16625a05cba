"""Load evolve's `evals.{json,jsonc,yaml,yml}` (a superset of skill-creator's evals.json).

Normalization follows evolve: integer ids become decimal strings (and collide with equal string
ids), expectations become leading judge items tagged `expectation`, bare strings and `llm`
objects become judge items, the six deterministic types become `evolve.<type>` checks, and
`files` resolve by the staging rule. Validation is evolve's Tier 0, reported in full (every
problem of the file, each at its line and field), plus what a PR bot needs on top: fixtures
that resolve outside the repository are refused, RE2 patterns are compiled up front.

Where real skill-creator files go beyond evolve, we accept them with one warning per file:
assertion objects without `type` (`{name, description}`), `llm_judge` types, and drafts that
have only `prompt` and `expected_output` (see `_draft`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.evolve.assertions import AssertionReader, Lenient, fold
from evolve_action.formats.evolve.files import FixtureResolver
from evolve_action.formats.mcp_servers import read_servers
from evolve_action.model.evals import (
    Case,
    Format,
    Item,
    JudgeItem,
    LoadResult,
    Scale,
    Suite,
)
from evolve_action.model.mcp import McpServer
from evolve_action.util.text import json_kind

Path_ = tuple[str | int, ...]

FILE_KEYS = ("skill_name", "models", "evals", "mcp_servers")
CASE_KEYS = (
    "id",
    "name",
    "prompt",
    "expected_output",
    "files",
    "expectations",
    "assertions",
    "max_turns",
    "timeout_seconds",
    "skip_providers",
    "mcp_servers",
)

SHAPE = (
    'an evals file is an object with an "evals" list, e.g. {"evals": [{"id": 1,'
    ' "prompt": "...", "expectations": ["..."]}]}'
)


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    problems = Problems(doc)
    reader = _Reader(doc, ctx, problems)
    suite = reader.suite()
    return problems.result(Format.EVOLVE, suite)


@dataclass
class _Reader:
    doc: Document
    ctx: LoadContext
    problems: Problems
    lenient: Lenient = field(default_factory=Lenient)
    ids: dict[str, int] = field(default_factory=dict)
    allowed_tools: list[Path_] = field(default_factory=list)
    servers: tuple[McpServer, ...] = ()  # the file's `mcp_servers`, which every case gets
    drafts: list[Path_] = field(default_factory=list)

    def suite(self) -> Suite | None:
        data = self.doc.data
        if isinstance(data, dict):
            data = fold(self.problems, (), data, FILE_KEYS)
        if not self._shape(data):
            return None
        skill = self.ctx.skill
        name = self._skill_name(data.get("skill_name"))
        models = self._models(data.get("models"))
        evals_dir = self.doc.path.parent.absolute()  # Fixture.source is absolute
        resolver = FixtureResolver(self.problems, evals_dir, self.ctx.root.absolute(), skill.dir)
        assertions = AssertionReader(self.problems, self.lenient)
        self.servers = read_servers(
            self.problems, ("mcp_servers",), data.get("mcp_servers"), case="every case"
        )
        cases = []
        for i, raw in enumerate(data["evals"]):
            case = self._case(("evals", i), raw, resolver, assertions)
            if case is not None:
                cases.append(case)
        if not data["evals"]:
            self.problems.warn(("evals",), "no evals: add cases, or remove the file")
        self._file_warnings()
        warnings = self.problems.warnings()
        return Suite(
            format=Format.EVOLVE,
            path=self.doc.path.absolute(),
            rel=self.doc.rel,
            skill=skill,
            cases=tuple(cases),
            name=name,
            models=models,
            warnings=warnings,
        )

    # --- the file ------------------------------------------------------------------------

    def _shape(self, data: Any) -> bool:
        if isinstance(data, list):
            looks_like_triggers = bool(data) and all(
                isinstance(x, dict) and "query" in x and "should_trigger" in x for x in data
            )
            if looks_like_triggers:
                self.problems.error(
                    (),
                    "this is a list of trigger queries, not evals: name it trigger-eval.json"
                    ' (skill-creator) or wrap it as {"triggers": [...]} in triggers.json (evolve)',
                )
            else:
                self.problems.error((), f"the top level is a list; {SHAPE}")
            return False
        if not isinstance(data, dict):
            self.problems.error((), f"the document is {json_kind(data)}; {SHAPE}")
            return False
        evals = data.get("evals")
        if evals is None:
            other = next(
                (k for k in ("cases", "test_cases", "tests", "evalcases") if k in data), ""
            )
            hint = f'; found "{other}": rename it to "evals"' if other else ""
            self.problems.error((), f'missing the "evals" list{hint}; {SHAPE}')
            return False
        if not isinstance(evals, list):
            self.problems.error(("evals",), f"must be a list of eval cases, not {json_kind(evals)}")
            return False
        return True

    def _skill_name(self, value: Any) -> str:
        if value is None:
            return ""
        if not isinstance(value, str):
            self.problems.error(("skill_name",), "must be a string naming the skill")
            return ""
        directory = self.ctx.skill.name
        if directory and value != directory:
            self.problems.warn(
                ("skill_name",),
                f"skill_name {value} does not match skill directory {directory};"
                " the directory name is used",
            )
        return value

    def _models(self, value: Any) -> tuple[str, ...]:
        if value is None:
            return ()
        if not isinstance(value, list):
            self.problems.error(("models",), 'must be a list of model tokens, e.g. ["anthropic"]')
            return ()
        tokens = []
        for i, token in enumerate(value):
            if not isinstance(token, str):
                self.problems.error(("models", i), "must be a string model token")
            elif not token.strip():
                self.problems.error(("models", i), "empty model restriction; remove the entry")
            else:
                tokens.append(token.strip())
        return tuple(tokens)

    def _file_warnings(self) -> None:
        self.lenient.report(self.problems)
        if self.allowed_tools:
            n = len(self.allowed_tools)
            self.problems.warn(
                self.allowed_tools[0],
                f"allowed_tools is ignored ({n} case{'s' if n > 1 else ''}); evolve removed it"
                " in 0.7.0 and the agent gets the standard tool set",
            )
        if self.drafts:
            n = len(self.drafts)
            self.problems.warn(
                self.drafts[0],
                f"{n} eval{'s have' if n > 1 else ' has'} no expectations or assertions; until"
                " you add some, the judge grades the result against expected_output",
            )

    # --- one case -------------------------------------------------------------------------

    def _case(
        self, at: Path_, raw: Any, resolver: FixtureResolver, assertions: AssertionReader
    ) -> Case | None:
        if not isinstance(raw, dict):
            self.problems.error(at, "must be an object with id and prompt")
            return None
        raw = fold(self.problems, at, raw, CASE_KEYS)
        case_id = self._id(at, raw)
        prompt = self._text(at, raw, "prompt")
        if not prompt:
            self.problems.error((*at, "prompt") if "prompt" in raw else at, "missing prompt")
        expected = self._text(at, raw, "expected_output")
        items = self._items(at, raw, assertions)
        if not items and not self._authored(raw):
            items = self._draft(at, expected)
        if "allowed_tools" in raw:
            self.allowed_tools.append((*at, "allowed_tools"))
        return Case(
            id=case_id,
            prompt=prompt,
            origin=self.problems.origin(*at),
            name=self._text(at, raw, "name"),
            expected_output=expected,
            files=resolver.resolve((*at, "files"), raw.get("files")),
            items=items,
            skip_providers=self._providers(at, raw.get("skip_providers")),
            max_turns=self._positive(at, raw, "max_turns"),
            timeout_seconds=self._positive(at, raw, "timeout_seconds"),
            mcp_servers=self._servers(at, raw, case_id),
        )

    def _servers(self, at: Path_, raw: dict[str, Any], case_id: str) -> tuple[McpServer, ...]:
        """The file's servers, then the case's own; a name both declare is the case's."""
        own = read_servers(
            self.problems, (*at, "mcp_servers"), raw.get("mcp_servers"), case=f"case {case_id}"
        )
        mine = {s.name for s in own}
        return (*(s for s in self.servers if s.name not in mine), *own)

    def _id(self, at: Path_, raw: dict[str, Any]) -> str:
        value = raw.get("id")
        where = (*at, "id") if "id" in raw else at
        if isinstance(value, bool) or not isinstance(value, str | int | None):
            self.problems.error(where, f"id {_show(value)}: must be a string or an integer")
            return f"#{at[-1]}"
        case_id = str(value) if isinstance(value, int) else value or ""
        if not case_id:
            self.problems.error(where, "missing id; give the case a unique string or integer id")
            return f"#{at[-1]}"
        first = self.ids.get(case_id)
        if first is not None:
            line = self.doc.line("evals", first)
            self.problems.error(
                where,
                f'duplicate id "{case_id}" (first used by evals[{first}], line {line});'
                " integer and string ids collide, ids must be unique",
            )
        else:
            self.ids[case_id] = int(at[-1])
        return case_id

    def _items(self, at: Path_, raw: dict[str, Any], reader: AssertionReader) -> tuple[Item, ...]:
        items: list[Item] = []
        for key in ("expectations", "assertions"):
            values = raw.get(key)
            if values is None:
                continue
            if not isinstance(values, list):
                self.problems.error((*at, key), f"must be a list, not {json_kind(values)}")
                continue
            for j, value in enumerate(values):
                item_at = (*at, key, j)
                item_id = f"{key}[{j}]"
                read = reader.expectation if key == "expectations" else reader.assertion
                item = read(item_at, value, item_id)
                if item is not None:
                    items.append(item)
        return tuple(items)

    @staticmethod
    def _authored(raw: dict[str, Any]) -> bool:
        return any(isinstance(raw.get(k), list) and raw[k] for k in ("expectations", "assertions"))

    def _draft(self, at: Path_, expected: str) -> tuple[Item, ...]:
        """A case with nothing to grade: skill-creator writes prompts first, assertions later.

        evolve rejects such a case and would grade it as a vacuous pass, which costs a run
        and says nothing. When the author described success in `expected_output`, the judge
        grades against that (one item, tagged `expected_output`) until assertions exist.
        """
        if not expected.strip():
            self.problems.error(
                at,
                "no expectations or assertions: add at least one (or an expected_output"
                " for the judge to grade against)",
            )
            return ()
        self.drafts.append(at)
        text = f"The result achieves the expected output: {expected}"
        origin = self.problems.origin(*at, "expected_output")
        return (JudgeItem("expected_output", text, origin, Scale.BINARY, source="expected_output"),)

    def _text(self, at: Path_, raw: dict[str, Any], key: str) -> str:
        value = raw.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            self.problems.error((*at, key), f"must be a string, not {json_kind(value)}")
            return ""
        return value

    def _positive(self, at: Path_, raw: dict[str, Any], key: str) -> int | None:
        value = raw.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            self.problems.error((*at, key), f"must be an integer ≥ 1, not {_show(value)}")
            return None
        return value

    def _providers(self, at: Path_, value: Any) -> frozenset[str]:
        if value is None:
            return frozenset()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            message = 'must be a list of provider ids, e.g. ["openai"]'
            self.problems.error((*at, "skip_providers"), message)
            return frozenset()
        return frozenset(v.strip() for v in value if v.strip())


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json_kind(value)
    return repr(value) if isinstance(value, str) else str(value)
