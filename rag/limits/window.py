"""One rate limit: at most ``limit`` calls per caller in any ``window`` seconds, counted in the KV store
so that every replica shares one count."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from rag.errors import RateLimitedError
from rag.kv.base import KVStore

Clock = Callable[[], float]


class RateLimit:
    """A sliding window, not a clock minute: the calls of the last ``window`` seconds count, so no burst
    across a minute's edge gets twice the limit. 0: no limit.

    ``scope`` keeps the counts of different kinds of call apart; ``what`` names the calls in the error
    message; ``clock`` is the time in seconds since the epoch (replicas compare their times, so it is
    the wall clock; tests pass their own).
    """

    def __init__(
        self,
        kv: KVStore,
        limit: int,
        window: float = 60,
        *,
        scope: str,
        what: str = "messages",
        clock: Clock = time.time,
    ) -> None:
        self._kv = kv
        self.limit = limit
        self.window = window
        self._prefix = f"slide:{scope}:"
        self._what = what
        self._clock = clock

    async def check(self, caller: str) -> None:
        """Count one call; raise ``rate_limited`` (with the seconds to wait) when the caller already made
        ``limit`` in the window. A refused call is not counted."""
        if self.limit <= 0:
            return
        wait = await self._kv.slide(self._prefix + caller, self._clock(), self.window, self.limit)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise RateLimitedError(
                f"at most {self.limit} {self._what} per {self.window:g} s; try again in {seconds} s",
                retry_after=seconds,
            )
