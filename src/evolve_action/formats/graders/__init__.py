"""The grader model several formats share: Vally's graders and gates, which skill-validator,
waza, tessl and promptfoo files load into as well (typed readers of their fields, the gates,
the `vally.*` check kinds, and the policy weighing graders against a threshold)."""
