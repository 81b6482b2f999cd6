"""Per-user message rate limit, counted in the KV store so every replica shares one count."""

from __future__ import annotations

import time

from rag.errors import RateLimitedError
from rag.kv.base import KVStore


class RateLimit:
    """At most ``limit`` messages per user in each fixed ``window`` of seconds."""

    def __init__(self, kv: KVStore, limit: int, window: int = 60) -> None:
        self._kv = kv
        self._limit = limit
        self._window = window

    async def check(self, user_id: str) -> None:
        """Count one message; raise ``rate_limited`` once the user is past the limit in this window."""
        if self._limit <= 0:
            return
        now = time.time()
        slot = int(now // self._window)
        count = await self._kv.incr(f"rate:{user_id}:{slot}", ttl=self._window * 2)
        if count > self._limit:
            wait = max(1, round(self._window - now % self._window))
            raise RateLimitedError(
                f"at most {self._limit} messages per {self._window} s; try again in {wait} s"
            )
