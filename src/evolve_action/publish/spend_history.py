"""What the pull request has cost so far, across pushes: kept in our own sticky comment.

Each job's comment carries, hidden in an HTML comment of its footer, the running total: the
dollars paid by every job on the PR so far, how many pushes (distinct head commits) they
ran on, the last head, and whether some job had a model with no price. The next job reads
it from the sticky comment that `Publisher.find_sticky` finds, which must carry our marker
*and* be written by our own bot login: a PR author cannot edit that comment, and text
pasted into the PR or another comment is never read. The figure is data, checked on the way
in (bounded size, finite non-negative numbers); anything else reads as "no history".

A push counts once however many jobs ran on it (a re-run of the same head adds its spend,
not a push).
"""

from __future__ import annotations

import json
import logging
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evolve_action.model.spend import Spend, money

if TYPE_CHECKING:
    from evolve_action.publish.github_api import Publisher

log = logging.getLogger(__name__)

_DATA = re.compile(r"<!-- evolve-spend (\{[^<>]{0,400}\}) -->")
MAX_PUSHES = 1_000_000


@dataclass(frozen=True, slots=True)
class PrSpend:
    """The PR's spend over the jobs that ran on it."""

    usd: float = 0.0
    pushes: int = 0
    last_sha: str = ""
    unknown: bool = False  # some job ran a model with no price: `usd` is a lower bound


def parse(body: str) -> PrSpend | None:
    """The running total hidden in one of our comment bodies; None when absent or not ours."""
    match = _DATA.search(body[-20_000:])
    if match is None:
        return None
    try:
        doc = json.loads(match.group(1))
        usd, pushes = float(doc["usd"]), int(doc["pushes"])
        sha, unknown = str(doc.get("sha", "")), bool(doc.get("unknown", False))
    except (ValueError, KeyError, TypeError):
        return None
    if not math.isfinite(usd) or usd < 0 or not 0 <= pushes <= MAX_PUSHES:
        return None
    if not re.fullmatch(r"[0-9a-f]{0,40}", sha):
        return None
    return PrSpend(usd, pushes, sha, unknown)


def read(publisher: Publisher, number: int, key: str) -> PrSpend | None:
    """The total our sticky comment on PR `number` carries; None when it has none or cannot
    be read (the job goes on, and the comment then counts from this push)."""
    try:
        comment = publisher.find_sticky(publisher.repo.get_issue(number), key)
    except Exception as exc:  # a read that fails must not fail the job
        log.warning("could not read the PR's earlier spend from its comment: %s", exc)
        return None
    return parse(comment.body or "") if comment is not None else None


def add(before: PrSpend | None, spend: Spend, head_sha: str) -> PrSpend:
    """The total once this job's spend is added; the same head is the same push."""
    before = before or PrSpend()
    sha = head_sha.lower() if re.fullmatch(r"[0-9a-fA-F]{7,40}", head_sha) else ""
    same = bool(sha) and sha == before.last_sha
    return PrSpend(
        before.usd + spend.paid_usd,
        before.pushes + (0 if same else 1),
        sha,
        before.unknown or not spend.known,
    )


def hidden(total: PrSpend) -> str:
    """The total as the next job reads it (an HTML comment: invisible in the rendering)."""
    doc = {
        "usd": round(total.usd, 6),
        "pushes": total.pushes,
        "sha": total.last_sha,
        "unknown": total.unknown,
    }
    return f"<!-- evolve-spend {json.dumps(doc, separators=(',', ':'))} -->"


def words(total: PrSpend) -> str:
    """ "PR so far: $1.63 over 2 pushes" (with "+ price unknown" when a model had none)."""
    text = f"PR so far: {money(total.usd)} over {total.pushes} push{'es' * (total.pushes != 1)}"
    return text + (" + price unknown" if total.unknown else "")
