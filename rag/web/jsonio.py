"""Response JSON for people, and client JSON parsed within limits: depth, integer size, finite numbers, well-formed text. Pure.

Python's own decoder takes a 5,000-digit integer or 100,000 nested brackets as far as its limits (a
ValueError or a RecursionError deep inside), accepts ``NaN`` and ``Infinity``, and decodes ``"\\ud800"``
into a string that cannot be encoded again. Every client body and WebSocket frame goes through ``loads``
instead, so each of those is one clear error naming what is wrong.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from aiohttp import web

_SURROGATE = re.compile("[\ud800-\udfff]")


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
        value = json.loads(raw, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant)
    except RecursionError:
        raise JSONLimitError(f"nested more than {limits.max_depth} levels deep") from None
    except JSONLimitError:
        raise
    except UnicodeDecodeError as exc:
        raise JSONSyntaxError(f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
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


def dumps(value: Any) -> str:
    """Response JSON as a person reads it in a terminal: characters as themselves ("→", "é"), not
    \\u escapes, and a final newline so a shell prompt starts on its own line."""
    return json.dumps(value, ensure_ascii=False) + "\n"


def json_response(value: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(value, status=status, headers=headers, dumps=dumps)
