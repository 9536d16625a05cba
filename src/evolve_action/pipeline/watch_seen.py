"""What watch reports besides time: the snapshot each model said it was, the CLI, the price.

The snapshot is the `model` field of a provider's answer: an alias such as
`claude-sonnet-4-6` is served by a dated snapshot the provider may swap without notice, and
each answer names the one that served it. The adapters keep it (`ChatResponse.model`), the
agent loop (or, under a CLI harness, the credential proxy) puts it on the run's transcript
(`Transcript.served_by`), and watch reads it from its own runs: no extra request, and never a
snapshot other than the one the runs saw. A model none of whose runs said (every call
errored) has an unknown snapshot (""),
which is never counted as a change: an outage must not look like a new model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from evolve_action import __version__
from evolve_action.model.outcomes import RunResult, Usage
from evolve_action.pipeline.pricing import Prices
from evolve_action.settings.inputs import Harness, Settings


def served_snapshots(results: Sequence[RunResult], models: Sequence[str]) -> dict[str, str]:
    """Each model's snapshot as its runs' answers reported it; "" where none said. Answers
    from two snapshots (a swap during the run) are both named, the most frequent first."""
    seen: dict[str, Counter[str]] = {model: Counter() for model in models}
    for run in results:
        if run.transcript.served_by and run.model in seen:
            seen[run.model][run.transcript.served_by] += 1
    return {
        model: " + ".join(name for name, _ in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))
        for model, c in seen.items()
    }


def cli_version(settings: Settings, environ: Mapping[str, str]) -> str:
    """The tool's version, and under `harness: cli` each agent CLI's (the one on PATH, else
    the pinned one the job installs)."""
    words = [f"evolve-action {__version__}"]
    if settings.harness is Harness.CLI:
        from evolve_action.execute.harness.install import clis, on_path, pinned_version

        for spec in clis().values():
            found = on_path(spec, environ)
            words.append(f"{spec.name} {found.version if found else pinned_version(spec)}")
    return ", ".join(words)


def price_words(models: Sequence[str], prices: Prices) -> dict[str, str]:
    """Each model's price per million tokens in and out, as the report would charge it."""
    out = {}
    for model in models:
        inp = prices.cost(model, Usage(1_000_000, 0, 0, 0))
        outp = prices.cost(model, Usage(0, 1_000_000, 0, 0))
        out[model] = "unknown" if inp is None or outp is None else f"${inp:g} in, ${outp:g} out"
    return out


def changes(before: Mapping[str, str], after: Mapping[str, str], what: str) -> list[str]:
    """ "model X: snapshot A → B" for each model whose known value moved."""
    out = []
    for model, now in sorted(after.items()):
        then = before.get(model, "")
        if then and now and then != now:
            out.append(f"{model}: {what} {then} → {now}")
    return out
