"""Provider bodies into result models: the one place where a misshapen body becomes an error.

A provider can send any JSON: a list or a string where an object belongs, a number where a list belongs,
"NaN" for a price, markup for a currency. Reading a body's items goes through :func:`each`, which
builds every item it can, drops (and logs) the items the result models refuse, and raises
ProviderResponseError when there are items but none could be read, so one odd offer costs that offer,
never the call, and a body of nothing but junk is ``provider_bad_response``, never a 500.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from connectors.errors import ProviderResponseError

logger = logging.getLogger(__name__)

T = TypeVar("T")

# What reading a misshapen body raises: a missing key, a wrong type (``.get`` on a list, iterating a
# number), a bad number or date (pydantic's ValidationError is a ValueError), a huge float to int.
UNREADABLE: tuple[type[Exception], ...] = (
    KeyError,
    IndexError,
    TypeError,
    ValueError,
    AttributeError,
    OverflowError,
)


def obj(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one (for optional nested objects)."""
    return value if isinstance(value, dict) else {}


def text(value: Any) -> str:
    """A required name or id: a non-empty string, or a number as text. Anything else (null, a list, "")
    is ValueError, so ``str(None)`` never becomes an identity: "activity:None" would merge every place."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"expected a name or an id, got {type(value).__name__}")
    out = str(value).strip()
    if not out:
        raise ValueError("expected a name or an id, got an empty string")
    return out


def items(value: Any, provider: str, what: str) -> list[Any]:
    """A list the body must hold; anything else is ProviderResponseError."""
    if not isinstance(value, list):
        raise ProviderResponseError(f"{provider} sent {what} that is not a list")
    return value


def each(raw: Iterable[Any], build: Callable[[Any], Iterable[T]], provider: str, what: str) -> list[T]:
    """Everything ``build`` makes of each raw item; unreadable items are dropped, all of them is an error."""
    out: list[T] = []
    seen = dropped = 0
    for item in raw:
        seen += 1
        try:
            out.extend(build(item))
        except UNREADABLE as exc:
            dropped += 1
            logger.warning("%s: dropped one of the %s we cannot read: %s", provider, what, _short(exc))
    if seen and dropped == seen:
        raise ProviderResponseError(f"{provider} sent {what} we cannot read ({dropped} of {seen})")
    return out


def _short(exc: Exception) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 300 else text[:299] + "…"
