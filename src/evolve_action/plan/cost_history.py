"""What the cache remembers of each case's runs: their mean usage, for the cost projection.

The cache stores finished runs by fingerprint, so a changed skill misses it; but the same case
on the same model used about as many tokens last time as it will now. This reads the cache's
entries once, before the first call, and keeps per (eval file, case, model) the mean usage of
the agent and of the judge, and the usage of its cheapest and its dearest run (the range).
Memory and time are bounded: at most `MAX_ENTRIES` entries are read, each at most the
cache's own entry limit, and only the sums are kept. An unreadable entry
is skipped (the cache treats it as a miss too).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evolve_action.model.outcomes import Usage
from evolve_action.plan.cache import FORMAT_VERSION, MAX_ENTRY_BYTES

log = logging.getLogger(__name__)

MAX_ENTRIES = 20_000
CaseModel = tuple[str, str, str]  # (eval file, case id, model)


Pair = tuple[Usage, Usage]  # (the agent's usage, the judge's) of one run


def weight(pair: Pair) -> float:
    """A run's usage ranked as a price would rank it: an answer token costs about five input
    tokens at both vendors, a cached one a tenth."""
    return math.fsum(
        u.input_tokens + u.cache_write_tokens + 0.1 * u.cache_read_tokens + 5 * u.output_tokens
        for u in pair
    )


@dataclass(slots=True)
class _Sums:
    runs: int = 0
    agent: Usage = field(default_factory=Usage)
    judge: Usage = field(default_factory=Usage)
    low: Pair | None = None
    high: Pair | None = None

    def add(self, pair: Pair) -> None:
        self.runs += 1
        self.agent.add(pair[0])
        self.judge.add(pair[1])
        if self.low is None or weight(pair) < weight(self.low):
            self.low = pair
        if self.high is None or weight(pair) > weight(self.high):
            self.high = pair


@dataclass(frozen=True, slots=True)
class Seen:
    """The mean usage of one case's runs on one model (tokens rounded to whole ones), and
    its cheapest and dearest run."""

    runs: int
    agent: Usage
    judge: Usage
    low: Pair | None = None
    high: Pair | None = None

    @property
    def cheapest(self) -> Pair:
        return self.low or (self.agent, self.judge)

    @property
    def dearest(self) -> Pair:
        return self.high or (self.agent, self.judge)


def _mean(total: Usage, runs: int) -> Usage:
    return Usage(
        round(total.input_tokens / runs),
        round(total.output_tokens / runs),
        round(total.cache_read_tokens / runs),
        round(total.cache_write_tokens / runs),
        None,
        round(total.calls / runs),
    )


def _usage(doc: Mapping[str, Any]) -> Usage:
    return Usage(
        int(doc["input_tokens"]),
        int(doc["output_tokens"]),
        int(doc["cache_read_tokens"]),
        int(doc["cache_write_tokens"]),
        None,
        int(doc["calls"]),
    )


def read_history(root: Path | None) -> dict[CaseModel, Seen]:
    """Every case the cache at `root` has graded runs of, with their mean usage."""
    sums: dict[CaseModel, _Sums] = {}
    if root is None or not root.is_dir():
        return {}
    read = 0
    for path in sorted(root.glob("*/*.json")):
        if read >= MAX_ENTRIES:
            log.info("cost history: read the first %d cache entries only", MAX_ENTRIES)
            break
        read += 1
        try:
            if path.stat().st_size > MAX_ENTRY_BYTES:
                continue
            doc = json.loads(path.read_text(encoding="utf-8"))
            if doc.get("version") != FORMAT_VERSION:
                continue
            run = doc["run"]
            if run["status"] == "error":
                continue
            key = (str(run["suite"]), str(run["case_id"]), str(run["model"]))
            agent, judge = _usage(run["transcript"]["usage"]), _usage(run["judge"]["usage"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
        sums.setdefault(key, _Sums()).add((agent, judge))
    return {
        k: Seen(s.runs, _mean(s.agent, s.runs), _mean(s.judge, s.runs), s.low, s.high)
        for k, s in sums.items()
    }
