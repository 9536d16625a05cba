"""Grading a finished run: the deterministic checks (one registered function per kind),
one batched judge call for every judged item, and the format's scoring policy.

In: the case, its `Transcript` and workspace. Out: `ItemResult`s with evidence, the judge's
report and suggestions, and the run's pass/fail and score.
"""
