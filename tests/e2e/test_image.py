"""The action's image, built and started as GitHub starts it, holds against the attacks of
issue 12 and still posts its comment: `scripts/image_check.py` (both bubblewrap variants and
the unconfined control). `harness: cli` works in it at both levels, with the real CLIs in
the cache directory under /github (variants `unusable-cli`, `usable-cli`). It needs root,
podman and a base image or mmdebstrap, the CLI test also the pinned CLIs in .cache/clis;
without them it skips, saying which is missing.
"""

from __future__ import annotations

import pytest

from scripts import image_check


@pytest.mark.slow
@pytest.mark.timeout(3600)  # the first build also makes the base stand-in (a few minutes)
def test_the_image_holds_as_github_runs_it() -> None:
    reason = image_check.why_skip()
    if reason is not None:
        pytest.skip(reason)
    problems = image_check.check()
    assert problems == [], "\n\n".join(problems)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_harness_cli_runs_both_clis_from_the_cache_under_github_at_either_level() -> None:
    reason = image_check.why_skip() or image_check.cli_skip()
    if reason is not None:
        pytest.skip(reason)
    problems = image_check.check(image_check.CLI_VARIANTS)
    assert problems == [], "\n\n".join(problems)
