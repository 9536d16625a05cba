"""Anthropic's `claude plugin eval` (Claude Code ≥ 2.1.269): `evals/<case>/` holding a
`case.yaml`, a `prompt.md`, or both, and its graders (`graders/*.md`, or `graders:` in
case.yaml), read as one suite of one case, run with and without the plugin's skill."""
