"""Checks over a run's trajectory (`model/trajectory.py`), shared by every family's tool
assertions: what a call must be (`wants`), called / not called / counts / max turns
(`rules`), strict, in-order and any-order sequences with partial credit (`order`); and
promptfoo's `trajectory:*` assertions as AgentV 5 adopted them (`matchers`, `calls`)."""
