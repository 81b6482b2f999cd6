"""The rate limits of each kind of call (chat messages, route requests, tool calls), for one caller
and for one client address.

A call counts against its caller: the user, or the client's address for an anonymous call. Without a
chat secret nothing proves a ``user_id``, so a client could send a new one with every request; there
every call also counts against its address, at ``address_multiple`` times the per-user limit, whatever
user ids the address sends. With a chat secret each user id is proven and many real users may share an
address (an office, a mobile carrier), so the address limit is off (``address_multiple`` 0).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rag.errors import RateLimitedError
from rag.kv.base import KVStore
from rag.limits.window import Clock, RateLimit


@dataclass(frozen=True, slots=True)
class Rate:
    """``limit`` calls per ``window`` seconds (0: no limit); ``what`` names the calls in errors."""

    limit: int
    window: float
    what: str


class CallerLimits:
    """Checks one call of a kind against its caller's limit, then its address's."""

    def __init__(
        self,
        kv: KVStore,
        rates: Mapping[str, Rate],
        *,
        address_multiple: int = 0,
        clock: Clock = time.time,
        on_refused: Callable[[], object] | None = None,
    ) -> None:
        self._callers = {
            kind: RateLimit(kv, r.limit, r.window, scope=kind, what=r.what, clock=clock)
            for kind, r in rates.items()
        }
        self._addresses = {
            kind: RateLimit(
                kv,
                r.limit * address_multiple,
                r.window,
                scope=f"{kind}-address",
                what=f"{r.what} from one address",
                clock=clock,
            )
            for kind, r in rates.items()
        }
        self._on_refused = on_refused

    async def check(self, kind: str, user_id: str | None, address: str | None) -> None:
        """Count one call of ``kind`` by ``user_id`` (None: anonymous) from ``address`` (None: unknown,
        for callers that are not clients, which only the per-user limit counts); ``rate_limited`` (429,
        with the seconds to wait) past either limit. The caller's own limit is checked first, so a user
        over it takes nothing from the others at its address."""
        try:
            if user_id is not None:
                await self._callers[kind].check(f"user:{user_id}")
            elif address is not None:
                await self._callers[kind].check(f"addr:{address}")
            if address is not None:
                await self._addresses[kind].check(address)
        except RateLimitedError:
            if self._on_refused is not None:
                self._on_refused()
            raise
