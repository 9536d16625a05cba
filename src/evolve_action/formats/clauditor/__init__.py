"""clauditor's `*.eval.json` specs: L1 assertions, L2 sections and fields, L3 criteria.

`load.py` is the loader `formats.load_file` calls."""
