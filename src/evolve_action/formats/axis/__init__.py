"""Netlify's AXIS (`@netlify/axis`): an `axis.config.json` naming a folder of scenarios, each
a task with a judged checklist, run in variants with and without skills."""
