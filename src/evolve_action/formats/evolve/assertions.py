"""evolve's assertions: validation per type, the derived `text` templates, and model items.

The six deterministic types become `Check(kind="evolve.<type>")` with their authored fields as
params; `llm` entries, bare strings and expectations become binary `JudgeItem`s. The `text`
templates are evolve's exactly, because they end up in committed results files.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.evolve.params import typed
from evolve_action.model.evals import Check, Item, JudgeItem, Scale
from evolve_action.util.regex import regex_problem
from evolve_action.util.text import json_kind

DETERMINISTIC = (
    "file_exists", "file_absent", "regex", "not_regex", "command", "tool_call", "tool_sequence",
)  # fmt: skip
TYPES = (*DETERMINISTIC, "llm")
FIELDS = ("path", "pattern", "run", "cwd", "tool", "requires", "expect_exit", "tools", "order")
ORDERS = ("strict", "in_order", "any_order")  # `tool_sequence`: see formats/trajectory/order.py
# Other tools' names for a judged statement; real skill-creator files use them.
JUDGE_ALIASES = ("llm_judge", "llm-judge")
# skill-creator's untyped assertion objects: the key that holds the statement to grade, in
# order of preference (`{name, check}` names it `check`), and keys that only label it.
TEXT_KEYS = ("text", "check", "criterion", "description", "expectation", "assertion", "statement")
LABEL_KEYS = ("name", "id")
ASSERTION_KEYS = ("type", *FIELDS, "text")

Path_ = tuple[str | int, ...]


def fold(
    problems: Problems, at: Path_, raw: dict[str, Any], known: tuple[str, ...]
) -> dict[str, Any]:
    """Read `Prompt` as `prompt`, as evolve does (Go's JSON decoder matches keys regardless of
    case), and say so: other tools read field names exactly."""
    out = dict(raw)
    for key in raw:
        if key in known:
            continue
        canonical = next((k for k in known if k.lower() == key.lower()), None)
        if canonical is None or canonical in raw:
            continue
        out[canonical] = out.pop(key)
        problems.warn((*at, key), f'read as "{canonical}"; write field names in lower case')
    return out


def derived_text(kind: str, params: dict[str, Any]) -> str:
    """evolve's stable description of a deterministic assertion (results `text`)."""
    path = params.get("path") or ""
    pattern = params.get("pattern") or ""
    if kind == "file_exists":
        return f"file {path} exists"
    if kind == "file_absent":
        return f"file {path} is absent"
    if kind in ("regex", "not_regex"):
        verb = "matches" if kind == "regex" else "does not match"
        return f"{path or 'output'} {verb} /{pattern}/"
    if kind == "command":
        return f"command `{params.get('run', '')}` exits {params.get('expect_exit', 0)}"
    if kind == "tool_call":
        tool = params.get("tool", "")
        with_args = f" with args /{pattern}/" if pattern else ""
        return f"agent called tool /{tool}/{with_args}"
    if kind == "tool_sequence":
        tools = params.get("tools") or []
        order = params.get("order") or "in_order"
        return f"agent called tools {order.replace('_', ' ')}: {' → '.join(map(str, tools))}"
    return kind


@dataclass
class Lenient:
    """Forms we accept beyond evolve's schema, counted so a file gets one warning each."""

    untyped: list[Path_] = field(default_factory=list)
    aliased: list[Path_] = field(default_factory=list)
    graded_keys: dict[str, None] = field(default_factory=dict)  # the keys graded, in order
    ignored: dict[str, list[Path_]] = field(default_factory=dict)  # key → where it was ignored

    def report(self, problems: Problems) -> None:
        if self.untyped:
            keys = " / ".join(f"`{k}`" for k in self.graded_keys) or "text"
            problems.warn(
                self.untyped[0],
                f"{_count(self.untyped, 'assertion object')} no `type`; graded by the judge as"
                f" llm assertions on their {keys}. Write"
                ' {"type": "llm", "text": ...} to be explicit',
            )
        graded = " / ".join(f"`{k}`" for k in self.graded_keys)
        for key, places in self.ignored.items():
            objects = "1 assertion object" if len(places) == 1 else f"{len(places)} objects"
            problems.warn(
                places[0],
                f"`{key}` is not graded (on {objects}): the judge grades only the {graded}"
                " statement, so a name is just a label; fold anything it must check into it",
            )
        if self.aliased:
            problems.warn(
                self.aliased[0],
                f"{_count(self.aliased, 'assertion')} a judge type other tools use"
                ' (llm_judge); graded as "llm". evolve itself only knows "llm"',
            )


def _count(paths: list[Path_], noun: str) -> str:
    return f"1 {noun} has" if len(paths) == 1 else f"{len(paths)} {noun}s have"


@dataclass
class AssertionReader:
    problems: Problems
    lenient: Lenient

    def expectation(self, at: Path_, value: Any, item_id: str) -> Item | None:
        if not isinstance(value, str) or not value.strip():
            self.problems.error(at, "must be a non-empty statement for the judge to verify")
            return None
        return self._judge(at, value, item_id, "expectation")

    def assertion(self, at: Path_, value: Any, item_id: str) -> Item | None:
        if isinstance(value, str):
            if not value.strip():
                self.problems.error(at, "an empty assertion; write a statement or remove it")
                return None
            return self._judge(at, value, item_id, "assertion")
        if not isinstance(value, dict):
            self.problems.error(at, "must be a statement (string) or an assertion object")
            return None
        value = fold(self.problems, at, value, ASSERTION_KEYS)
        kind = value.get("type")
        if kind is None:
            return self._untyped(at, value, item_id)
        if not isinstance(kind, str):
            self.problems.error((*at, "type"), f"must be one of {', '.join(TYPES)}")
            return None
        if kind in JUDGE_ALIASES:
            self.lenient.aliased.append((*at, "type"))
            kind = "llm"
        if kind == "llm":
            text = self._string(at, value, "text", required=True)
            return self._judge(at, text, item_id, "assertion") if text else None
        if kind not in DETERMINISTIC:
            statement = _statement(value)
            if statement is not None and not any(k in value for k in ("value", *FIELDS)):
                # skill-creator grades every assertion object by its words; a `type` evolve
                # does not run (`contains`) with nothing to match is such a statement.
                self.problems.warn(
                    (*at, "type"),
                    f"type {kind!r} names nothing to match, so its statement is graded by the"
                    " judge, as skill-creator grades it; give a pattern to make it a check",
                )
                return self._judge(at, statement, item_id, "assertion")
            self.problems.error((*at, "type"), _unknown(kind))
            return None
        return self._check(at, value, kind, item_id)

    def _untyped(self, at: Path_, value: dict[str, Any], item_id: str) -> Item | None:
        """An object without `type`: its statement (`text`, `check`, ...) is graded; a lone
        `name` is graded when there is nothing else; other keys are reported as ignored."""
        negated = value.get("expected") is False  # `{description, expected: false}`
        for key in (*TEXT_KEYS, *LABEL_KEYS):
            text = value.get(key)
            if isinstance(text, str) and text.strip():
                self.lenient.untyped.append(at)
                self.lenient.graded_keys.setdefault(key, None)
                for other in value:
                    if other != key and other not in ASSERTION_KEYS and other != "expected":
                        self.lenient.ignored.setdefault(other, []).append((*at, other))
                if negated:  # the statement must NOT hold, so the judge is asked for that
                    text = f"The following does not hold: {text.strip()}"
                return self._judge(at, text, item_id, "assertion")
        self.problems.error(
            at, f"missing `type`: one of {', '.join(TYPES)} (or a bare string for the judge)"
        )
        return None

    def _judge(self, at: Path_, text: str, item_id: str, source: str) -> JudgeItem:
        origin = self.problems.origin(*at)
        return JudgeItem(item_id, text, origin, scale=Scale.BINARY, source=source)

    def _check(self, at: Path_, value: dict[str, Any], kind: str, item_id: str) -> Check | None:
        before = self.problems.errors
        params: dict[str, Any] = {}
        for name in FIELDS:
            if value.get(name) is not None:
                params[name] = value[name]
        required = {
            "file_exists": "path",
            "file_absent": "path",
            "regex": "pattern",
            "not_regex": "pattern",
            "command": "run",
            "tool_call": "tool",
            "tool_sequence": "tools",
        }[kind]
        if kind == "tool_sequence":
            self._sequence(at, value)
        else:
            self._string(at, value, required, required=True)
        for name in ("path", "pattern", "run", "cwd", "tool", "requires"):
            if name != required:
                self._string(at, value, name, required=False)
        exit_code = value.get("expect_exit")
        if exit_code is not None and (
            isinstance(exit_code, bool) or not isinstance(exit_code, int)
        ):
            self.problems.error((*at, "expect_exit"), "must be an integer exit code, e.g. 0 or 1")
        self._patterns(at, params, kind)
        if self.problems.errors > before:
            return None
        text = derived_text(kind, params)
        origin = self.problems.origin(*at)
        return Check(item_id, f"evolve.{kind}", text, origin, params=typed(kind, params))

    def _patterns(self, at: Path_, params: dict[str, Any], kind: str) -> None:
        # regex/not_regex compile as evolve does, with (?m); tool_call without it.
        multiline = kind in ("regex", "not_regex")
        names = ("pattern",) if multiline else ("tool", "pattern") if kind == "tool_call" else ()
        for name in names:
            pattern = params.get(name)
            if isinstance(pattern, str) and pattern:
                message = regex_problem(pattern, multiline=multiline)
                if message:
                    self.problems.error((*at, name), message)

    def _sequence(self, at: Path_, value: dict[str, Any]) -> None:
        """`tool_sequence`: `tools`, a non-empty list of tool names, and `order`."""
        tools = value.get("tools")
        if not isinstance(tools, list) or not tools:
            where = (*at, "tools") if "tools" in value else at
            self.problems.error(where, "missing tools: a list of tool names, e.g. [Read, Edit]")
        elif not all(isinstance(t, str) and t.strip() for t in tools):
            self.problems.error((*at, "tools"), "every tool must be a non-empty name")
        order = value.get("order", "in_order")
        if order not in ORDERS:
            said = f"must be one of {', '.join(ORDERS)}, not {order!r}"
            self.problems.error((*at, "order"), said)

    def _string(self, at: Path_, value: dict[str, Any], name: str, *, required: bool) -> str:
        got = value.get(name)
        if got is None or got == "":
            if required:
                self.problems.error((*at, name) if name in value else at, f"missing {name}")
            return ""
        if not isinstance(got, str):
            self.problems.error((*at, name), f"must be a string, not {json_kind(got)}")
            return ""
        return got


def _statement(value: dict[str, Any]) -> str | None:
    for key in TEXT_KEYS:
        text = value.get(key)
        if isinstance(text, str) and text.strip():
            return text
    return None


def _unknown(kind: str) -> str:
    close = difflib.get_close_matches(kind, TYPES, n=1, cutoff=0.6)
    hint = f' (did you mean "{close[0]}"?)' if close else ""
    return f'unknown assertion type "{kind}"{hint}; use one of {", ".join(TYPES)}'
