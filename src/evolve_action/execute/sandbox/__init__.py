"""Confinement of untrusted commands and tools: bubblewrap, a pool user, or nothing.

`confine` is the entry: it chooses the level and runs a command there; the other modules
are its parts (ACLs, the pool user's commands, user drop, environment scrubbing, shared
directories, relay Python)."""
