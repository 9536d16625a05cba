"""The types every stage shares: the normalized eval model and what running produces.

In: nothing; this is the vocabulary. Out: `Suite`, `Case`, `Item`, `Check`, `LoadResult`,
`Problem` (`evals`); `Transcript`, `RunResult`, `ItemResult`, `Usage` (`outcomes`); a run's
JSON record (`records`), and clauditor's named value formats that loaders and checks share.
"""
