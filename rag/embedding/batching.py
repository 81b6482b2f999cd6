"""Batching for the model: texts of like length together, and concurrent single requests in one call.

Micro-batching: while one batch is being computed, new requests queue up; the next batch takes all of
them (up to ``max_batch``). Under load this approaches batch throughput, and a lone request pays no
added wait.

``token_batches`` splits what is embedded into the model's runs: by length, because a model pads every
text of a run to the run's longest (the query model's calls, and a seeding run's window of about a
thousand chunks: in document order a long chunk and a heading's short tail, about 40% of the work is
padding; sorted, about 2%), and within a budget of padded tokens, so a batch of long texts takes as much
memory as a few of them, never the whole batch at the model's window.
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


def token_batches(lengths: Sequence[int], max_texts: int, max_tokens: int) -> list[list[int]]:
    """The indexes of texts of these token ``lengths``, grouped into model runs, shortest first: each
    run holds at most ``max_texts`` texts and, padded to its longest, at most ``max_tokens`` tokens (a
    text longer than that runs alone). Pure."""
    runs: list[list[int]] = []
    run: list[int] = []
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        # Sorted ascending, so the text being added is the run's longest.
        if run and (len(run) >= max_texts or lengths[i] * (len(run) + 1) > max_tokens):
            runs.append(run)
            run = []
        run.append(i)
    if run:
        runs.append(run)
    return runs


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
