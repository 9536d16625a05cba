"""dwmkerr's skill-test-action: `skill-tests.yaml` beside a SKILL.md, each test a prompt and
whether the skill should fire, read as trigger cases."""
