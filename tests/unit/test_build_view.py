"""From real runs and suites to the rendered comment: every part built from data, escaped."""

from __future__ import annotations

import re

import pytest

from evolve_action.model.evals import LoadResult, Origin, Problem
from evolve_action.model.outcomes import RunResult, Side
from evolve_action.plan.planning import RunSpec, Skip
from evolve_action.publish.render.build.assemble import build_view, duration, money, points
from evolve_action.publish.render.comment import render
from evolve_action.publish.render.report import tokens
from evolve_action.settings.inputs import Settings
from tests.fakes.reports import HEAD, M1, M2, make_report, make_suite, outcome

GREETER = make_suite(
    "greeter",
    [("status-file", 24), ("weather", 40), ("new-case", 50), ("old-case", 60), ("greets", 10)],
)
LINK = f"https://github.com/acme/skills/blob/{HEAD}/evals/greeter/evals.json#L24"


def example_runs() -> list[RunResult]:
    rs: list[RunResult] = []
    for m in (M1, M2):
        rs += outcome(
            GREETER,
            "status-file",
            m,
            base=(4, 0),
            head=(0, 4),
            suggestion={"reason": "no assertion checks that status.txt has content"},
        )
        rs += outcome(
            GREETER,
            "weather",
            m,
            base=(0, 4),
            head=(0, 4),
            why=("The answer describes today's weather", "The reply only says hello."),
            suggestion={"assertion": "weather", "reason": "can never pass with this skill"},
        )
        rs += outcome(GREETER, "new-case", m, base=None, head=(4, 0))
        rs += outcome(GREETER, "old-case", m, base=(4, 0), head=None)
        rs += outcome(GREETER, "greets", m, base=(4, 0), head=(4, 0))
    # One suggestion raised by a single run: ranked below the ones raised by eight.
    rs[-1].judge.feedback.suggestions.append({"reason": "rare remark"})
    return rs


def rows(text: str, prefix: str) -> list[list[str]]:
    """Table rows starting with `prefix`, split on unescaped pipes."""
    lines = [line for line in text.splitlines() if line.startswith(prefix)]
    return [re.split(r"(?<!\\)\|", line)[1:-1] for line in lines]


def test_example_comment__every_part_from_data() -> None:
    report = make_report([GREETER], example_runs(), cached_runs=1)
    text = render(build_view(report))
    assert text.startswith("<!-- evolve:sticky key=default -->\n### ❌ evolve: 1 eval regressed")
    assert (
        "`greeter` changed in this PR. 5 cases × 2 models × 4 runs on base `1a2b3c4` and "
        "head `5d6e7f8`." in text
    )
    # Like with like: base and head over the 3 cases graded on both sides (the new and the
    # removed case apart): base 66.7% (mean of 1, 0, 1), head 33.3% (0, 0, 1).
    assert "| **the 3 evals graded on both sides** | 66.7% | 33.3% | −33.3 pts |" in text
    suite_rows = rows(text, "| greeter |")
    assert [r[1].strip() for r in suite_rows] == [M1, M2]
    assert [c.strip() for c in suite_rows[0][2:]] == [
        "66.7% → 33.3% (−33.3 pts)",
        "▼ 1 regressed · 1 new · 1 removed",
    ]
    # The same regression on both models: one row.
    (regressed,) = rows(text, "| [`status-file`]")[:1]
    assert regressed[0].strip() == f"[`status-file`]({LINK})"
    assert [c.strip() for c in regressed[1:]] == [
        "both models",
        "4/4 → 0/4",
        "<0.001",  # (1/70)² pooled over both models, nothing else could compete
        "command `test -f status.txt` exits 0 → exit 1",
    ]
    assert "adjusted for every eval, model and skill" in text
    assert "Dropped, not significant" not in text and "Too few runs" not in text
    assert "**New:** `new-case` on both models (4/4)." in text
    assert "**Removed:** `old-case` on both models." in text
    assert "**Unchanged failures:** `weather` on both models (0/4 → 0/4)." in text
    # 4 + 4 failed head runs per model: two checks that failed, one row each.
    assert "Failed checks: 2 (in 16 failed head runs)" in text
    failure_rows = rows(text.split("Failed checks: ")[1], "| [")
    assert failure_rows[0][0].strip().startswith("[`status-file`]")
    assert [c.strip() for c in failure_rows[-1][1:]] == [
        "The answer describes today's weather",
        "The reply only says hello.",
        "8 of 8 runs, both models",
    ]
    assert "**What to do**" in text and "Fix the skill for `status-file`" in text
    suggestions = [line for line in text.splitlines() if line.startswith("- **×")]
    assert suggestions == [
        "- **×8** `status-file`: no assertion checks that status.txt has content",
        "- **×8** `weather` / `weather`: can never pass with this skill",
        "- **×1** `greets`: rare remark",
    ]
    assert text.rstrip().endswith(
        "<sub>💸 this push $0.64 · PR so far: $0.64 over 1 push · 64k tokens · ⏱ 3m 12s ·"
        " 1 cached run reused · [workflow run](https://github.com/acme/skills/actions/runs/4242)"
        ' · evolve-action 1.2.3<!-- evolve-spend {"usd":0.64,"pushes":1,'
        '"sha":"5d6e7f8aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","unknown":false} --></sub>'
    )
    assert text.index("▼ Regressed") < text.index("<details>")


def test_model_and_eval_text_is_neutralized_in_the_final_markdown() -> None:
    hostile_id = "a`b|c"
    suite = make_suite("greeter", [(hostile_id, 5)])
    evidence = "ok @team </details><img src=x onerror=alert(1)> | split"
    rs = []
    for m in (M1, M2):
        rs += outcome(
            suite,
            hostile_id,
            m,
            base=(4, 0),
            head=(0, 4),
            why=("says <b>hi</b> @alice", evidence),
            suggestion={"reason": "ping @org/team </details>"},
        )
    text = render(build_view(make_report([suite], rs, notices=["stopped @bob"])))
    assert "@team" not in text and "@alice" not in text and "@org" not in text
    assert "@bob" not in text and "@\u200bbob" in text
    assert text.count("</details>") == text.count("<details>") == 2  # ours only
    assert "<img" not in text and "<b>" not in text
    regressed = rows(text, "| [")[:1]
    assert len(regressed[0]) == 5  # the pipe in the id and the evidence did not split the row
    assert regressed[0][0].strip().startswith("[``a`b\\|c``](")
    assert "\\| split" in regressed[0][4]


def test_improved_phrases_show_counts_per_model_when_they_differ() -> None:
    rs = outcome(GREETER, "greets", M1, base=(0, 4), head=(4, 0))
    rs += outcome(GREETER, "greets", M2, base=(0, 5), head=(5, 0))
    rs += outcome(GREETER, "weather", M1, base=(0, 4), head=(4, 0))
    view = build_view(make_report([GREETER], rs))
    assert view.improved == (
        f"`weather` on {M1} (0/4 → 4/4)",
        f"`greets` on both models ({M1}: 0/4 → 4/4, {M2}: 0/5 → 5/5)",
    )
    assert (view.icon, view.headline) == ("✅", "2 evals improved")


def test_base_none__head_rates_only_no_significance_claims() -> None:
    rs = outcome(GREETER, "status-file", M1, base=None, head=(1, 3))
    rs += outcome(GREETER, "greets", M1, base=None, head=(4, 0))
    text = render(build_view(make_report([GREETER], rs, base_sha=None)))
    assert "### ✅ evolve: 1 of 2 evals pass" in text
    assert "2 cases × 1 model × 4 runs on head `5d6e7f8` only (no base to compare with)." in text
    assert "| **all affected evals** (head only) | — | 62.5% | — |" in text
    assert rows(text, "| greeter |")[0][2:] == [" 62.5% (head only) ", " 1 of 2 cases pass "]
    for claim in ("significant", "Regressed", "New:", "Improved", "regressed"):
        assert claim not in text
    assert "Failed checks: 1 (in 3 failed head runs)" in text


def test_errors_are_grouped_by_kind_and_an_outage_is_neutral() -> None:
    rs = outcome(GREETER, "greets", M1, base=(0, 0), head=(0, 0), errored=3)
    rs += outcome(GREETER, "status-file", M1, base=(0, 0), head=(0, 0), errored=1)
    view = build_view(make_report([GREETER], rs))
    assert (view.icon, view.headline) == ("⚠️", "evals could not run (every run of 2 evals errored)")
    assert [(e.where, e.message) for e in view.errors] == [
        ("timeout (4 runs)", "provider timed out after 600s (`greets` on " + M1 + ", head)")
    ]
    text = render(view)
    assert "**⚠️ Errors** (counted as neither passes nor failures" in text


def test_invalid_files_skips_and_budget_are_listed() -> None:
    bad = LoadResult(
        "evals/x/evals.json",
        None,
        None,
        (Problem(Origin("evals/x/evals.json", 3, "evals[0].prompt"), "is required"),),
    )
    skip = Skip(GREETER.rel, "greets", M2, "skip_providers lists openai")
    spec = RunSpec(GREETER, GREETER.cases[0], M1, Side.HEAD, 3)
    rs = outcome(GREETER, "greets", M1, base=(4, 0), head=(4, 0))
    report = make_report(
        [GREETER],
        rs,
        invalid=[bad],
        skipped=[skip],
        not_started=[spec, spec],
        settings=Settings(max_cost_usd=5.0),
    )
    text = render(build_view(report))
    assert "### ❌ evolve: 1 invalid eval file" in text
    assert "- evals/x/evals.json:3: evals[0].prompt: is required" in text
    assert (
        "**Not run:** `greets` on openai/gpt-5.4: skip_providers lists openai; "
        "2 runs never started: the cost budget ($5.00) was spent." in text
    )


def test_in_progress_version() -> None:
    report = make_report([GREETER], [], in_progress=True)
    view = build_view(report)
    assert (view.icon, view.headline) == ("⏳", "evals running")
    assert "updated when they finish" in view.notices[0]
    assert "<!-- evolve:sticky key=default -->" in render(view)


def test_comment_key_reaches_the_marker() -> None:
    report = make_report([GREETER], [], settings=Settings(comment_key="suite-a"))
    assert build_view(report).marker == "<!-- evolve:sticky key=suite-a -->"


def test_several_suites_name_the_skill_beside_the_case() -> None:
    other = make_suite("farewell", [("status-file", 3)])
    rs = outcome(GREETER, "status-file", M1, base=(4, 0), head=(0, 4))
    rs += outcome(other, "status-file", M1, base=(4, 0), head=(0, 4))
    view = build_view(make_report([GREETER, other], rs))
    assert [r.case for r in view.regressions] == [
        "farewell / `status-file`",
        "greeter / `status-file`",
    ]
    assert view.headline == "2 evals regressed"


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.083, "+8.3 pts"), (-0.1, "−10 pts"), (0.0, "±0 pts"), (0.00001, "±0 pts")],
)
def test_points(value: float, text: str) -> None:
    assert points(value) == text


def test_money_tokens_duration() -> None:
    assert (money(0.412), money(0.001), money(None)) == ("$0.41", "<$0.01", "price unknown")
    assert (tokens(950), tokens(58_300), tokens(1_200_000)) == ("950", "58k", "1.2M")
    assert (duration(45), duration(192), duration(3720)) == ("45s", "3m 12s", "1h 2m")


def test_long_lists_of_phrases_are_capped_with_a_count() -> None:
    suite = make_suite("big", [(f"c{i}", i + 1) for i in range(25)])
    rs = [r for i in range(25) for r in outcome(suite, f"c{i}", M1, base=(0, 2), head=(0, 2))]
    view = build_view(make_report([suite], rs))
    assert len(view.unchanged_failures) == 21
    assert view.unchanged_failures[-1] == "and 5 more in results.json"


def test_suggestions_do_not_repeat_the_case_id_the_line_already_names() -> None:
    rs = outcome(
        GREETER,
        "greets",
        M1,
        base=(4, 0),
        head=(4, 0),
        suggestion={"reason": "greets: nothing checks the second line"},
    )
    rs += outcome(
        GREETER, "weather", M1, base=(0, 4), head=(0, 4), suggestion={"reason": "weather:"}
    )
    view = build_view(make_report([GREETER], rs))
    assert [(s.target, s.reason) for s in view.suggestions] == [
        ("`greets`", "nothing checks the second line"),
        ("`weather`", "weather:"),  # nothing left after the id: kept as written
    ]


def test_too_few_runs_names_the_evals_the_runs_that_would_do_and_the_errors() -> None:
    rs = outcome(GREETER, "status-file", M1, base=(2, 0), head=(0, 1), errored=1)
    rs += outcome(GREETER, "greets", M1, base=(2, 0), head=(2, 0))
    view = build_view(make_report([GREETER], rs))
    assert view.icon == "⚠️" and view.headline.startswith("too few runs to tell (2 evals;")
    [clean, errored] = sorted(view.too_few)  # `g… before `s…
    assert errored.startswith("`status-file`: with 1 graded run per side, even 1/1 → 0/1")
    assert "(1 run errored: errors count as neither pass nor fail)" in errored
    assert clean.startswith("`greets`: with 2 graded runs per side") and "errored" not in clean
