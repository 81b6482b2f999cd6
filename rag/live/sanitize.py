"""Third-party text as inert data: markup and control characters stripped, length capped. Pure.

Every string a provider sent is cleaned, at every depth of a result (a carrier name in a segment of an
itinerary as much as an activity's description), so no field is left out by forgetting to list it.
Codes and links are checked for their format by the result models themselves (connectors/models.py);
a plain http(s) link is kept as it is (unescaping entities would change its query string).

``clean_text`` is connectors/text.py's, the one sanitiser for provider text: the connectors clean the
errors they build with it, this module the results.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from connectors.models import is_safe_link
from connectors.text import clean_text

__all__ = ["clean_result", "clean_text"]

M = TypeVar("M", bound=BaseModel)


def clean_result(result: M, max_chars: int = 600) -> M:
    """A copy of a tool result whose every string, in nested models, lists and dicts too, is cleaned."""
    cleaned = _clean(result, max_chars)
    assert isinstance(cleaned, type(result))
    return cleaned


def _clean(value: Any, max_chars: int) -> Any:
    if isinstance(value, str):
        if is_safe_link(value):
            return value
        cleaned = clean_text(value, max_chars)
        return value if cleaned == value else cleaned
    if isinstance(value, BaseModel):
        updates = {}
        for name in type(value).model_fields:
            old = getattr(value, name)
            new = _clean(old, max_chars)
            if new is not old:
                updates[name] = new
        return value.model_copy(update=updates) if updates else value
    if isinstance(value, list | tuple):
        items = [_clean(v, max_chars) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else type(value)(items)
    if isinstance(value, dict):
        return {_clean(k, max_chars): _clean(v, max_chars) for k, v in value.items()}
    return value
