"""agentv's two interpolations: `${{ ENV }}` across the file, and a test's `vars` in its fields.

AgentV fills `${{ NAME }}` from the environment, an unset one as empty. In CI the environment
holds the job's secrets and the file comes from the pull request, so nothing is read from it
here: every `${{ NAME }}` becomes empty, as if unset, and the file gets one warning naming them.

A test's `vars` fill `{{ name }}` and dotted `{{ expected.answer }}` in its criteria, input,
input files and expected output (AgentV 4); AgentV 5 spells them `{{ vars.name }}` and also
fills bare-string assertions. A placeholder that is the whole string takes the variable's
value as it is (a mapping stays a mapping); one inside text takes its JSON text. An unknown
variable stays as written, as AgentV leaves it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from evolve_action.formats.agentv.common import At, Src

ENV = re.compile(r"\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
VAR = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}")
WHOLE_VAR = re.compile(r"^\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}$")
# The fields of a test that AgentV 4 renders with its vars.
VAR_FIELDS = ("criteria", "expected_outcome", "input", "input_files", "expected_output", "turns")
_MAX_DEPTH = 64


def without_env(src: Src, data: Any) -> Any:
    """`data` with every `${{ NAME }}` emptied; one warning lists the names."""
    seen: dict[str, At] = {}
    out = _strip_env(data, (), seen, 0)
    if seen:
        names = ", ".join(sorted(seen))
        first = min(seen.values(), key=lambda at: src.doc.line(*at) or 0)
        src.warn(
            first,
            f"environment variables are not read here ({names}): the pull request's file must"
            " not see the job's environment, so each ${{ ... }} is empty, as AgentV makes an"
            " unset one; write the value into the file",
        )
    return out


def _strip_env(value: Any, at: At, seen: dict[str, At], depth: int) -> Any:
    if depth > _MAX_DEPTH:
        return value
    if isinstance(value, str):
        if "${{" not in value:
            return value
        for name in ENV.findall(value):
            seen.setdefault(name, at)
        return ENV.sub("", value)
    if isinstance(value, list):
        return [_strip_env(v, (*at, i), seen, depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _strip_env(v, (*at, k), seen, depth + 1) for k, v in value.items()}
    return value


def with_vars(row: dict[str, Any], variables: Mapping[str, Any]) -> dict[str, Any]:
    """The test with its vars rendered into the fields AgentV renders."""
    if not variables:
        return row
    scope = {**variables, "vars": dict(variables)}
    out = dict(row)
    for key in VAR_FIELDS:
        if key in out:
            out[key] = fill(out[key], scope)
    if "vars" in out:  # AgentV 5: vars may refer to one another (`{{ vars.expected.answer }}`)
        out["vars"] = fill(out["vars"], scope)
    if isinstance(out.get("assert"), list):  # AgentV 5 fills bare-string assertions too
        out["assert"] = [fill(a, scope) if isinstance(a, str) else a for a in out["assert"]]
    return out


def fill(value: Any, scope: Mapping[str, Any], depth: int = 0) -> Any:
    if depth > _MAX_DEPTH:
        return value
    if isinstance(value, str):
        whole = WHOLE_VAR.match(value)
        if whole:
            found = _lookup(scope, whole.group(1))
            return value if found is None else found
        return VAR.sub(lambda m: _text(_lookup(scope, m.group(1)), m.group(0)), value)
    if isinstance(value, list):
        return [fill(v, scope, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, scope, depth + 1) for k, v in value.items()}
    return value


def _lookup(scope: Mapping[str, Any], expression: str) -> Any:
    current: Any = scope
    for part in expression.split("."):
        if not isinstance(current, dict) or part not in current:
            return None
        current = current[part]
    return current


def _text(value: Any, written: str) -> str:
    if value is None:
        return written
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
