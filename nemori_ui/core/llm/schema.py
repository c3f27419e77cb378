"""JSON-schema plumbing for structured output: strict schemas, response_format, reply parsing.

A prompt may also ask for plain text (`FreeText`): no response_format is sent, no schema is
added to the prompt, and the whole reply, stripped, is the value.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

# Keywords OpenAI strict mode rejects; a schema using them is sent with strict False instead.
_UNSTRICT_KEYS = {"patternProperties", "unevaluatedProperties", "propertyNames", "not",
                  "if", "then", "else", "dependentSchemas", "prefixItems", "oneOf"}
_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


class _NotStrict(Exception):
    pass


def schema_name(prompt_name: str) -> str:
    """OpenAI wants the json_schema name to match ^[a-zA-Z0-9_-]{1,64}$."""
    name = re.sub(r"[^a-zA-Z0-9_-]+", "_", prompt_name).strip("_")
    return name[:64] or "response"


class FreeText(BaseModel):
    """A reply asked for in plain text, not JSON: the whole reply is the value."""
    text: str


# what a free-text call keys its cache on, in place of a JSON schema
FREE_TEXT_SCHEMA: dict[str, Any] = {"free_text": True}


@functools.lru_cache(maxsize=256)
def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    return dict(FREE_TEXT_SCHEMA) if model is FreeText else model.model_json_schema()


def is_free_text(schema: dict[str, Any]) -> bool:
    return schema == FREE_TEXT_SCHEMA


@functools.lru_cache(maxsize=256)
def _strict_cached(model_schema_json: str) -> str | None:
    try:
        schema = json.loads(model_schema_json)
        return json.dumps(_strict(schema, root=schema))
    except _NotStrict:
        return None


def strict_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    """A strict-mode-compatible copy of a pydantic schema, or None when it cannot be one.

    Strict mode needs every property required and `additionalProperties: false` on every
    object. Optional fields with defaults become required: the model then states the value
    explicitly, and pydantic still validates it. Free-form dicts cannot be strict.
    """
    if schema.get("type") != "object":
        return None   # strict mode needs an object at the root
    out = _strict_cached(json.dumps(schema))   # key order kept: models answer fields in order
    return json.loads(out) if out is not None else None


def _strict(node: Any, *, root: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_strict(item, root=root) for item in node]
    if not isinstance(node, dict):
        return node
    if _UNSTRICT_KEYS & node.keys():
        raise _NotStrict
    node = dict(node)
    ref = node.get("$ref")
    if ref is not None and len(node) > 1:
        # A $ref with siblings (a description, say) is not accepted: inline the target.
        node.pop("$ref")
        node = {**_resolve(root, ref), **node}
        return _strict(node, root=root)
    node.pop("default", None)   # every field is required in strict mode, a default is moot
    if node.get("type") == "object" or "properties" in node:
        if "properties" not in node or node.get("additionalProperties", False) is not False:
            raise _NotStrict   # free-form mapping (dict[str, X]) has no strict form
        node["additionalProperties"] = False
        props = node.get("properties", {})
        node["properties"] = {k: _strict(v, root=root) for k, v in props.items()}
        node["required"] = list(props)
    for key in ("items", "anyOf", "allOf", "$defs", "definitions"):
        if key not in node:
            continue
        if key in ("$defs", "definitions"):
            node[key] = {k: _strict(v, root=root) for k, v in node[key].items()}
        else:
            node[key] = _strict(node[key], root=root)
    return node


def _resolve(root: dict[str, Any], ref: str) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise _NotStrict
    target: Any = root
    for part in ref[2:].split("/"):
        if not isinstance(target, dict) or part not in target:
            raise _NotStrict
        target = target[part]
    if not isinstance(target, dict):
        raise _NotStrict
    return target


def response_format_for(mode: str, prompt_name: str,
                        schema: dict[str, Any]) -> dict[str, Any] | None:
    if is_free_text(schema):
        return None
    if mode == "json_object":
        return {"type": "json_object"}
    strict = strict_schema(schema)
    return {"type": "json_schema",
            "json_schema": {"name": schema_name(prompt_name),
                            "schema": strict if strict is not None else copy.deepcopy(schema),
                            "strict": strict is not None}}


def schema_instruction(messages: list[dict], schema: dict[str, Any]) -> list[dict]:
    """json_object mode only promises *some* JSON object: the schema goes into the prompt."""
    if is_free_text(schema):
        return [dict(m) for m in messages]
    note = ("Reply with one JSON object only, without prose or code fences, that conforms to "
            "this JSON schema:\n" + json.dumps(schema, ensure_ascii=False))
    out = [dict(m) for m in messages]
    for m in reversed(out):
        if m.get("role") == "system":
            m["content"] = f"{m.get('content') or ''}\n\n{note}".lstrip()
            return out
    return [{"role": "system", "content": note}, *out]


def strip_fences(text: str) -> str:
    match = _FENCE.match(text)
    return match.group(1) if match else text.strip()


def parse_reply(text: str | None, model: type[T]) -> tuple[T | None, str | None]:
    """(value, None) on success, else (None, what was wrong), worded for the repair prompt."""
    if model is FreeText:
        plain = (text or "").strip()
        return (FreeText(text=plain), None) if plain else (None, "the reply was empty")
    body = strip_fences(text or "")
    if not body:
        return None, "the reply was empty"
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        # Chatty local models wrap the object in prose; the outermost braces are worth a try.
        start, end = body.find("{"), body.rfind("}")
        try:
            if start < 0 or end <= start:
                raise exc
            data = json.loads(body[start:end + 1])
        except json.JSONDecodeError:
            return None, f"the reply is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    try:
        return model.model_validate(data), None
    except ValidationError as exc:
        return None, "the JSON does not match the schema: " + describe_validation(exc)


def describe_validation(exc: ValidationError, limit: int = 8) -> str:
    parts = []
    for err in exc.errors()[:limit]:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "(root)"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    more = exc.error_count() - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)
