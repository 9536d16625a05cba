"""Each run's results files, written as the run ends instead of all after the last answer.

A job of N runs leaves 2N small files (`write.py`: a grading.json per run, an
eval_metadata.json per case) in three folders per run. Written after the last answer they
were most of a job's teardown (0.3-0.4 s for 200 runs on the 2-core machine, most of it the
file system's `mkdir`, `open` and `rename`). Written as each run ends, by one thread that
does only the file system's part, they overlap the other runs' waits for their answers.

The end-of-job writer stays the one source of truth. A run the stream wrote every file of,
from the very object and inputs the final writer has, is not built again: a run is not
changed once it has ended (the end-to-end tests check that in every flow), so its texts
would be the same (`Streamed.files_of`; building them again was a quarter of the teardown).
Every other file it builds from the job's final runs and writes only if this stream did not
already write that very text (`Streamed.holds`), then it removes what the stream wrote that
the final set lacks. A result given in another object after it ended, or a folder name the
plan guessed wrong (`armed`: a no-skill arm planned and never run), therefore costs a
rewrite, never a wrong file. A file the stream could not write is left to the final writer,
which reports the failure as it always did.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Container, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from evolve_action.model.evals import Case, Suite
from evolve_action.model.outcomes import RunResult, Side
from evolve_action.plan.planning import RunSpec
from evolve_action.util.files import ResultsWriteError, atomic_write

if TYPE_CHECKING:
    from evolve_action.publish.results.write import Streamed, StreamedRun

log = logging.getLogger(__name__)


class RunFileStream:
    """Writes each ended run's files from a worker thread.

    `add` is called on the event loop as a run ends and only queues the result; the thread
    builds its files' texts and writes them, mostly while the event loop waits for answers,
    so no run in flight waits for it. A result is not changed once it has ended: the final
    writer keeps what was written for that object. `finish` waits for the queue to drain and
    says what was written.
    """

    def __init__(
        self, results_dir: Path, suites: Sequence[Suite], armed: Container[tuple[str, str]]
    ):
        self._results_dir = results_dir
        # The suites the final writer names cases from: head's, then base's over them.
        self._cases: dict[str, dict[str, Case]] = {
            s.rel: {c.id: c for c in s.cases} for s in suites
        }
        self._armed = armed
        self._queue: queue.SimpleQueue[RunResult | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._texts: dict[Path, int] = {}
        self._runs: dict[int, StreamedRun] = {}  # `Streamed.runs`

    @classmethod
    def for_plan(
        cls, results_dir: Path, suites: Sequence[Suite], runs: Iterable[RunSpec]
    ) -> RunFileStream:
        armed = {(r.suite.rel, r.model) for r in runs if r.side is Side.NO_SKILL}
        return cls(results_dir, suites, armed)

    def add(self, spec: RunSpec, run: RunResult) -> None:
        del spec  # the result names its suite, model and case as the final writer reads them
        if self._thread is None:
            self._thread = threading.Thread(target=self._drain, name="evolve-results", daemon=True)
            self._thread.start()
        self._queue.put(run)

    def _drain(self) -> None:
        # Here, not at the top: the stream is made before the first request, which the
        # results writer's imports would delay.
        from evolve_action.publish.results.write import Streamed, StreamedRun, model_dir, run_files

        written = Streamed(self._texts, self._runs)  # a view of what is written so far
        made: set[Path] = set()
        while (run := self._queue.get()) is not None:
            folder = model_dir(self._results_dir, run.suite, run.model)
            case = self._cases.get(run.suite, {}).get(run.case_id)
            armed = (run.suite, run.model) in self._armed
            try:
                files = run_files(folder, run, case, armed)
            except Exception as exc:  # the final writer builds it again and says what is wrong
                log.debug("the files of run %s/%s: %s", run.suite, run.case_id, exc)
                continue
            for path, text in files:
                if path not in self._texts:  # a case's metadata: once for all its runs
                    self._write(path, text, made)
            if all(written.holds(path, text) for path, text in files):
                paths = tuple(path for path, _ in files)
                self._runs[id(run)] = StreamedRun(run, folder, case, armed, paths)

    def _write(self, path: Path, text: str, made: set[Path]) -> None:
        try:
            atomic_write(path, text, made)
        except (ResultsWriteError, OSError) as exc:  # the final writer tries again
            log.debug("writing %s as its run ended failed: %s", path, exc)
            return
        self._texts[path] = hash(text)

    def finish(self) -> Streamed:
        """Wait for the queued files; what was written (safe to read once this returns)."""
        from evolve_action.publish.results.write import Streamed

        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        return Streamed(self._texts, self._runs)


def chained(
    *hooks: Callable[[RunSpec, RunResult], None] | None,
) -> Callable[[RunSpec, RunResult], None]:
    """One `on_done` that calls each of `hooks` given, in order."""
    given = [h for h in hooks if h is not None]

    def on_done(spec: RunSpec, run: RunResult) -> None:
        for hook in given:
            hook(spec, run)

    return on_done
