"""skill-validator's `eval.yaml` scenarios, read with Vally's checks.

`load.py` is the loader `formats.load_file` calls."""
