"""What a single process keeps of the conversations it reads and writes (rag.chat.sessions): values by
key, bounded by characters, the least recently used forgotten first."""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class _Bounded(Generic[V]):
    """Values by key, each with its size in characters; the least recently used are forgotten once the
    sizes add up to more than ``chars`` (a value larger than that is not kept at all)."""

    def __init__(self, chars: int) -> None:
        self._chars = chars
        self._held = 0
        self._values: OrderedDict[str, tuple[V, int]] = OrderedDict()

    def _find(self, key: str) -> V | None:
        kept = self._values.get(key)
        if kept is None:
            return None
        self._values.move_to_end(key)
        return kept[0]

    def _keep(self, key: str, value: V, size: int) -> None:
        self.forget(key)
        self._values[key] = (value, size)
        self._held += size
        while self._held > self._chars and self._values:
            _, (_, gone) = self._values.popitem(last=False)
            self._held -= gone

    def forget(self, key: str) -> None:
        kept = self._values.pop(key, None)
        if kept is not None:
            self._held -= kept[1]

    def __len__(self) -> int:
        return len(self._values)


class Remembered(_Bounded[tuple[str | None, float]]):
    """What this process last read or wrote under a key, the least recently used forgotten first once
    they hold more than ``chars`` characters; each is kept no longer than the store keeps it."""

    def get(self, key: str) -> tuple[bool, str | None]:
        """(True, the value, None for none) when remembered, else (False, None)."""
        kept = self._find(key)
        if kept is None:
            return False, None
        if kept[1] <= time.monotonic():
            self.forget(key)
            return False, None
        return True, kept[0]

    def put(self, key: str, value: str | None, ttl: float | None) -> None:
        until = time.monotonic() + ttl if ttl is not None else float("inf")
        self._keep(key, (value, until), len(value or ""))


class Parsed(_Bounded[tuple[str, Any]]):
    """The histories last read, parsed, by their text: one read again unchanged (the next message of the
    conversation, from memory or from Redis) is not parsed again. What it returns is shared: never
    changed by its callers (``numbered`` copies each turn). Bounded by the characters of the texts."""

    def loads(self, key: str, raw: str) -> Any:
        kept = self._find(key)
        if kept is not None and kept[0] == raw:
            return kept[1]
        value = json.loads(raw)
        self._keep(key, (raw, value), len(raw))
        return value
