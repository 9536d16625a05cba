"""The edge: action inputs and `run` flags, the repository's `.evolve.*` config, the event
that started the job, parsed once into frozen values.

In: environment variables, flags, the config file, the event payload. Out: `Settings`,
`RepoConfig`, `Event`, and problems naming the file, line and field when one is wrong.
"""
