"""Small utilities every stage may use, knowing nothing of evals: RE2 compilation of
user-supplied regexes, path globs, byte-budget text cuts, atomic file writes, and the
process's garbage-collector settings around start-up.

In: strings, paths. Out: compiled patterns, matches, files on disk. Imports nothing of ours.
"""
