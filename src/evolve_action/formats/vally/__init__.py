"""Vally's `eval.yaml` stimuli, graders and `*.experiment.yaml` skills.

`load.py` is the loader `formats.load_file` calls."""
