"""What to run: the two trees of a change, the suites it touches, the runs to make, and
which of them the cache already holds.

In: `Settings`, the suites loaded from base and head, git. Out: `Sides`, a `Plan` of
`RunSpec`s (suite × case × model × side × repetition), fingerprints, cached `RunResult`s.
"""
