"""Benchmark: the agent loop and scheduler's overhead against a fake LLM at a fixed latency.

200 single-turn runs through `run_agent` and the scheduler at concurrency 16 on the OpenAI
provider (the real SDK over loopback HTTP). The ideal wall time is ceil(runs / concurrency)
× latency; the ratio measured / ideal is the overhead of our stack (goal ≤ 1.15).

    .venv/bin/python -m bench.agent_bench [--runs 200] [--concurrency 16] [--latency 0.2]

Prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event

from evolve_action.execute.agent import run_agent
from evolve_action.execute.providers.faults import RetryPolicy
from evolve_action.execute.providers.limiter import AdaptiveLimiter
from evolve_action.execute.providers.registry import build_provider
from evolve_action.execute.scheduler import Job, run_jobs
from evolve_action.model.provider import ChatMessage, TextPart, ToolResultPart, ToolSpec
from tests.fakes.llm_server import FakeLLM, Reply, Request, text


def _answer(request: Request) -> Reply:
    return text(f"answer {request.index}")


def _serve(latency: float, port: Connection, stop: Event) -> None:
    with FakeLLM(_answer, latency=latency) as llm:
        port.send(llm.openai_base_url)
        stop.wait()


@contextmanager
def fake_in_subprocess(
    latency: float, serve: Callable[[float, Connection, Event], None] = _serve
) -> Iterator[str]:
    """The fake in its own process: its JSON work must not take our event loop's GIL, as a
    real provider's servers would not. `serve` (module-level, for spawn) runs it there."""
    ctx = multiprocessing.get_context("spawn")
    receive, send = ctx.Pipe(duplex=False)
    stop = ctx.Event()
    server = ctx.Process(target=serve, args=(latency, send, stop), daemon=True)
    server.start()
    try:
        yield receive.recv()
    finally:
        stop.set()
        server.join(10)


class NoTools:
    def specs(self) -> tuple[ToolSpec, ...]:
        return ()

    async def call(self, name: str, arguments: str) -> ToolResultPart:
        return ToolResultPart("", f"no tool {name}", is_error=True)


async def bench(runs: int, concurrency: int, latency: float) -> dict[str, object]:
    with fake_in_subprocess(latency) as base_url:
        limiter = AdaptiveLimiter(concurrency)
        provider = build_provider(
            "openai",
            environ={},
            api_key="bench",
            base_url=base_url,
            policy=RetryPolicy(max_retries=0),
            limiter=limiter,
        )

        def job(i: int) -> Job[object]:
            messages = (ChatMessage("user", (TextPart(f"task {i}"),)),)
            return Job(
                "openai",
                lambda: run_agent(
                    provider=provider,
                    model="gpt-5.4",
                    system="You are a benchmark.",
                    messages=messages,
                    tools=NoTools(),
                    max_turns=1,
                    timeout_s=60,
                ),
            )

        # Warm the connection pool, as a real run's first calls would.
        await run_jobs([job(-i) for i in range(concurrency)], max_concurrency=concurrency)
        started = time.perf_counter()
        outcomes = await run_jobs(
            [job(i) for i in range(runs)],
            max_concurrency=concurrency,
            limiters={"openai": limiter},
        )
        wall = time.perf_counter() - started
        await provider.aclose()
    failed = sum(1 for o in outcomes if not o.ok)
    ideal = math.ceil(runs / concurrency) * latency
    return {
        "bench": "agent_loop",
        "provider": "openai",
        "runs": runs,
        "concurrency": concurrency,
        "latency_s": latency,
        "failed": failed,
        "wall_s": round(wall, 3),
        "ideal_s": round(ideal, 3),
        "ratio": round(wall / ideal, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(bench(args.runs, args.concurrency, args.latency))))


if __name__ == "__main__":
    main()
