"""The command line: `evolve-action {run,validate,report,demo}`. Thin: parse the flags,
call the pipeline or the publisher, print, exit with a code.

In: argv and the environment. Out: an exit code (0 pass, 1 regression or invalid evals,
2 bad input or a failure of ours), and what the chosen command prints.
"""
