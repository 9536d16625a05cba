"""From runs to numbers and one decision: pass rates per case, model and side; exact
one-sided tests corrected over the whole pull request (fixed-N or sequential under
`runs: auto`); and the gate that turns the verdict into a check conclusion and exit code.

In: `RunResult`s and `alpha`. Out: `Aggregate` with its `Verdict`, `Effort`, and `Gate`.
"""
