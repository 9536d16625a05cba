"""tessl scenarios: `task.md` plus a weighted `criteria.json` checklist.

`load.py` is the loader `formats.load_file` calls."""
