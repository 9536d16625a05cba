from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.publish.render.comment import (
    COMMENT_LIMIT,
    TemplateProblem,
    environment,
    fit_comment,
    render,
)
from evolve_action.publish.render.escape import cell, code, inline
from evolve_action.publish.render.view import CaseRow, CommentView, FailureRow, Suggestion, SuiteRow

MARKER = "<!-- evolve:sticky key=default -->"


def view(**kw: object) -> CommentView:
    base: dict[str, object] = {
        "marker": MARKER,
        "icon": "❌",
        "headline": "1 eval regressed",
        "scope": "`greeter` changed in this PR.",
        "overall_base": "62.5%",
        "overall_head": "70.8%",
        "overall_delta": "+8.3 pts · not significant",
        "footer": "$0.41 · 58k tokens",
    }
    return CommentView(**(base | kw))  # type: ignore[arg-type]


def test_escape__mentions_html_details_markers_and_pipes_are_neutralized() -> None:
    hostile = "ping @acme/team </details><!-- evolve:sticky key=default --> a|b ![i](http://x)"
    out = cell(hostile)
    assert "@acme" not in out and "@\u200bacme" in out
    assert "</details>" not in out and "<!--" not in out
    assert "a\\|b" in out and "](" not in out
    assert inline("x\n\ny") == "x y"
    assert code("a``b") == "```a``b```"


def test_render__sections_in_order_and_quoted_text_cannot_escape() -> None:
    evidence = cell("model said </details> @team")
    text = render(
        view(
            suites=(
                SuiteRow(
                    "greeter",
                    "anthropic/claude-sonnet-4-6",
                    "60%",
                    "70%",
                    "+10 pts",
                    "▼ 1 regressed",
                    4,
                    "$0.20",
                ),
            ),
            regressions=(
                CaseRow(
                    "`status-file`",
                    "https://x/evals.json#L24",
                    "anthropic/claude-sonnet-4-6",
                    "4/4",
                    "0/4",
                    "0.03",
                    evidence,
                ),
            ),
            failures=(
                FailureRow(
                    "`status-file`", "m", "1 of 1 run", 1, "command `test` exits 0", evidence
                ),
            ),
            failures_total=1,
            suggestions=(Suggestion(6, "`weather`", "can never pass"),),
        )
    )
    assert text.startswith(MARKER)
    assert text.index("▼ Regressed") < text.index("<details>")
    assert text.count("</details>") == 2  # ours only
    assert "@team" not in text
    assert "[`status-file`](https://x/evals.json#L24)" in text


def test_fit_comment__500_cases_x_2_models_stays_under_the_limit() -> None:
    long = "evidence " * 40
    failures = tuple(
        FailureRow(
            f"`case-{i}`", f"model-{m}", "1 of 1 run", 1, cell("assertion " * 10), cell(long)
        )
        for i in range(500)
        for m in range(2)
    )
    regressions = tuple(
        CaseRow(f"`case-{i}`", "", "anthropic/claude-sonnet-4-6", "4/4", "0/4", "0.03", cell(long))
        for i in range(40)
    )
    suites = tuple(
        SuiteRow(
            f"skill-{i}",
            "openai/gpt-5.4",
            "60%",
            "70%",
            "+10 pts",
            "no significant change",
            3,
            "$0.1",
        )
        for i in range(300)
    )
    big = view(
        failures=failures,
        failures_total=1000,
        regressions=regressions,
        suites=suites,
        suggestions=tuple(Suggestion(1, "", cell(long)) for _ in range(400)),
    )
    text = fit_comment(big)
    assert len(text.encode()) <= COMMENT_LIMIT
    assert "### ❌ evolve: 1 eval regressed" in text
    assert text.count("| `case-") >= 40  # every regression row kept
    assert "leaves out" in text


def test_user_template_extends_blocks_and_runs_sandboxed(tmp_path: Path) -> None:
    template = tmp_path / "mine.md.j2"
    template.write_text('{% extends "comment.md.j2" %}{% block overall %}CUSTOM{% endblock %}')
    text = render(view(), name="user.md.j2", env=environment(template))
    assert "CUSTOM" in text and MARKER in text
    template.write_text("{{ v.__class__.__mro__ }}")
    with pytest.raises(TemplateProblem):
        render(view(), name="user.md.j2", env=environment(template))


def test_misspelt_variable_fails_loudly(tmp_path: Path) -> None:
    template = tmp_path / "bad.md.j2"
    template.write_text("{{ v.no_such_field }}")
    with pytest.raises(TemplateProblem, match="no_such_field"):
        render(view(), name="user.md.j2", env=environment(template))
