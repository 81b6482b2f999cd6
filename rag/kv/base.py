"""The key-value seam."""

from __future__ import annotations

from typing import Protocol


class KVStore(Protocol):
    """String keys to string values, each with an optional time to live in seconds."""

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
