"""One repository of the corpus, as `make_manifest.py` lists it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Repo:
    repo: str
    conventions: tuple[str, ...]
    globs: tuple[str, ...]
    exclude: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()  # files a suite file reads (tasks, scenarios), not suites
    note: str = ""
    source: str = "snapshot"
    directory: str = ""
    file_commits: dict[str, str] = field(default_factory=dict)
    split: str = ""  # fixed side for repositories added after the draw (`build2`)

    @property
    def dir(self) -> str:
        return self.directory or self.repo.replace("/", "+")
