"""Render `report.html` from a `ReportInput` and write it into the results directory.

Jinja2 with autoescape on, over the one packaged template: every value the page shows goes
through HTML escaping, so a transcript holding `<script>` shows those characters. The page
also carries a Content-Security-Policy that allows no script and no fetch: a second wall,
and the reason the page opens the same with no network.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from evolve_action.publish.html.view import build_page
from evolve_action.publish.render.report import ReportInput
from evolve_action.util.files import atomic_write

if TYPE_CHECKING:
    from jinja2 import Template

REPORT_FILE = "report.html"
TEMPLATE = "report.html.j2"


@functools.cache
def template() -> Template:
    """The page's template, compiled once. Importing Jinja2 (50-70 ms) and compiling the
    template (about as long again) were most of what writing the results cost after the last
    answer, so a job that sends requests has them done while its first request waits for its
    answer (`pipeline/job.py`); a command that sends no request loads Jinja2 only if it renders.
    Two threads asking at once may both compile it; either renders the same page."""
    from jinja2 import DictLoader, Environment, StrictUndefined

    text = (resources.files("evolve_action.publish.html") / TEMPLATE).read_text(encoding="utf-8")
    env = Environment(
        loader=DictLoader({TEMPLATE: text}),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template(TEMPLATE)


def render_html(report: ReportInput) -> str:
    return template().render(p=build_page(report))


def write_html(results_dir: Path, report: ReportInput) -> Path:
    """`results_dir/report.html`, written atomically; returns its path."""
    path = results_dir / REPORT_FILE
    atomic_write(path, render_html(report))
    return path
