"""A validator for the part of JSON Schema that harness/results/schema/*.json use (jsonschema is
not a dependency): type, const, enum, required, properties, additionalProperties, items,
minItems, minLength, minimum, exclusiveMinimum, allOf, anyOf and local ``#/$defs/...`` refs.
``errors(instance, schema)`` lists every violation as ``path: what``; [] means valid.  A
keyword this validator does not know is itself an error, so a schema cannot silently use one."""

from __future__ import annotations

from typing import Any

KNOWN = {"$schema", "$id", "title", "description", "$defs", "type", "const", "enum", "required", "properties",
         "additionalProperties", "items", "minItems", "minLength", "minimum", "exclusiveMinimum", "allOf", "anyOf", "$ref"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[name])


def errors(instance: Any, schema: dict, root: dict | None = None, path: str = "$") -> list[str]:
    root = root or schema
    out = [f"{path}: unknown schema keyword {k}" for k in schema if k not in KNOWN]
    if "$ref" in schema:
        target = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        out += errors(instance, target, root, path)
    types = schema.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        if not any(_is(instance, n) for n in names):
            return out + [f"{path}: {instance!r:.60} is not {' or '.join(names)}"]
    if "const" in schema and instance != schema["const"]:
        out.append(f"{path}: {instance!r:.60} is not {schema['const']!r}")
    if "enum" in schema and instance not in schema["enum"]:
        out.append(f"{path}: {instance!r:.60} is not one of {schema['enum']}")
    for sub in schema.get("allOf", ()):
        out += errors(instance, sub, root, path)
    if "anyOf" in schema and all(errors(instance, sub, root, path) for sub in schema["anyOf"]):
        out.append(f"{path}: matches none of anyOf")
    if isinstance(instance, dict):
        out += [f"{path}: missing {k}" for k in schema.get("required", ()) if k not in instance]
        props = schema.get("properties", {})
        for key, value in instance.items():
            if key in props:
                out += errors(value, props[key], root, f"{path}.{key}")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += errors(value, schema["additionalProperties"], root, f"{path}.{key}")
    if isinstance(instance, list):
        if len(instance) < schema.get("minItems", 0):
            out.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, value in enumerate(instance):
                out += errors(value, schema["items"], root, f"{path}[{i}]")
    if isinstance(instance, str) and len(instance) < schema.get("minLength", 0):
        out.append(f"{path}: shorter than {schema['minLength']}")
    if _is(instance, "number"):
        if "minimum" in schema and instance < schema["minimum"]:
            out.append(f"{path}: {instance} < {schema['minimum']}")
        if "exclusiveMinimum" in schema and instance <= schema["exclusiveMinimum"]:
            out.append(f"{path}: {instance} <= {schema['exclusiveMinimum']}")
    return out
