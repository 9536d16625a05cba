"""promptfoo skill configs: agent-SDK providers and their assertions.

`load.py` is the loader `formats.load_file` calls."""
