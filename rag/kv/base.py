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

    async def scan_prefix(self, prefix: str) -> dict[str, str]:
        """Every live key starting with ``prefix`` and its value."""
        ...

    async def ping(self) -> bool: ...

    async def close(self) -> None: ...
