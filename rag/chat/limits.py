"""Rate limits counted in the KV store, so every replica shares one count: a user's chat messages, and
anyone's route requests and tool calls (rag/web/routes.py)."""

from __future__ import annotations

import time

from rag.errors import RateLimitedError
from rag.kv.base import KVStore


class RateLimit:
    """At most ``limit`` calls per caller in each fixed ``window`` of seconds; 0: no limit.

    ``scope`` keeps the counts of different kinds of call apart (the chat's has none, as it always had);
    ``what`` names the calls in the error message.
    """

    def __init__(
        self, kv: KVStore, limit: int, window: int = 60, *, scope: str = "", what: str = "messages"
    ) -> None:
        self._kv = kv
        self._limit = limit
        self._window = window
        self._prefix = f"rate-{scope}:" if scope else "rate:"
        self._what = what

    async def check(self, caller: str) -> None:
        """Count one call; raise ``rate_limited`` once the caller is past the limit in this window."""
        if self._limit <= 0:
            return
        now = time.time()
        slot = int(now // self._window)
        count = await self._kv.incr(f"{self._prefix}{caller}:{slot}", ttl=self._window * 2)
        if count > self._limit:
            wait = max(1, round(self._window - now % self._window))
            raise RateLimitedError(
                f"at most {self._limit} {self._what} per {self._window} s; try again in {wait} s"
            )
