"""caliper (`caliper-eval`): a `<name>.eval.yaml` beside a SKILL.md whose `tasks` each hold a
prompt, an `expect` for the judge, `activates` (which skill the agent should pick) and an
inline Python `assert`, which is not run here."""
