"""Check recorded GitHub requests against GitHub's official OpenAPI description.

The description is the npm package `@octokit/openapi` (pinned in `./dev`, which installs it
into `.cache/openapi` when npm is on the machine). Each request the GitHub fake recorded
(method, path, JSON body) must match an operation of `api.github.com.json`: a path template
and method, path parameters of the declared type, and a body valid for the operation's
`requestBody` JSON schema (`$ref`s resolved in the whole document; OpenAPI 3.0's `nullable`
mapped to JSON Schema's `null` type).

    problems = validate(gh.requests)     # [] when every request is valid
    require_description()                # pytest.skip with the reason when it is absent
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from jsonschema import Draft4Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

ROOT = Path(__file__).resolve().parents[2]
VERSION = "23.0.2"  # keep equal to the version `./dev test` installs
PACKAGE = ROOT / ".cache/openapi/node_modules/@octokit/openapi"
DESCRIPTION = PACKAGE / "generated/api.github.com.json"
URI = "urn:github-openapi"
METHODS = ("get", "put", "post", "delete", "patch")


def description_path() -> Path:
    return Path(os.environ.get("EVOLVE_GITHUB_OPENAPI", DESCRIPTION))


def require_description() -> None:
    """Skip the calling test when the description is not installed (no npm on the machine)."""
    path = description_path()
    if not path.is_file():
        pytest.skip(
            f"GitHub's OpenAPI description is absent ({path}); `./dev test` installs"
            f" @octokit/openapi@{VERSION} with npm"
        )


def available() -> bool:
    return description_path().is_file()


@dataclass(frozen=True, slots=True)
class Operation:
    template: str
    method: str
    pattern: re.Pattern[str]
    literals: int  # segments without a parameter: the more, the more specific
    pointer: str  # JSON pointer of the operation in the description
    spec: dict[str, Any]


def _nullable(node: Any) -> Any:
    """OpenAPI 3.0 `nullable: true` → JSON Schema's `null` type, everywhere in the document."""
    if isinstance(node, list):
        return [_nullable(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _nullable(v) for k, v in node.items()}
    if out.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    return out


def _group(name: str) -> str:
    return re.sub(r"\W", "_", name)


def _segment(segment: str) -> str:
    """`{name}` → a named group; the rest of the segment literal (`{base}...{head}` too)."""
    parts = re.split(r"\{([^}]+)\}", segment)
    return "".join(
        f"(?P<{_group(part)}>[^/]+?)" if i % 2 else re.escape(part) for i, part in enumerate(parts)
    )


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


@cache
def _load() -> tuple[dict[str, Any], list[Operation], Registry[Any]]:
    document = _nullable(json.loads(description_path().read_text(encoding="utf-8")))
    operations = []
    for template, item in document["paths"].items():
        segments = template.strip("/").split("/")
        regex = "".join("/" + _segment(s) for s in segments)
        literals = sum("{" not in s for s in segments)
        for method in METHODS:
            if method in item:
                pointer = f"/paths/{_escape(template)}/{method}"
                operations.append(
                    Operation(
                        template, method.upper(), re.compile(regex + "$"), literals, pointer,
                        item[method],
                    )
                )  # fmt: skip
    resource = Resource.from_contents(document, default_specification=DRAFT4)
    registry: Registry[Any] = Registry().with_resource(URI, resource)
    return document, operations, registry


def _resolve_ref(document: dict[str, Any], node: Any) -> Any:
    seen = 0
    while isinstance(node, dict) and "$ref" in node and seen < 20:
        target: Any = document
        for token in str(node["$ref"]).lstrip("#/").split("/"):
            target = target[token.replace("~1", "/").replace("~0", "~")]
        node, seen = target, seen + 1
    return node


def operation_for(method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
    _, operations, _ = _load()
    found = [
        (op, m.groupdict())
        for op in operations
        if op.method == method.upper() and (m := op.pattern.match(path))
    ]
    if not found:
        return None
    found.sort(key=lambda pair: -pair[0].literals)
    return found[0]


def _check_params(op: Operation, params: dict[str, str]) -> list[str]:
    document, _, _ = _load()
    problems = []
    for raw in op.spec.get("parameters", []):
        param = _resolve_ref(document, raw)
        if param.get("in") != "path":
            continue
        value: Any = params.get(_group(param["name"]))
        schema = param.get("schema") or {}
        if schema.get("type") == "integer":
            try:
                value = int(str(value))
            except ValueError:
                problems.append(f"path parameter {param['name']}={value!r} is not an integer")
                continue
        for error in Draft4Validator(schema).iter_errors(value):
            problems.append(f"path parameter {param['name']}: {error.message}")
    return problems


def _check_body(op: Operation, body: Any) -> list[str]:
    document, _, registry = _load()
    request = _resolve_ref(document, op.spec.get("requestBody"))
    if not request:
        return [] if body in (None, {}) else ["the operation takes no request body"]
    if body is None:
        return ["a request body is required"] if request.get("required") else []
    content = (request.get("content") or {}).get("application/json")
    if content is None:
        return ["the operation takes no JSON body"]
    pointer = op.pointer + "/requestBody/content/application~1json/schema"
    if "$ref" in (op.spec.get("requestBody") or {}):
        pointer = str(op.spec["requestBody"]["$ref"]).lstrip("#") + (
            "/content/application~1json/schema"
        )
    schema = {"$ref": f"{URI}#{quote(pointer, safe='/~')}"}
    validator = Draft4Validator(schema, registry=registry)
    return [
        f"body{''.join(f'[{p!r}]' for p in error.absolute_path)}: {error.message[:300]}"
        for error in sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
    ]


def validate(requests: Iterable[tuple[str, str, Any]]) -> list[str]:
    """Every problem of every request, as `METHOD path: problem` lines ([] when all valid)."""
    problems = []
    for method, path, body in requests:
        found = operation_for(method, path)
        if found is None:
            problems.append(f"{method} {path}: no operation of GitHub's REST API matches")
            continue
        op, params = found
        where = f"{method} {path} ({op.spec.get('operationId', op.template)})"
        for problem in _check_params(op, params) + _check_body(op, body):
            problems.append(f"{where}: {problem}")
    return problems


def assert_valid(requests: Iterable[tuple[str, str, Any]]) -> None:
    recorded = list(requests)
    assert recorded, "no GitHub request was recorded"
    problems = validate(recorded)
    assert not problems, "requests GitHub's OpenAPI description rejects:\n" + "\n".join(problems)
