"""A comment rendered as GitHub shows it, as an HTML page a browser can measure.

Markdown goes through markdown-it-py (CommonMark with GFM tables and strikethrough; raw HTML
kept, as GitHub keeps `<details>`, `<sub>` and comments; a newline is a line break, as in
GitHub comments). The style is written after GitHub's rules for comment bodies: a content box
of `BOX` pixels, 14 px text at 1.5 line height, tables as blocks no wider than the box that
wrap their cells and scroll only what cannot wrap, code spans that break at spaces. A script
in the page opens every `<details>` and writes what it measured into `#measure` as JSON: the
box's width, and per table its full (scroll) width and the most lines any cell wraps over.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

BOX = 880  # the width of a comment's body on a desktop pull request page
PADDING = 16

STYLE = f"""
body {{ margin: 0; background: #ffffff; }}
.markdown-body {{
  box-sizing: content-box; width: {BOX}px; padding: {PADDING}px;
  font-family: -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
  font-size: 14px; line-height: 1.5; color: #1f2328; overflow-wrap: break-word;
}}
.markdown-body h3 {{ font-size: 1.25em; font-weight: 600; margin: 24px 0 16px; }}
.markdown-body p, .markdown-body ul, .markdown-body blockquote,
.markdown-body table, .markdown-body details {{ margin: 0 0 16px; }}
.markdown-body ul {{ padding-left: 2em; }}
.markdown-body blockquote {{ padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; }}
.markdown-body table {{
  display: block; width: max-content; max-width: 100%; overflow: auto;
  border-spacing: 0; border-collapse: collapse;
}}
.markdown-body th, .markdown-body td {{ padding: 6px 13px; border: 1px solid #d1d9e0; }}
.markdown-body th {{ font-weight: 600; }}
.markdown-body tr:nth-child(2n) {{ background: #f6f8fa; }}
.markdown-body code {{
  padding: .2em .4em; font-size: 85%; white-space: break-spaces; border-radius: 6px;
  background: rgba(129, 139, 152, .12);
  font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, monospace;
}}
.markdown-body sub {{ font-size: 75%; }}
"""

MEASURE = """
document.querySelectorAll("details").forEach((d) => { d.open = true; });
const box = document.querySelector(".markdown-body");
const style = getComputedStyle(box);
const inner = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
const tables = [...box.querySelectorAll("table")].map((table) => {
  let lines = 0, text = "";
  for (const cell of table.querySelectorAll("td, th")) {
    const cs = getComputedStyle(cell);
    const height = cell.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
    const n = Math.round(height / parseFloat(cs.lineHeight));
    if (n > lines) { lines = n; text = cell.closest("tr").textContent.trim().slice(0, 160); }
  }
  const header = table.querySelector("tr").textContent.replace(/\\s+/g, " ").trim();
  return { header, width: table.scrollWidth, lines, tallest_row: text };
});
document.getElementById("measure").textContent = JSON.stringify({
  box: inner, height: document.documentElement.scrollHeight, tables,
});
"""


def to_html(markdown: str) -> str:
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": True, "breaks": True})
    parser.enable(["table", "strikethrough"])
    return parser.render(markdown)


def page(markdown: str) -> str:
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>comment</title>'
        f"<style>{STYLE}</style></head><body>"
        f'<div class="markdown-body">{to_html(markdown)}</div>'
        f'<pre id="measure"></pre><script>{MEASURE}</script></body></html>'
    )


def write_page(markdown: str, path: Path) -> Path:
    path.write_text(page(markdown), encoding="utf-8")
    return path


def measured(dom: str) -> dict[str, Any]:
    """The JSON the page's script wrote into `#measure`, from a dumped DOM."""
    found = re.search(r'<pre id="measure">(.*?)</pre>', dom, re.S)
    assert found and found.group(1), "the page's measuring script did not run"
    result: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return result
