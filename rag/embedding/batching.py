"""Micro-batching: concurrent single requests are served by one batched call.

While one batch is being computed, new requests queue up; the next batch takes
all of them (up to ``max_batch``). Under load this approaches batch throughput,
and a lone request pays no added wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")


class MicroBatcher(Generic[T, R]):
    def __init__(self, fn: Callable[[list[T]], Awaitable[Sequence[R]]], max_batch: int) -> None:
        self._fn = fn
        self._max_batch = max_batch
        self._pending: list[tuple[T, asyncio.Future[R]]] = []
        self._worker: asyncio.Task[None] | None = None
        self._closed = False
        self.batches = 0

    async def submit(self, item: T) -> R:
        if self._closed:
            raise RuntimeError("micro-batcher is closed")
        fut: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._pending.append((item, fut))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._run(), name="micro-batcher")
        return await fut

    async def _run(self) -> None:
        while self._pending:
            batch = self._pending[: self._max_batch]
            del self._pending[: self._max_batch]
            live = [(item, fut) for item, fut in batch if not fut.done()]
            if not live:
                continue
            self.batches += 1
            try:
                results = await self._fn([item for item, _ in live])
            except Exception as exc:  # every waiter of this batch gets the error
                for _, fut in live:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            for (_, fut), result in zip(live, results, strict=True):
                if not fut.done():
                    fut.set_result(result)

    async def close(self) -> None:
        self._closed = True
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
        for _, fut in self._pending:
            if not fut.done():
                fut.set_exception(RuntimeError("micro-batcher closed"))
        self._pending.clear()
