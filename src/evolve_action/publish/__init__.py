"""Telling people: the sticky comment and job summary (`render`), the check run or commit
status, annotations, review comments, step outputs, and the results directory
(`results.json`, skill-creator files, JUnit).

In: a `ReportInput` (aggregate, verdict, runs, settings, event). Out: GitHub writes through
PyGithub, files on disk; a failed write is an error of its own, never a lost result.
"""
