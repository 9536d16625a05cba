"""Gemini CLI: its launch facts (`launch.py`) and its event reader (`events.py`)."""
