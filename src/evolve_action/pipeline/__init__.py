"""Sequencing the stages for one job: settings → plan → execute and grade each run →
verdict → publish, with the cache, the cost budget, `runs: auto` waves and shards.

In: a `Request` (raw inputs, environment, root) and real or fake collaborators, or for
`report` the results files of earlier jobs. Out: the job's `Execution` (every run's result),
the results written and the report published; both ways the report is made by
`report_input.build`.
"""
