"""Agents that spend a run differently, for the cost projection's range and the budget's
ceiling: few turns or many, short answers or long ones. Each plays the agent of any greeter-
or message-style case (it loads the one skill installed, writes what the skill says to the
file the case checks) and grades like `scripts.grading` as the judge.

`BEHAVIOURS` are the three the end-to-end tests run (few, typical, many); `HELD_OUT` are
others the bench adds to report how often a cost falls inside the projected range on
behaviours the prior's ends were not set on; `RUNAWAY` goes past the range on purpose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from tests.fakes.llm_server import Answer, Call, Request, calls, text
from tests.fakes.scripts import grading, tool_names

_SAYS = re.compile(r"(?:Write|SHOUT) `([^`]+)`")
_PROSE = (
    "The skill asks for one message, written to the file the task names; before writing it I"
    " check what is already in the workspace and note what I am about to change and why. "
)


@dataclass(frozen=True, slots=True)
class Behaviour:
    """`turns` model turns in all (the skill, `reads` notes written and read back, the message,
    the last answer); `words` characters of prose with each answer; `notes` characters in
    each note the agent writes and reads back (its tool results)."""

    name: str
    turns: int
    words: int
    notes: int = 0

    def __call__(self, request: Request) -> Answer:
        if "submit_grading" in tool_names(request):
            return grading(request)
        return self.answer(request)

    def answer(self, request: Request) -> Answer:
        turn, last = request.turn, self.turns - 1
        prose = (_PROSE * (1 + self.words // len(_PROSE)))[: self.words]
        if turn >= last:
            return text(prose or "Done.")
        if turn == last - 1 or self.turns <= 2:
            message = _message(request)
            return calls(*(Call("Write", {"file_path": f, "content": message}) for f in _FILES),
                         text=prose)  # fmt: skip
        if turn == 0:
            return calls(Call("Skill", {"skill": _skill(request)}), text=prose)
        if turn % 2:
            note = (_PROSE * (1 + self.notes // len(_PROSE)))[: self.notes] or "-"
            return calls(Call("Write", {"file_path": "notes.md", "content": note}), text=prose)
        return calls(Call("Read", {"file_path": "notes.md"}), text=prose)


_FILES = ("message.txt", "hello.txt")


def _skill(request: Request) -> str:
    system = json.dumps(request.body.get("system", "")) + json.dumps(request.messages[:1])
    system += json.dumps(request.body.get("tools", ""))
    return "farewell" if "- farewell:" in system or '"farewell' in system else "greeter"


def _message(request: Request) -> str:
    found = _SAYS.search(" ".join(request.tool_results))
    return (found.group(1) if found else "Hello, Ada!") + "\n"


FEW = Behaviour("few", 2, 40)  # writes at once, says a line
TYPICAL = Behaviour("typical", 3, 120)  # loads the skill, writes, answers
MANY = Behaviour("many", 12, 1600, 2400)  # thinks aloud, writes and re-reads notes
BEHAVIOURS: tuple[Behaviour, ...] = (FEW, TYPICAL, MANY)
HELD_OUT: tuple[Behaviour, ...] = (
    Behaviour("one-word", 1, 4),
    Behaviour("verbose", 3, 2800),
    Behaviour("terse-many", 10, 20, 200),
    Behaviour("notes", 6, 400, 4000),
)


# Past the range's high end on purpose (every turn of the default cap, long notes): what the
# budget's bound is measured on, where an estimate is exceeded.
RUNAWAY = Behaviour("runaway", 20, 3000, 6000)


def by_name(name: str) -> Callable[[Request], Answer]:
    for behaviour in (*BEHAVIOURS, *HELD_OUT, RUNAWAY):
        if behaviour.name == name:
            return behaviour
    raise KeyError(name)
