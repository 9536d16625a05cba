"""Our own JSON Schemas compiled into plain Python checks that answer "valid or not", fast.

jsonschema interprets a schema afresh at every node of the document: a results file of 1,800
runs has about 350,000 of them and took seconds to validate, most of `report`'s time. The
schemas we ship use a dozen keywords, so `compile_schema` turns each subschema into one
closure once, and checking a document is then a walk of plain calls.

Only "valid or not" comes out of here; a document that fails is validated again by jsonschema,
which names the first problem. The compiler refuses any keyword it does not implement
(`UnsupportedSchema`), so a schema grown beyond this subset is noticed at once instead of
being checked loosely; the equivalence with jsonschema is tested on mutated documents.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]

# Keywords that only describe: they never change whether a document is valid.
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$defs", "$comment", "title", "description", "default", "examples"}
)


class UnsupportedSchema(ValueError):
    """The schema uses a keyword or a form this compiler does not implement."""


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": _is_number,
    # JSON Schema counts 1.0 as an integer, as jsonschema does.
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
}


def json_equal(one: Any, two: Any) -> bool:
    """Equality as JSON Schema means it for `enum` and `const`: true is not 1, 1 is 1.0."""
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(map(json_equal, one, two))
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(json_equal(one[k], two[k]) for k in one)
    if _is_number(one) and _is_number(two):
        return bool(one == two)
    return type(one) is type(two) and bool(one == two)


def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda _v: True
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(check(v) for check in checks)


class _Compiler:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.defs: Mapping[str, Any] = root.get("$defs", {})
        self.compiled: dict[str, Check] = {}

    def ref(self, target: str) -> Check:
        name = target.removeprefix("#/$defs/")
        if name == target or name not in self.defs:
            raise UnsupportedSchema(f"$ref {target!r}: only #/$defs/<name> is supported")
        table = self.compiled
        # Looked up at check time: a definition may refer to itself, or to one built later.
        return lambda v: table[name](v)

    def build(self, node: Any) -> Check:
        if node is True or node == {}:
            return lambda _v: True
        if node is False:
            return lambda _v: False
        if not isinstance(node, Mapping):
            raise UnsupportedSchema(f"a subschema must be an object or a boolean, not {node!r}")
        checks: list[Check] = []
        for key, value in node.items():
            if key in _ANNOTATIONS or key in ("properties", "additionalProperties"):
                continue
            method = getattr(self, "kw_" + key.lstrip("$"), None)
            if method is None:
                raise UnsupportedSchema(f"keyword {key!r} is not supported")
            checks.append(method(value))
        if "properties" in node or "additionalProperties" in node:
            checks.append(self.object_members(node))
        return _all(checks)

    # --- one method per keyword -----------------------------------------------------------

    def kw_ref(self, target: str) -> Check:
        return self.ref(target)

    def kw_type(self, value: str | list[str]) -> Check:
        names = [value] if isinstance(value, str) else list(value)
        unknown = [n for n in names if n not in _TYPES]
        if unknown:
            raise UnsupportedSchema(f"type {unknown[0]!r} is not a JSON Schema type")
        tests = [_TYPES[n] for n in names]
        return tests[0] if len(tests) == 1 else (lambda v: any(t(v) for t in tests))

    def kw_enum(self, options: list[Any]) -> Check:
        return lambda v: any(json_equal(v, o) for o in options)

    def kw_const(self, expected: Any) -> Check:
        return lambda v: json_equal(v, expected)

    def kw_required(self, names: list[str]) -> Check:
        return lambda v: not isinstance(v, dict) or all(n in v for n in names)

    def kw_items(self, schema: Any) -> Check:
        check = self.build(schema)
        return lambda v: not isinstance(v, list) or all(map(check, v))

    def kw_propertyNames(self, schema: Any) -> Check:
        check = self.build(schema)
        return lambda v: not isinstance(v, dict) or all(map(check, v))

    def kw_anyOf(self, schemas: list[Any]) -> Check:
        checks = [self.build(s) for s in schemas]
        return lambda v: any(check(v) for check in checks)

    def kw_minimum(self, bound: float) -> Check:
        return lambda v: not _is_number(v) or v >= bound

    def kw_maximum(self, bound: float) -> Check:
        return lambda v: not _is_number(v) or v <= bound

    def kw_exclusiveMinimum(self, bound: float) -> Check:
        return lambda v: not _is_number(v) or v > bound

    def kw_exclusiveMaximum(self, bound: float) -> Check:
        return lambda v: not _is_number(v) or v < bound

    def object_members(self, node: Mapping[str, Any]) -> Check:
        """`properties` and `additionalProperties` together: every member is checked once."""
        known = {name: self.build(schema) for name, schema in node.get("properties", {}).items()}
        extra = node.get("additionalProperties", True)
        other = self.build(extra)
        closed = extra is False

        def check(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for name, member in v.items():
                test = known.get(name)
                if test is None:
                    if closed or not other(member):
                        return False
                elif not test(member):
                    return False
            return True

        return check


def compile_schema(schema: Mapping[str, Any]) -> Check:
    """A check equivalent to validating against `schema` (draft 2020-12, our subset)."""
    compiler = _Compiler(schema)
    for name, definition in compiler.defs.items():
        compiler.compiled[name] = compiler.build(definition)
    return compiler.build(schema)
