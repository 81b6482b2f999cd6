"""Tracked background tasks: nothing runs unowned; shutdown waits briefly, then cancels."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

logger = logging.getLogger(__name__)


class BackgroundTasks:
    def __init__(self, on_failure: Callable[[], None] | None = None) -> None:
        self._on_failure = on_failure
        self._tasks: set[asyncio.Task[Any]] = set()
        self.failures = 0
        self.completed = 0

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            self._failed()
            logger.error("background task %s failed: %s", task.get_name(), exc, exc_info=exc)
        else:
            self.completed += 1

    def record_failure(self, what: str, exc: BaseException) -> None:
        """A failure inside a long-running task that carries on (counted like a failed task)."""
        self._failed()
        logger.error("background work failed: %s: %s", what, exc, exc_info=exc)

    def _failed(self) -> None:
        self.failures += 1
        if self._on_failure is not None:
            self._on_failure()

    @property
    def pending(self) -> int:
        return len(self._tasks)

    async def drain(self) -> None:
        """Wait for everything running now (tests and benchmarks)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self, grace: float) -> None:
        """Let running tasks finish for up to ``grace`` seconds, then cancel the rest and wait for them."""
        if not self._tasks:
            return
        _, pending = await asyncio.wait(list(self._tasks), timeout=grace)
        for task in pending:
            task.cancel()
        if pending:
            logger.warning("cancelled %d background tasks at shutdown", len(pending))
            await asyncio.gather(*pending, return_exceptions=True)
