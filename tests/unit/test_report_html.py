"""report.html without a browser: its size is bounded whatever the transcripts hold, a job
with no run still makes a page, `--base none` draws no base bar, and the interval is
Wilson's."""

from __future__ import annotations

from dataclasses import replace

import pytest

from evolve_action.model.outcomes import Side, Status, ToolCall, Transcript
from evolve_action.publish.html.page import render_html
from evolve_action.publish.html.view import MAX_RUNS_SHOWN, build_page, wilson
from tests.fakes.reports import M1, M2, make_report, make_suite, outcome


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(4, 4)
    assert (round(low, 3), round(high, 6)) == (0.510, 1.0)
    low, high = wilson(0, 10)
    assert (round(low, 6), round(high, 3)) == (0.0, 0.278)
    assert wilson(0, 0) == (0.0, 1.0)


def test_a_huge_transcript_on_many_runs_makes_a_bounded_page() -> None:
    suite = make_suite("big", [(f"c{i}", 10 + i) for i in range(60)])
    runs = [r for i in range(60) for m in (M1, M2) for r in outcome(
        suite, f"c{i}", m, base=(0, 4), head=(0, 4))]  # fmt: skip
    huge = Transcript(
        final_text="x" * 1_000_000,
        tool_calls=[ToolCall("bash", "a" * 100_000, "o" * 1_000_000)] * 500,
    )
    runs = [replace(r, transcript=huge) for r in runs]
    page = build_page(make_report([suite], runs))
    assert page.failed_total == 960
    assert page.failed_shown < MAX_RUNS_SHOWN
    html = render_html(make_report([suite], runs))
    assert len(html) < 12_000_000
    more = page.failed_total - page.failed_shown
    assert f"{more} more failed or errored runs have no transcript on this page" in html
    assert "more characters not shown (results.json has them)" in html
    assert "more tool calls not shown" in html


def test_a_job_with_no_run_makes_a_page_that_says_so() -> None:
    html = render_html(make_report([make_suite("greeter", [("a", 3)])], []))
    assert "No eval ran, so there is nothing to chart." in html


def test_without_a_base_only_head_is_drawn() -> None:
    suite = make_suite("greeter", [("a", 3)])
    runs = outcome(suite, "a", M1, base=None, head=(1, 2))
    page = build_page(make_report([suite], runs, base_sha=None))
    ((row,),) = [c.rows for c in page.charts]
    assert [b.side for b in row.bars] == ["head"]
    assert [r.title for r in row.failed] == ["head · run 2 · failed", "head · run 3 · failed"]


@pytest.mark.parametrize("status", [Status.FAIL, Status.ERROR])
def test_failed_and_errored_runs_both_get_their_transcript(status: Status) -> None:
    suite = make_suite("greeter", [("a", 3)])
    runs = outcome(suite, "a", M1, base=(1, 0), head=(1, 0))
    runs = [replace(runs[-1], status=status, error="boom" if status is Status.ERROR else "")]
    page = build_page(make_report([suite], runs))
    (failed,) = page.charts[0].rows[0].failed
    assert failed.status == ("errored" if status is Status.ERROR else "failed")
    assert runs[0].side is Side.HEAD


def test_hostile_names_paths_and_models_are_escaped_everywhere() -> None:
    evil = "<script>alert(1)</script>\"'&"
    suite = make_suite("greeter", [(evil, 3)], rel=f"evals/{evil}/evals.json")
    runs = outcome(suite, evil, f"anthropic/{evil}", base=(1, 1), head=(0, 2), why=(evil, evil))
    html = render_html(make_report([suite], runs, notices=(evil,)))
    assert "<script" not in html and "alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&#39;&amp;" in html


def test_a_case_with_a_history_on_main_gets_its_pass_rate_over_time() -> None:
    from evolve_action.publish.history import Point

    suite = make_suite("greeter", [("hello", 3), ("bye", 9)])
    runs = [
        *outcome(suite, "hello", M1, base=(4, 0), head=(0, 4)),
        *outcome(suite, "bye", M1, base=(4, 0), head=(4, 0)),
    ]
    series = (
        Point("2026-11-01T00:00:00Z", "a" * 40, 6, 6),
        Point("2026-11-08T00:00:00Z", "b" * 40, 3, 6),
        Point("2026-11-15T00:00:00Z", "<c>" * 13, 0, 6),
    )
    report = make_report([suite], runs, main_series={(suite.rel, "hello", M1): series})

    page = build_page(report)
    (chart,) = page.charts
    hello, bye = sorted(chart.rows, key=lambda r: r.name != "hello")
    assert bye.trend is None  # no recorded run: nothing drawn, no room taken
    assert hello.trend is not None
    assert [d.y for d in hello.trend.dots] == [0.0, hello.trend.height / 2, hello.trend.height]
    assert [d.x for d in hello.trend.dots] == [0.0, page.plot_w / 2, page.plot_w]
    assert hello.trend.text == "on main: 9/18 passed in 3 jobs"
    # The row below starts past the trend's band.
    lower, upper = max(chart.rows, key=lambda r: r.y), min(chart.rows, key=lambda r: r.y)
    assert lower.y > upper.y and chart.height > lower.y

    html = render_html(report)
    assert html.count('class="trend-dot"') == 3 and 'data-points="3"' in html
    assert "2026-11-08 · bbbbbbb · 3/6 passed (50%)" in html
    assert "<c>" not in html  # a history line is untrusted: escaped like the rest
