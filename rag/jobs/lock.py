"""A job lock in the KV backend: set-if-absent with a TTL, renewed while held, released by its owner.

Several replicas share one KV store (Redis at scale), so each run happens once. A holder that crashes
stops renewing and its lock expires after the TTL.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid

from rag.kv.base import KVStore

logger = logging.getLogger(__name__)
PREFIX = "lock:job:"


class JobLock:
    def __init__(self, kv: KVStore, name: str, ttl: float) -> None:
        self._kv = kv
        self.key = PREFIX + name
        self._ttl = ttl
        self.owner = uuid.uuid4().hex
        self.lost = False
        self._renewer: asyncio.Task[None] | None = None
        self._holder: asyncio.Task[object] | None = None

    async def acquire(self) -> bool:
        if not await self._kv.set_if_absent(self.key, self.owner, self._ttl):
            return False
        self._holder = asyncio.current_task()
        self._renewer = asyncio.create_task(self._renew(), name=f"renew {self.key}")
        return True

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self._ttl / 3)
            try:
                kept = await self._kv.renew(self.key, self.owner, self._ttl)
            except Exception as exc:  # the KV store is away: keep trying until the TTL runs out
                logger.warning("could not renew %s: %s", self.key, exc)
                continue
            if not kept:
                # Another holder has it now: stop our run rather than run twice (jobs are idempotent).
                self.lost = True
                logger.error("lost %s while running; stopping this run", self.key)
                if self._holder is not None:
                    self._holder.cancel()
                return

    async def release(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
            self._renewer = None
        if not self.lost:
            with contextlib.suppress(Exception):  # unreleased, it expires after the TTL
                await self._kv.delete_if(self.key, self.owner)
