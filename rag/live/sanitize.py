"""Third-party text as inert data: markup and control characters stripped, length capped. Pure."""

from __future__ import annotations

import html
import re
import unicodedata
from typing import TypeVar

from pydantic import BaseModel

_TAG = re.compile(r"<[^>]{0,500}>")
_SPACE = re.compile(r"\s+")
# Fields that carry provider-written prose (names and descriptions), not identifiers or codes.
PROSE_FIELDS = ("name", "description", "room_description", "cancellation", "place", "city_name")

M = TypeVar("M", bound=BaseModel)


def clean_text(text: str, max_chars: int = 600) -> str:
    """Plain, single-spaced text: no tags, no control or format characters, at most ``max_chars``."""
    text = html.unescape(_TAG.sub(" ", text))
    text = _TAG.sub(" ", text)  # markup that was escaped once
    text = "".join(" " if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c for c in text)
    text = _SPACE.sub(" ", text).strip()
    return text if len(text) <= max_chars else text[: max_chars - 1].rstrip() + "…"


def clean_result(result: M, max_chars: int = 600) -> M:
    """A copy of a tool result whose prose fields are cleaned."""
    updates = {
        f: clean_text(v, max_chars) for f in PROSE_FIELDS if isinstance(v := getattr(result, f, None), str)
    }
    return result.model_copy(update=updates) if updates else result
