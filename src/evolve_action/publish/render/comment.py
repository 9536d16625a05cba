"""Render the comment and the job summary from a `CommentView`, within GitHub's limits.

Templates are package data, loaded with `StrictUndefined` so a misspelt variable fails a
test instead of printing nothing. A user template (input `template`) runs in Jinja's sandbox
and may `{% extends "comment.md.j2" %}` to override blocks. When the comment is too long,
detail is dropped in a fixed order (failed-assertion rows first, then the suggestions, the
drops that are not significant, then the per-model table); the headline, the regressions and
"too few runs to tell" always stay.
"""

from __future__ import annotations

from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from evolve_action.publish.render.view import CommentView

if TYPE_CHECKING:
    from jinja2 import BaseLoader, Environment

COMMENT_LIMIT = 65_536
SUMMARY_LIMIT = 1024 * 1024
_MARGIN = 512  # GitHub may count bytes for multibyte text; keep clear of the edge


class TemplateProblem(ValueError):
    """A user template failed to load or render; the message says where."""


def _package_templates() -> dict[str, str]:
    folder = resources.files("evolve_action") / "templates"
    return {
        entry.name: entry.read_text(encoding="utf-8")
        for entry in folder.iterdir()
        if entry.name.endswith(".j2")
    }


def environment(user_template: Path | None = None) -> Environment:
    # Jinja2 takes 50-70 ms to import: only a job that renders a comment or summary loads it.
    from jinja2 import ChoiceLoader, DictLoader, Environment, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    loaders: list[BaseLoader] = [DictLoader(_package_templates())]
    cls: type[Environment] = Environment
    if user_template is not None:
        try:
            text = user_template.read_text(encoding="utf-8")
        except OSError as exc:
            raise TemplateProblem(f"cannot read the template {user_template}: {exc}") from exc
        loaders.insert(0, DictLoader({"user.md.j2": text}))
        cls = SandboxedEnvironment
    return cls(
        loader=ChoiceLoader(loaders),
        undefined=StrictUndefined,
        autoescape=False,  # Markdown, not HTML: quoted text is escaped when the view is built
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(
    view: CommentView, *, name: str = "comment.md.j2", env: Environment | None = None
) -> str:
    from jinja2 import TemplateError

    env = env or environment()
    try:
        return env.get_template(name).render(v=view)
    except TemplateError as exc:
        raise TemplateProblem(f"template {name}: {exc}") from exc


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def fit_comment(
    view: CommentView,
    *,
    limit: int = COMMENT_LIMIT,
    env: Environment | None = None,
    name: str = "comment.md.j2",
) -> str:
    """The comment within `limit` bytes, dropping detail in the ranked order."""
    env = env or environment()
    budget = limit - _MARGIN
    text = render(view, name=name, env=env)
    # Failed-assertion rows go first, a half at a time, so as many as fit stay.
    while _size(text) > budget and view.failures:
        keep = len(view.failures) // 2
        view = replace(view, failures=view.failures[:keep])
        if not keep:
            view = view.without("failures")
        text = render(view, name=name, env=env)
    droppable: tuple[str, ...] = ("costs", "suggestions", "cannot_tell", "eval_changes", "drops")
    droppable += ("suites", "unchanged_failures", "improved", "new")
    for part in (*droppable, "removed"):
        if _size(text) <= budget:
            break
        if getattr(view, part):
            view = view.without(part)
            text = render(view, name=name, env=env)
    # Last resort: cap the regressions themselves; the headline still counts them all.
    while _size(text) > budget and len(view.regressions) > 1:
        view = replace(
            view,
            regressions=view.regressions[: len(view.regressions) // 2],
            truncated=tuple(dict.fromkeys((*view.truncated, "some regressed rows"))),
        )
        text = render(view, name=name, env=env)
    return text
