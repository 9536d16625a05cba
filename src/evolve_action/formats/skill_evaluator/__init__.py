"""skill-evaluator's `evals.json` extension of skill-creator's evals.

`load.py` is the loader `formats.load_file` calls."""
