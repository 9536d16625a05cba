"""evolve's own `evals.json` (and skill-creator's) and its `triggers.json` sets.

`load.py` is the loader `formats.load_file` calls."""
