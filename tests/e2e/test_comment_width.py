"""The demo's comment fits GitHub's width: rendered as GitHub renders it, in headless Chromium
at a 880 px content box, no table is wider than the box and no cell wraps over four lines.

The screenshot is kept under the test's tmp dir, or copied to $EVOLVE_TEST_ARTIFACTS when set
(its path is printed: `pytest -s` shows it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from scripts.comment_doc import comment_of
from tests import browser
from tests.github_page import BOX, PADDING, measured, write_page

pytestmark = browser.needs_chromium
MAX_LINES = 4
WIDTH = BOX + 2 * PADDING


def measure(markdown: str, tmp_path: Path) -> dict[str, object]:
    page = write_page(markdown, tmp_path / "comment.html")
    dom = browser.dump_dom(page, tmp_path / "profile", width=WIDTH)
    return measured(dom)


def test_no_table_of_the_demo_comment_is_wider_than_github_s_box(
    demo_printout: str, tmp_path: Path
) -> None:
    comment = comment_of(demo_printout)
    found = measure(comment, tmp_path)
    assert found["box"] == BOX
    tables = found["tables"]
    assert isinstance(tables, list) and len(tables) >= 5  # overall, regressed, skills, folded
    too_wide = [t for t in tables if t["width"] > BOX]
    assert not too_wide, f"wider than {BOX} px: {too_wide}"
    too_tall = [t for t in tables if t["lines"] > MAX_LINES]
    assert not too_tall, f"cells over {MAX_LINES} lines: {too_tall}"
    height = int(found["height"])  # type: ignore[call-overload]
    shot = browser.screenshot(
        tmp_path / "comment.html",
        tmp_path / "profile",
        tmp_path / "comment-880.png",
        width=WIDTH,
        height=min(height, 16_000),
    )
    assert shot.is_file() and shot.stat().st_size > 10_000
    keep = os.environ.get("EVOLVE_TEST_ARTIFACTS")  # CI may keep it beyond the tmp dir
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shot = Path(shutil.copy(shot, Path(keep) / shot.name))
    print(f"\nthe demo comment at {BOX} px: {shot}")


def test_the_measure_catches_a_table_too_wide_and_a_cell_too_tall(tmp_path: Path) -> None:
    """The control: what the test above rejects, it would see."""
    long = "`" + "x" * 400 + "`"
    tall = " ".join(["word"] * 400)
    markdown = f"| a | b |\n|---|---|\n| {long} | 1 |\n\n| c |\n|---|\n| {tall} |\n"
    found = measure(markdown, tmp_path)
    wide, high = found["tables"]  # type: ignore[misc]
    assert wide["width"] > BOX
    assert high["width"] <= BOX and high["lines"] > MAX_LINES
