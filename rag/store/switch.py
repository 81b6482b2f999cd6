"""The serving store, switchable to a rebuilt generation while requests keep running.

Reads go to the current collection only, so each search sees the old index or the new one, never a mix.
While a new generation is being filled, every write goes to both, so nothing written meanwhile is lost.
The switch promotes the new collection (alias or pointer file), swaps the reference, waits for the
operations still running on the old one, then drops it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, TypeVar

from rag.embedding.base import SparseVector
from rag.store.base import Filter, Hit, Point, SearchMode, VectorStore

logger = logging.getLogger(__name__)
T = TypeVar("T")


class SwitchableStore:
    def __init__(self, store: VectorStore, family: str) -> None:
        self.current = store
        self.family = family
        self.shadow: VectorStore | None = None
        # Writes, and a rebuild's check-then-copy, take turns so a copy never overwrites a newer write.
        self.write_lock = asyncio.Lock()
        self._inflight: dict[int, int] = {}
        self._idle = asyncio.Condition()
        # False from a failed write until a write succeeds: /readyz reports an index that refuses writes.
        self.writable = True

    @asynccontextmanager
    async def _using(self, store: VectorStore) -> Any:
        key = id(store)
        self._inflight[key] = self._inflight.get(key, 0) + 1
        try:
            yield store
        finally:
            self._inflight[key] -= 1
            if not self._inflight[key]:
                del self._inflight[key]
                async with self._idle:
                    self._idle.notify_all()

    async def _read(self, op: Callable[[VectorStore], Awaitable[T]]) -> T:
        async with self._using(self.current) as store:
            return await op(store)

    async def _write(self, op: Callable[[VectorStore], Awaitable[None]]) -> None:
        async with self.write_lock:
            try:
                async with self._using(self.current) as store:
                    await op(store)
            except Exception:
                self.writable = False
                raise
            self.writable = True
            if self.shadow is not None:
                await op(self.shadow)

    # -- VectorStore --------------------------------------------------------------------------------

    async def open(self) -> None:
        await self.current.open()

    async def upsert(self, points: Sequence[Point]) -> None:
        await self._write(lambda s: s.upsert(points))

    async def delete(self, ids: Sequence[str]) -> None:
        await self._write(lambda s: s.delete(ids))

    @asynccontextmanager
    async def bulk(self) -> AsyncIterator[None]:
        """A bulk load on the collection serving now, and on a rebuild's new one if it is being filled."""
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(self.current.bulk())
            if self.shadow is not None:
                await stack.enter_async_context(self.shadow.bulk())
            yield

    async def delete_where(self, flt: Filter) -> None:
        await self._write(lambda s: s.delete_where(flt))

    async def search(
        self,
        dense: list[float],
        sparse: SparseVector | None,
        limit: int,
        flt: Filter | None = None,
        mode: SearchMode = "hybrid",
        fields: Sequence[str] | None = None,
    ) -> list[Hit]:
        return await self._read(lambda s: s.search(dense, sparse, limit, flt, mode, fields))

    async def get(self, ids: Sequence[str]) -> list[Hit]:
        return await self._read(lambda s: s.get(ids))

    async def scroll(
        self, flt: Filter | None, limit: int, offset: str | None = None
    ) -> tuple[list[Hit], str | None]:
        return await self._read(lambda s: s.scroll(flt, limit, offset))

    async def count(self, flt: Filter | None = None) -> int:
        return await self._read(lambda s: s.count(flt))

    async def ping(self) -> bool:
        return await self._read(lambda s: s.ping())

    async def close(self) -> None:
        if self.shadow is not None:
            await self.shadow.close()
        await self.current.close()

    @property
    def physical_name(self) -> str:
        return self.current.physical_name

    async def promote(self, name: str) -> None:
        await self.current.promote(name)

    async def drop(self) -> None:
        await self.current.drop()

    async def drop_siblings(self, family: str) -> list[str]:
        return await self.current.drop_siblings(family)

    # -- rebuilds -----------------------------------------------------------------------------------

    async def begin(self, shadow: VectorStore) -> None:
        """From now on every write also goes to ``shadow``."""
        async with self.write_lock:
            self.shadow = shadow

    async def switch(self) -> None:
        """Serve the shadow from now on; drop the old collection once nothing runs on it."""
        if self.shadow is None:
            raise RuntimeError("no rebuild in progress")
        async with self.write_lock:
            await self.shadow.promote(self.family)
            old, self.current, self.shadow = self.current, self.shadow, None
        async with self._idle:
            await self._idle.wait_for(lambda: id(old) not in self._inflight)
        await old.drop()
        logger.info("switched %s from %s to %s", self.family, old.physical_name, self.current.physical_name)

    async def abort(self) -> None:
        """Stop writing to the shadow and delete it (an interrupted or failed rebuild)."""
        async with self.write_lock:
            shadow, self.shadow = self.shadow, None
        if shadow is not None:
            await shadow.drop()
