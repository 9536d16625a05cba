"""`Execution` has no field-by-field repr: asyncio (3.11) formats the main task's result."""

from __future__ import annotations

from typing import Any, cast

from evolve_action.pipeline.plan_and_run import Execution


def test_execution_repr_does_not_walk_the_runs() -> None:
    class Loud:
        def __repr__(self) -> str:
            raise AssertionError("a run was formatted")

    execution = Execution(
        settings=cast(Any, None),
        models=["openai/m"],
        judge_model="openai/m",
        plan=cast(Any, Loud()),
        results=cast(Any, [Loud()]),
        providers=cast(Any, Loud()),
    )
    assert repr(execution).startswith("<evolve_action.pipeline.plan_and_run.Execution object")
