"""Tool-trajectory assertions, promptfoo's `trajectory:tool-used` and `trajectory:tool-sequence`
as AgentV 5 adopted them: read by the promptfoo and AgentV loaders (`matchers`), graded by
`checks`."""
