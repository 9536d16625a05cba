"""Which problems a log shows (`validate`'s output and annotations): errors only or all, and a
message repeated many times (the same error in 596 cases of one file) shown a few times, then
counted, so the one line that differs is not lost among the repeats."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from evolve_action.model.evals import Problem, Severity

SHOWN_PER_GROUP = 3  # problems printed of one repeated message; the rest are counted
_INDEX = re.compile(r"\[\d+\]")
# A value a message quotes ('./fixtures/a.cs', `greet`, "x"): the part that differs between
# problems of one kind.
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`")


def _group(problem: Problem) -> tuple[str, str, str]:
    """What makes two problems "the same": severity, the message with what it quotes blurred
    (`'a.cs' does not exist` and `'b.cs' does not exist` are one kind), and the field with
    list indexes blurred (`evals[3].prompt` and `evals[40].prompt` are one field)."""
    message = _QUOTED.sub(lambda m: f"{m.group()[0]}…{m.group()[0]}", problem.message)
    return problem.severity.value, _INDEX.sub("[*]", problem.field), message


def pattern(problem: Problem) -> str:
    severity, where, message = _group(problem)
    tag = "" if problem.severity is Severity.ERROR else f"{severity}: "
    return f"{where}: {tag}{message}" if where else f"{tag}{message}"


@dataclass(frozen=True)
class Shown:
    """Which problems are printed: errors only or all, and each repeated message
    `SHOWN_PER_GROUP` times, then counted ("… and 590 more like this")."""

    errors_only: bool = False
    grouped: bool = True

    def keeps(self, problem: Problem) -> bool:
        return not self.errors_only or problem.severity is Severity.ERROR

    def pick(self, problems: Sequence[Problem]) -> tuple[list[Problem], list[tuple[int, Problem]]]:
        """(the problems to print, in order; per group cut short: (how many more, an example))."""
        seen: dict[tuple[str, str, str], int] = {}
        first: dict[tuple[str, str, str], Problem] = {}
        out = []
        for problem in problems:
            if not self.keeps(problem):
                continue
            key = _group(problem)
            seen[key] = seen.get(key, 0) + 1
            first.setdefault(key, problem)
            if not self.grouped or seen[key] <= SHOWN_PER_GROUP:
                out.append(problem)
        more = [(n - SHOWN_PER_GROUP, first[k]) for k, n in seen.items() if n > SHOWN_PER_GROUP]
        return out, (more if self.grouped else [])
