"""docs/comment.md shows the comment the demo prints today: a test ties the page to the demo."""

from __future__ import annotations

from scripts.comment_doc import BEGIN, END, PAGE, block, comment_of, normalized, with_comment


def test_the_comment_in_the_docs_is_the_demos(demo_printout: str) -> None:
    page = PAGE.read_text(encoding="utf-8")
    fresh = with_comment(page, comment_of(demo_printout))
    assert fresh == page, (
        "docs/comment.md differs from the comment the demo prints: run"
        " `.venv/bin/python -m scripts.comment_doc` and commit the page"
    )


def test_a_changed_comment_is_caught_and_only_the_generated_part_is_replaced() -> None:
    """The control: a page whose comment differs from the demo's is not current."""
    page = f"# Title\n\nprose\n\n{block('old comment')}\n\nmore prose\n"
    fresh = with_comment(page, "new comment")
    assert fresh != page
    assert fresh.startswith("# Title\n\nprose\n\n" + BEGIN) and fresh.endswith(
        END + "\n\nmore prose\n"
    )
    assert "new comment" in fresh and "old comment" not in fresh


def test_what_changes_between_runs_is_normalized() -> None:
    row = "| `a` | m | 1¢ → 1¢ | — | 3k → 3k | 3 → 3 | ⏱ <1s → 2s |"
    assert normalized(row) == "| `a` | m | 1¢ → 1¢ | — | 3k → 3k | 3 → 3 | ⏱ (wall time) |"
    footer = (
        "<sub>💸 $0.58 · 613k tokens · ⏱ 1m 3s · confinement: namespaces (bubblewrap)"
        " · evolve-action 0.1.0</sub>"
    )
    assert normalized(footer) == (
        "<sub>💸 $0.58 · 613k tokens · ⏱ (wall time) · confinement: (this machine's)"
        " · evolve-action (version)</sub>"
    )
