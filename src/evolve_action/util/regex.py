"""User-supplied regular expressions, compiled by RE2 so no pattern can take exponential time.

Loaders check a pattern when they read it (`regex_problem`); checks and the agent's Grep tool
compile it when they use it (`compile_re2`, cached). Both go through here, so a pattern means
the same thing in every stage.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import re2


class RegexError(ValueError):
    """RE2 rejected a pattern (lookaround, backreferences, bad syntax)."""


@lru_cache(maxsize=4096)
def compile_re2(pattern: str, *, multiline: bool = False, ignore_case: bool = False) -> Any:
    """Compile a user regex with RE2 (linear time), quietly: errors come back as `RegexError`.

    RE2 logs parse errors to stderr through absl unless `log_errors` is off.
    """
    options = re2.Options()
    options.log_errors = False
    prefix = ("(?m)" if multiline else "") + ("(?i)" if ignore_case else "")
    try:
        return re2.compile(prefix + pattern, options)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else "invalid pattern"
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise RegexError(str(detail)) from exc
    except (TypeError, ValueError) as exc:
        raise RegexError(str(exc)) from exc


def regex_problem(pattern: str, *, multiline: bool = False) -> str | None:
    """None when RE2 accepts the pattern, else a message saying why and what to do."""
    try:
        compile_re2(pattern, multiline=multiline)
    except RegexError as exc:
        return f"invalid RE2 pattern {pattern!r}: {exc}; RE2 has no lookaround or backreferences"
    return None
