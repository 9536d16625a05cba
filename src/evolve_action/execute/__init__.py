"""Running one planned run's agent: a fresh workspace with the skill installed, confinement
for every command, the agent loop and its tools, the providers (SDK) or the real agent CLIs
(`harness`), and the scheduler that bounds concurrency.

In: a `RunSpec` and a provider. Out: a `Transcript` (final text, tool calls, usage) and the
workspace it left, or an error kind when the provider or the harness failed.
"""
