"""AgentV's `*.eval.yaml` / `EVAL.yaml` suites, their test files, rubrics and workspaces.

`load.py` is the loader `formats.load_file` calls."""
