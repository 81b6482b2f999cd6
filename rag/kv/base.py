"""The key-value seam."""

from __future__ import annotations

from typing import Protocol


class KVStore(Protocol):
    """String keys to string values, each with an optional time to live in seconds."""

    @property
    def replicated(self) -> bool:
        """Whether several service processes share this store (the replicas, on Redis): then only a
        lock kept in the store orders their writers; else one process serves it (a SQLite file beside
        its index) and a lock in that process is enough."""
        ...

    async def open(self) -> None: ...

    async def set_if_absent(self, key: str, value: str, ttl: float | None = None) -> bool:
        """Atomically store ``value`` unless a live value exists; True when this call wrote it."""
        ...

    async def set(self, key: str, value: str, ttl: float | None = None) -> None: ...

    async def get(self, key: str) -> str | None: ...

    async def delete(self, key: str) -> bool:
        """True when a live value was removed."""
        ...

    async def incr(self, key: str, ttl: float) -> int:
        """Add one to a counter and return it; a new (or expired) counter starts at 1 and lives ``ttl``."""
        ...

    async def slide(self, key: str, now: float, window: float, limit: int) -> float:
        """A sliding-window log of hits under ``key``: record one at ``now`` unless ``limit`` hits
        already lie in the ``window`` seconds before it (``(now - window, now]``). 0.0 when recorded,
        else the seconds until the oldest of them leaves the window. Atomic, so callers together
        (replicas, on Redis) never record more than ``limit`` hits in any window. ``now`` is the
        caller's clock; the log expires ``window`` seconds (the store's clock) after its last hit."""
        ...

    async def renew(self, key: str, value: str, ttl: float) -> bool:
        """Give ``key`` a fresh ``ttl`` if it still holds ``value`` (a lock its owner keeps)."""
        ...

    async def delete_if(self, key: str, value: str) -> bool:
        """Delete ``key`` only if it still holds ``value`` (an owner releasing its lock)."""
        ...

    async def scan_prefix(self, prefix: str) -> dict[str, str]:
        """Every live key starting with ``prefix`` and its value."""
        ...

    async def ping(self) -> bool: ...

    async def close(self) -> None: ...
