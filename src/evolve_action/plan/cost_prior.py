"""What a run is expected to use before any run of its case was seen: the prior, in one table.

A run the cache has never seen is projected from its own prompt and skill plus this table:
per wire our SDK loop speaks (the provider row's `wire`) and per agent CLI (by its name),
the tokens every call carries whatever the case (our system prompt and tool schemas, or the
CLI's own), the tokens of one answer, and the number of turns. The judge has one row of its
own. Tokens of text are counted as characters ÷ 4, the rule of thumb both vendors give for
English and the loopback fake's own count.

Source (`PRIOR_SOURCE`): the SDK rows are our agent loop's requests measured on the loopback
fake (`bench/projection_bench.py`); the CLI rows are the harness benchmark's tokens per call
(`bench/results/harness-2026-11-24.jsonl`: Claude Code about 17× an SDK run, Codex about
7.5×). The table holds tokens only: what a fresh, a cached and an output token cost is the
price function's (`genai-prices` and the overrides), never a rate written here. The turns
are those of a short task (load the skill, act, answer): the *likely* figure.

A real model on a long task takes more turns and writes more, so a run never seen is also
given a range, between two behaviours of the agent (`LOW`, `HIGH`): at least one turn of a
few words; at most `HIGH.turns` turns (fewer under a lower turn cap) of long answers, each
turn adding its answer and a long tool result to the conversation every later turn re-reads.
The ends were set on a spread of scripted agents (few/typical/many turns, short/long
answers, `tests/fakes/behaviours.py`) so that each one's cost falls inside;
`bench/projection_bench.py` reports how often it does. The cache's records of the case
replace the prior after its first run, which is why a second push is projected much more
closely than a first.
"""

from __future__ import annotations

from dataclasses import dataclass

from evolve_action.model.provider_table import PROVIDERS

PRIOR_AS_OF = "2026-11-25"
PRIOR_SOURCE = (
    "bench/projection_bench.py (SDK agent loop on the loopback fake) and"
    " bench/results/harness-2026-11-24.jsonl (CLI harnesses)"
)
CHARS_PER_TOKEN = 4


@dataclass(frozen=True, slots=True)
class Prior:
    """One provider on one harness."""

    overhead_tokens: int  # carried by every call: system prompt, tool schemas
    message_tokens: int  # fresh input of every call besides the prompt (envelope, listing)
    output_tokens: int  # one answer of the agent (a tool call, or the final text)
    history_tokens: int  # what each turn adds to the conversation (call + tool result)
    turns: int  # calls per run
    # The share of the overhead read from the provider's prompt cache (at its rate); the rest
    # is paid as plain input. Our SDK loop's prefix is stable, so it is read every call after
    # the job's first (which the projection leaves out); the CLIs change part of theirs.
    cached_share: float


@dataclass(frozen=True, slots=True)
class JudgePrior:
    overhead_tokens: int  # the judge's instructions and answer format
    transcript_tokens: int  # the summary of the run it reads, besides the case's own text
    output_tokens: int  # its verdict per item, with evidence


# Our SDK agent loop, by the wire its adapter speaks (`model/provider_table.py`'s `wire`): a
# provider row that reuses a wire (an OpenAI-compatible API) sends the same requests.
SDK_PRIORS: dict[str, Prior] = {
    "anthropic": Prior(1160, 75, 8, 40, 3, 1.0),
    "openai": Prior(1160, 75, 8, 40, 3, 1.0),
}


def _cli_share(fresh: int, read: int, write: int) -> float:
    """The share of a CLI's input tokens read from the prompt cache, from the harness
    benchmark's tokens per run; what a cached token costs is the price function's."""
    return round(read / (fresh + read + write), 2)


# The agent CLIs, by the harness's name (`execute/harness/registry.py`, which
# `pipeline/cost_plan.py` asks for the CLI that runs a model's provider). Harness benchmark
# tokens per run (fresh, cache read, cache write): Claude Code 12,758 / 77,493 / 4,079 over 4
# calls; Codex 14,625 / 26,601 / 0; Gemini CLI 6,026 / 45,456 / 0
# (bench/results/harness-2026-11-28.jsonl, about 12,900 tokens a call). Copilot CLI and
# OpenCode from docs/harness.md's end-to-end figures (tokens per run over 3 calls, of which
# cache reads): Copilot 40,059 / 24,390, OpenCode 26,359 / 23,088.
CLI_PRIORS: dict[str, Prior] = {
    "claude": Prior(23000, 75, 8, 40, 3, _cli_share(12758, 77493, 4079)),
    "codex": Prior(10000, 75, 8, 40, 3, _cli_share(14625, 26601, 0)),
    "gemini": Prior(12900, 75, 8, 40, 3, _cli_share(6026, 45456, 0)),
    "copilot": Prior(13350, 75, 8, 40, 3, _cli_share(40059 - 24390, 24390, 0)),
    "opencode": Prior(8790, 75, 8, 40, 3, _cli_share(26359 - 23088, 23088, 0)),
}
FALLBACK = Prior(1160, 75, 8, 40, 3, 0.0)  # a wire or CLI this table does not know
SDK = "sdk"
JUDGE = JudgePrior(700, 200, 120)


@dataclass(frozen=True, slots=True)
class Behaviour:
    """One way an agent spends a run: the two ends of a projection's range."""

    turns: int  # calls per run (never above the run's turn cap)
    output_tokens: int  # one answer
    history_tokens: int  # what each turn adds to the conversation (the answer, a tool result)
    judge_transcript_tokens: int  # what the judge reads of the run besides the case's text
    judge_output_tokens: int  # the judge's verdicts, with their evidence
    judge_cached: bool  # the judge's instructions read from the provider's prompt cache
    message_tokens: int | None = None  # the envelope of each call; None: the prior's

    def words(self) -> str:
        return (
            f"{self.turns} turn{'s' * (self.turns != 1)} of {self.output_tokens:,}-token answers"
            + (
                f", each adding {self.history_tokens:,} tokens to what later turns re-read"
                if self.history_tokens
                else ""
            )
        )


LOW = Behaviour(1, 1, 0, 50, 40, True, 30)  # answers at once, in a word
HIGH = Behaviour(14, 700, 1300, 1200, 400, False)  # long answers and tool results, many turns

# What `harness: cli` costs against `sdk` in tokens on the same case (bench/README.md): the
# warning a user sees before switching.
CLI_TOKEN_FACTOR = 17


def prior_for(provider: str, harness: str) -> Prior:
    """The prior of `provider`'s models on `harness`: "sdk" (our agent loop, by the provider
    row's wire) or the name of the CLI that runs them."""
    if harness != SDK:
        return CLI_PRIORS.get(harness, FALLBACK)
    row = PROVIDERS.get(provider)
    return SDK_PRIORS.get(row.wire, FALLBACK) if row is not None else FALLBACK


def text_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
