"""report.html as a browser shows it: headless Chromium opens it from file:// with no network,
the DOM holds the charts and a failed run's transcript, a hostile transcript stays text, and a
screenshot is kept as an artifact of the test run. A control page shows the title check can
see a script that ran."""

from __future__ import annotations

import io
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from evolve_action.model.outcomes import ItemResult, RunResult, Side, Status, ToolCall, Transcript
from evolve_action.publish.history import Point
from evolve_action.publish.html.page import REPORT_FILE, write_html
from evolve_action.publish.render.report import ReportInput
from evolve_action.publish.results.write import ResultsData, write_results
from evolve_action.verdict import lift
from evolve_action.verdict.stats import aggregate
from tests.browser import artifacts_dir, chromium_or_skip, dump_dom, screenshot
from tests.fakes.reports import M1, make_report, make_suite, outcome

HOSTILE = (
    "<script>document.title = 'pwned'</script>"
    "<img src=x onerror=\"document.title='pwned by img'\">"
    "\n**not bold** [a link](https://example.com) `code`\n"
    "bell \x07 escape \x1b[31m red nul \x00 end </pre></details>"
)


class Dom(HTMLParser):
    """What the tests read from a serialized DOM: elements with their attributes, the title,
    and the text inside each element with an id."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.title = ""
        self.text = ""
        self._in_title = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))
        # The document's title, not an SVG shape's tooltip <title>.
        self._in_title = tag == "title" and not any(t == "body" for t, _ in self.elements)

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        self.text += data

    def tags(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        return [
            a for t, a in self.elements if t == tag and all(a.get(k) == v for k, v in attrs.items())
        ]


def _report(hostile: str) -> tuple[ReportInput, list[RunResult]]:
    suite = make_suite("greeter", [("status-file", 24), ("weather", 40)])
    runs = outcome(suite, "status-file", M1, base=(4, 0), head=(0, 4), why=("file ok", "missing"))
    runs += outcome(suite, "weather", M1, base=(3, 1), head=(3, 1))
    runs += [
        RunResult(suite.rel, "status-file", M1, Side.NO_SKILL, i, Status.FAIL, 0.0,
                  items=[ItemResult("a1", "file ok", False, "missing")])
        for i in (1, 2, 3, 4)
    ]  # fmt: skip
    transcript = Transcript(
        final_text=hostile,
        tool_calls=[ToolCall("write_file", '{"path": "<b>status.txt</b>"}', hostile, True)],
        turns=3,
        stop_reason="end_turn",
    )
    runs = [
        replace(r, transcript=transcript) if r.side is Side.HEAD and r.repetition == 1 else r
        for r in runs
    ]
    lifted = lift.measure(runs, [suite])
    # The case's record on main: passing every week until the last, read from the history.
    weeks = [
        Point(f"2026-11-{d:02}T06:00:00Z", f"{d:07}", p, 4) for d, p in ((1, 4), (8, 4), (15, 1))
    ]
    series = {(suite.rel, "status-file", M1): tuple(weeks)}
    return make_report([suite], runs, lift=lifted, main_series=series), runs


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Dom]:
    chromium_or_skip()
    folder = tmp_path_factory.mktemp("report")
    report, _ = _report(HOSTILE)
    path = write_html(folder / "results", report)
    dom = Dom(dump_dom(path, folder / "profile"))
    return path, dom


def test_the_page_shows_one_chart_with_three_sides_and_intervals(page: tuple[Path, Dom]) -> None:
    _, dom = page
    (chart,) = dom.tags("svg", **{"class": "chart"})
    assert "evals/greeter/evals.json" in chart["aria-label"]
    sides = [g["data-side"] for g in dom.tags("g", **{"class": "bar"})]
    # status-file has base, head and no skill; weather base and head
    assert sides == ["base", "head", "no skill", "base", "head"]
    assert len(dom.tags("rect", **{"class": "bar-base"})) == 2
    assert len(dom.tags("line", **{"class": "whisker"})) == 3 * 5  # every side was graded
    assert "4/4 passed · 100% (51%–100%)" in dom.text  # the Wilson interval at 4 of 4
    assert "0/4 passed · 0% (0%–49%)" in dom.text


def test_a_case_recorded_on_main_draws_its_pass_rate_over_time(page: tuple[Path, Dom]) -> None:
    _, dom = page
    (trend,) = dom.tags("g", **{"class": "trend"})  # weather has no record: no line
    assert trend["data-points"] == "3"
    (line,) = dom.tags("polyline", **{"class": "trend-line"})
    ys = [float(xy.split(",")[1]) for xy in line["points"].split()]
    assert ys[0] == ys[1] < ys[2]  # 100%, 100%, then 25% drawn lower
    assert len(dom.tags("circle", **{"class": "trend-dot"})) == 3
    assert "on main: 9/12 passed in 3 jobs" in dom.text
    assert "2026-11-15 · 0000015 · 1/4 passed (25%)" in dom.text


def test_a_failed_run_is_one_click_from_its_chart_row(page: tuple[Path, Dom]) -> None:
    _, dom = page
    links = {a["href"] for a in dom.tags("a")}
    (case,) = dom.tags("details", id="c1-1")
    assert "#c1-1" in links
    assert dom.tags("section", id="c1-1-run-1")  # the case's first failed run, inside it
    assert "Failing checks" in dom.text and "missing" in dom.text
    assert "write_file" in dom.text and "(error)" in dom.text  # its tool call, flagged
    assert "head · run 1 · failed" in dom.text
    assert case is not None


def test_a_hostile_transcript_renders_as_text_and_runs_no_script(page: tuple[Path, Dom]) -> None:
    _, dom = page
    assert dom.title == "evolve report"  # the script would have set "pwned"
    assert dom.tags("script") == [] and dom.tags("img") == [] and dom.tags("strong") == []
    assert "<script>document.title = 'pwned'</script>" in dom.text  # shown, as characters
    assert "**not bold** [a link](https://example.com)" in dom.text  # markdown is not rendered
    assert "bell \\x07 escape \\x1b[31m red nul \\x00 end </pre></details>" in dom.text
    # The markup it tried to close is still whole: every case's details is there.
    assert [d["id"] for d in dom.tags("details")] == ["c1-1", "c1-2"]


def test_the_title_check_sees_a_script_that_runs(tmp_path: Path) -> None:
    # Control: the same browser, a page with a live script, and the title changes.
    chromium_or_skip()
    page = tmp_path / "live.html"
    page.write_text("<title>before</title><script>document.title = 'pwned'</script>")
    assert Dom(dump_dom(page, tmp_path / "profile")).title == "pwned"


def test_a_screenshot_is_kept_as_an_artifact(
    page: tuple[Path, Dom], tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path, _ = page
    target = artifacts_dir(tmp_path_factory) / "report-html.png"
    screenshot(path, tmp_path / "profile", target, width=1100, height=1400)
    print(f"screenshot: {target}")


def test_write_results_writes_report_html_beside_results_json(tmp_path: Path) -> None:
    report, runs = _report("plain")
    data = ResultsData(runs=runs, aggregate=aggregate(runs))
    written = write_results(tmp_path, data, report)
    assert tmp_path / REPORT_FILE in written and written[-1].name == "results.json"
    html = (tmp_path / REPORT_FILE).read_text(encoding="utf-8")
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in html and "<script" not in html  # self-contained, nothing fetched
    assert (
        write_results(tmp_path / "plain", data) and not (tmp_path / "plain" / REPORT_FILE).exists()
    )


def test_the_job_summary_links_report_html_in_the_runs_artifacts(tmp_path: Path) -> None:
    from evolve_action.publish.actions_io import RunnerFiles
    from evolve_action.publish.post import Published, publish_files
    from evolve_action.settings.inputs import Settings

    report, _ = _report("plain")
    settings = Settings(results_dir=tmp_path / "results")
    report = replace(report, settings=settings)
    files = RunnerFiles(str(tmp_path / "out"), str(tmp_path / "summary.md"))
    write_html(settings.results_dir, report)
    publish_files(report, Published("failure", 1), files=files, stream=io.StringIO())
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert (
        "📊 Charts and each failed run's transcript: `report.html` in the results directory"
        in summary
    )
    assert (
        "[this run's artifacts](https://github.com/acme/skills/actions/runs/4242#artifacts)"
        in summary
    )
    # No page written, no link.
    (settings.results_dir / REPORT_FILE).unlink()
    (tmp_path / "summary.md").write_text("")
    publish_files(report, Published("failure", 1), files=files, stream=io.StringIO())
    assert "report.html" not in (tmp_path / "summary.md").read_text(encoding="utf-8")
