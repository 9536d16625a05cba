"""results.json's `lift` and `discrimination`: the no-skill arm's verdict and the items that
cannot tell (schemas/results.schema.json, `$defs/lift` and `$defs/item_discrimination`).

Both are computed again from the runs whenever a report is made (`report` merges shards, then
builds), so they are written and never read back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evolve_action.model import lanes
from evolve_action.publish.results.document import side_doc
from evolve_action.verdict.discrimination import ItemRecord, shares
from evolve_action.verdict.lift import Lift


def lift_doc(lift: Lift | None) -> dict[str, Any] | None:
    if lift is None:
        return None
    return {
        "alpha": lift.alpha,
        "skills": [
            {
                "suite": s.suite,
                **lanes.fields(s.model),
                "head_rate": s.head_rate,
                "no_skill_rate": s.no_skill_rate,
                "lift": s.lift,
                "helps": s.helps,
                "adjusted_p": s.adjusted_p,
            }
            for s in lift.skills
        ],
        "cases": [
            {
                "suite": c.suite,
                "case_id": c.case_id,
                "name": c.name,
                **lanes.fields(c.model),
                "head": side_doc(c.head),
                "no_skill": side_doc(c.no_skill),
                "lift": c.lift,
                "helps": c.helps,
                "adjusted_p": c.adjusted_p,
            }
            for c in lift.cases
        ],
    }


def discrimination_doc(records: Sequence[ItemRecord]) -> dict[str, Any]:
    return {
        "items": [
            {
                "suite": r.suite,
                "case_id": r.case_id,
                "item_id": r.item_id,
                "text": r.text,
                "kind": r.kind,
                "finding": r.finding.value,
                "cannot_tell": r.finding.cannot_tell,
                "arms": {
                    side.value: {"passed": c.passed, "failed": c.failed}
                    for side, c in r.arms.items()
                },
                "unstable_on": [side.value for side in r.unstable_on],
            }
            for r in records
        ],
        "skills": [
            {"suite": s.suite, "items": s.items, "cannot_tell": s.cannot_tell, "mostly": s.mostly}
            for s in shares(records)
        ],
    }
