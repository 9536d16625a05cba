"""Small utilities every stage may use, knowing nothing of evals: RE2 compilation of
user-supplied regexes, path globs, byte-budget text cuts and escaping for output, atomic
file writes, the limits on what a repository's file may ask of a reader, YAML read within
them (eval documents and SKILL.md front matter), and the process's garbage-collector
settings around start-up.

In: strings, paths. Out: compiled patterns, matches, files on disk. Imports nothing of ours.
"""
