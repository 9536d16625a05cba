"""waza's `eval.yaml` tasks, graders and trigger tests.

`load.py` is the loader `formats.load_file` calls."""
