"""Render `report.html` from a `ReportInput` and write it into the results directory.

Jinja2 with autoescape on, over the one packaged template: every value the page shows goes
through HTML escaping, so a transcript holding `<script>` shows those characters. The page
also carries a Content-Security-Policy that allows no script and no fetch: a second wall,
and the reason the page opens the same with no network.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from evolve_action.publish.html.view import build_page
from evolve_action.publish.render.report import ReportInput
from evolve_action.util.files import atomic_write

REPORT_FILE = "report.html"
TEMPLATE = "report.html.j2"


def render_html(report: ReportInput) -> str:
    # Jinja2 costs 50-70 ms to import: only a job that writes its results pays for it.
    from jinja2 import DictLoader, Environment, StrictUndefined

    text = (resources.files("evolve_action.publish.html") / TEMPLATE).read_text(encoding="utf-8")
    env = Environment(
        loader=DictLoader({TEMPLATE: text}),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template(TEMPLATE).render(p=build_page(report))


def write_html(results_dir: Path, report: ReportInput) -> Path:
    """`results_dir/report.html`, written atomically; returns its path."""
    path = results_dir / REPORT_FILE
    atomic_write(path, render_html(report))
    return path
