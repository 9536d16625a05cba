"""Issue 26 in the AgentV and clauditor formats, end to end as in `test_ruler_run`: the same
comparison over the normalized model catches a relaxed AgentV test (a required check made
optional under a lower threshold) and a loosened clauditor regex, and a clauditor spec kept
beside its skill is an eval file, not a skill file.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.test_ruler_run import (
    BROKEN,
    GOOD,
    HIDDEN,
    fakes,
    pull_request,
    section,
)
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM

__all__ = ["fakes"]  # the fixture, shared with test_ruler_run


AGENTV = "evals/greeter/EVAL.yaml"
AGENTV_EVAL = """\
name: greeter-agentv
tests:
  - id: status
    criteria: Greets Ada
    input: Write the message for Ada.
    assert:
      - {{type: regex, value: "^Hello, Ada!$", required: {required}}}
      - {{type: contains, value: "H"}}
{threshold}"""


def test_agentv__an_optional_check_under_a_lower_threshold_is_red(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    base = AGENTV_EVAL.format(required="true", threshold="")
    head = AGENTV_EVAL.format(required="false", threshold="    threshold: 0.5\n")
    job = pull_request(tmp_path, fakes, skill=BROKEN, head_evals=head, path=AGENTV, base_evals=base)
    code, conclusion, body, _ = job()
    assert (code, conclusion) == (1, "failure")
    hidden = section(body, HIDDEN)
    assert "greeter-agentv / `status` on anthropic/" in hidden and "4/4 → 0/4" in hidden
    assert "required" in hidden and "threshold" in hidden and "→ 0.5" in hidden


CLAUDITOR = "skills/greeter/SKILL.eval.json"


def clauditor_spec(pattern: str) -> str:
    assertion = {"id": "greets", "type": "regex", "pattern": pattern}
    return json.dumps({"skill_name": "greeter", "test_args": "", "assertions": [assertion]})


def test_clauditor__a_loosened_regex_is_red_and_evals_alone_are_not_skill_files(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    base = clauditor_spec("^Hello, Ada!$")
    job = pull_request(
        tmp_path, fakes, skill=BROKEN, head_evals=clauditor_spec("."), path=CLAUDITOR,
        base_evals=base,
    )  # fmt: skip
    code, conclusion, body, _ = job()
    assert (code, conclusion) == (1, "failure")
    assert "regex /^Hello, Ada!$/ → /./" in section(body, HIDDEN)


def test_clauditor__changing_only_the_spec_beside_the_skill_is_information(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    base = clauditor_spec("^Hello, Ada!$")
    job = pull_request(
        tmp_path, fakes, skill=GOOD, head_evals=clauditor_spec("."), path=CLAUDITOR,
        base_evals=base,
    )  # fmt: skip
    code, conclusion, body, _ = job()
    assert (code, conclusion) == (0, "success")
    assert "not tested: the PR changed only evals" in body
