#!/usr/bin/env python3
"""Give every case of a kit-generated AgentV eval file K judge statements instead of one.

    more_judge_items.py FILE K

The kit's `agentv/gen_eval.py` writes one `criteria` (graded by one `llm-grader`) per case;
this adds K - 1 inline `rubrics` per case, so a case carries K statements for the judge.
evolve grades all K in its one judge call per run.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

EXTRA = (
    "The reply is one sentence",
    "The reply is polite",
    "The reply is in English",
    "The reply does not ask a question",
    "The reply names no other keyword",
    "The reply is under 200 characters",
    "The reply is plain text",
)


def main() -> None:
    path, k = Path(sys.argv[1]), int(sys.argv[2])
    if k - 1 > len(EXTRA):
        raise SystemExit(f"at most {len(EXTRA) + 1} statements")
    rubrics = "    rubrics:\n" + "".join(f"      - {s}\n" for s in EXTRA[: k - 1])
    text = re.sub(r"    input: .*\n", lambda m: m.group(0) + rubrics, path.read_text())
    path.write_text(text)


if __name__ == "__main__":
    main()
