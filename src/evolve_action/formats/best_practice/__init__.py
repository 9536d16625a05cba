"""Anthropic's skill-authoring best-practice evaluations: JSON files in a skill's `evals/` or
`evaluations/` folder, each one case (`{skills, query, files, expected_behavior}`), a list of
them, or `{name, grading, scenarios: [...]}`; each expected behaviour is a judge item."""
