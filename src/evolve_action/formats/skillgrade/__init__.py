"""mgechev's skillgrade: an `eval.yaml` beside SKILL.md with `version`, `defaults` and
`tasks[] {instruction, workspace, graders}`; deterministic graders are commands printing a
score, `llm_rubric` graders judged."""
