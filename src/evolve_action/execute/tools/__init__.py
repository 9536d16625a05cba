"""The agent's tools: their specs as the model sees them, and running a call in the
workspace through the sandbox."""
