"""Response JSON for people, and client JSON parsed within limits: depth, integer size, finite numbers, well-formed text. Pure.

Python's own decoder takes a 5,000-digit integer or 100,000 nested brackets as far as its limits (a
ValueError or a RecursionError deep inside), accepts ``NaN`` and ``Infinity``, decodes ``"\\ud800"``
into a string that cannot be encoded again, and reads bytes that start with a byte order mark, or are
UTF-16, as if they were the JSON text behind it. Every client body and WebSocket frame goes through
``loads`` instead, so each of those is one clear error naming what is wrong.

``largest`` is the other side of the same limits: the most bytes a JSON value valid under a JSON schema
can take, so a body can be refused by its size before it is read.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from aiohttp import web

_SURROGATE = re.compile("[\ud800-\udfff]")
BOM = "\ufeff"


class JSONLimitError(ValueError):
    """The text is JSON but breaks a limit (depth, integer size, non-finite number, lone surrogate)."""


class JSONSyntaxError(ValueError):
    """The text is not JSON."""


@dataclass(frozen=True, slots=True)
class JSONLimits:
    max_depth: int = 32
    max_int_digits: int = 19


def loads(raw: bytes | str, limits: JSONLimits) -> Any:
    """The value of ``raw``, or JSONSyntaxError / JSONLimitError with a message for a person."""

    def parse_int(text: str) -> int:
        if len(text.lstrip("-")) > limits.max_int_digits:
            raise JSONLimitError(f"an integer has more than {limits.max_int_digits} digits")
        return int(text)

    def parse_float(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise JSONLimitError(f"the number {text[:40]} is out of range")
        return value

    def parse_constant(name: str) -> float:
        raise JSONLimitError(f"{name} is not a JSON number")

    try:
        # JSON between systems is UTF-8 without a byte order mark (RFC 8259 section 8.1); bytes given to
        # json.loads would be read as UTF-16 or UTF-32 too, and a BOM skipped.
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise JSONSyntaxError(f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    if text.startswith(BOM):
        raise JSONSyntaxError("it starts with a byte order mark (U+FEFF); send UTF-8 JSON without one")
    try:
        value = json.loads(text, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant)
    except RecursionError:
        raise JSONLimitError(f"nested more than {limits.max_depth} levels deep") from None
    except JSONLimitError:
        raise
    except json.JSONDecodeError as exc:
        raise JSONSyntaxError(str(exc)) from None
    check(value, limits)
    return value


def check(value: Any, limits: JSONLimits) -> None:
    """Raise JSONLimitError when ``value`` nests deeper than allowed or holds a lone surrogate."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _text(item)
        elif isinstance(item, dict | list):
            if depth > limits.max_depth:
                raise JSONLimitError(f"nested more than {limits.max_depth} levels deep")
            if isinstance(item, dict):
                for key, child in item.items():
                    _text(key)
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)


def _text(s: str) -> None:
    if _SURROGATE.search(s):
        raise JSONLimitError(
            "a string holds an unpaired UTF-16 surrogate (\\ud800-\\udfff), which is not text"
        )


# The longest a JSON number whose schema has no bounds of its own is taken to be: a float's shortest
# form is at most 24 ("-1.2345678901234567e-308"); one written with many more digits than a float holds
# counts against the spare room a body limit leaves.
MAX_FLOAT_CHARS = 32
# The length of a string whose schema gives a format rather than a maxLength ("YYYY-MM-DD").
_FORMAT_CHARS = {"date": 10}


def largest(schema: dict[str, Any], limits: JSONLimits, defs: dict[str, Any] | None = None) -> int | None:
    """The most bytes a compact JSON value valid under ``schema`` (a JSON schema, ``$defs`` inside) takes
    when every character of its strings is written as a \\u escape (12 bytes for one outside the BMP),
    or None when the schema does not bound it (a string without maxLength, an array without maxItems,
    an object open to any key). Integers are bounded by ``limits``, as ``loads`` reads them."""
    defs = schema.get("$defs", {}) if defs is None else defs
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return largest(defs[ref.rsplit("/", 1)[-1]], limits, defs)
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        sizes = [largest(option, limits, defs) for option in options]
        return None if None in sizes else max(s for s in sizes if s is not None)
    if "enum" in schema or "const" in schema:
        values = schema.get("enum", [schema.get("const")])
        return max(_escaped(v) for v in values)
    kind = schema.get("type")
    if kind == "string":
        chars = schema.get("maxLength", _FORMAT_CHARS.get(schema.get("format", "")))
        return None if chars is None else 12 * chars + 2
    if kind == "integer":
        bounds = [schema.get(k) for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")]
        given = [len(str(b)) for b in bounds if isinstance(b, int)]
        return max(given) if len(given) == 2 else limits.max_int_digits + 1
    if kind == "number":
        return MAX_FLOAT_CHARS
    if kind == "boolean":
        return 5
    if kind == "null":
        return 4
    if kind == "array":
        items, most = schema.get("items"), schema.get("maxItems")
        item = largest(items, limits, defs) if isinstance(items, dict) and most is not None else None
        return None if item is None or most is None else 2 + most * (item + 1)
    if kind == "object":
        if schema.get("additionalProperties") is not False:
            return None
        total = 2
        for key, value in schema.get("properties", {}).items():
            size = largest(value, limits, defs)
            if size is None:
                return None
            total += _escaped(key) + 1 + size + 1
        return total
    return None


def _escaped(value: Any) -> int:
    if isinstance(value, str):
        return 12 * len(value) + 2
    return len(json.dumps(value))


def dumps(value: Any) -> str:
    """Response JSON as a person reads it in a terminal: characters as themselves ("→", "é"), not
    \\u escapes, and a final newline so a shell prompt starts on its own line."""
    return json.dumps(value, ensure_ascii=False) + "\n"


def json_response(value: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(value, status=status, headers=headers, dumps=dumps)
