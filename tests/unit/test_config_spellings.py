"""`.evolve.yaml` takes the inputs' hyphenated spellings too: `max-cost-usd: 2` is the cap a
workflow's `with:` would set, applied, not a warning and an ignored key."""

from __future__ import annotations

from pathlib import Path

from evolve_action.model.evals import Severity
from evolve_action.settings.config import load_config
from evolve_action.settings.layering import settings_for


def _write(root: Path, text: str) -> Path:
    (root / ".evolve.yaml").write_text(text, encoding="utf-8")
    return root


def test_hyphenated_keys_are_the_inputs_spellings_and_apply(tmp_path: Path) -> None:
    text = "max-cost-usd: 2.5\nfail-on-regression: false\nmin-pass-rate: 0.5\nruns: 3\n"
    result = load_config(_write(tmp_path, text))
    assert result.problems == ()
    assert (result.config.max_cost_usd, result.config.fail_on_regression) == (2.5, False)
    settings, _, problems = settings_for({}, tmp_path)
    assert problems == ()
    assert (settings.max_cost_usd, settings.fail_on_regression, settings.min_pass_rate) == (
        2.5,
        False,
        0.5,
    )
    assert settings.runs == 3


def test_a_bad_hyphenated_value_is_an_error_at_its_line_under_its_spelling(tmp_path: Path) -> None:
    (problem,) = load_config(_write(tmp_path, "runs: 2\nmax-cost-usd: -1\n")).problems
    assert problem.severity is Severity.ERROR
    assert problem.render() == ".evolve.yaml:2: max-cost-usd: must be a positive number, got -1"


def test_one_key_under_both_spellings_is_an_error_naming_both(tmp_path: Path) -> None:
    result = load_config(_write(tmp_path, "max_cost_usd: 1\nmax-cost-usd: 2\n"))
    (problem,) = result.problems
    assert problem.severity is Severity.ERROR
    assert "sets max_cost_usd again (as 'max_cost_usd' too); keep one" in problem.message
    assert result.config.max_cost_usd == 1


def test_an_unknown_hyphenated_key_still_warns(tmp_path: Path) -> None:
    (problem,) = load_config(_write(tmp_path, "max-cost-dollars: 2\n")).problems
    assert problem.severity is Severity.WARNING
    assert "unknown config key 'max-cost-dollars' is ignored" in problem.message
