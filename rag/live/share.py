"""Identical provider calls share one: while it is in flight, and for a short while after its answer.

A burst of the same search from many users (a popular hotel search, a page everyone reloads) pays the
provider once. Shared are only what the provider answers for the call, never a user's state: each
caller's results are still stored under its own scope (rag.live.service). Calls are identical when
their provider, tool and validated parameters are (the key); one service holds one credential per
provider, and the shared answers live in that service only, so an answer never crosses credentials.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from connectors.tools import ToolCall

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class _Answer:
    call: ToolCall
    until: float


class SharedCalls:
    """Provider calls by key: one in flight per key, and its answer for ``seconds`` afterwards.

    An answer is kept no longer than the provider's terms keep results (``Terms.max_age``), and not at
    all when they forbid storing them (``Terms.store``); a failure is shared only in flight. At most
    ``max_answers`` answers are kept, the oldest dropped first.
    """

    def __init__(self, seconds: float, *, clock: Clock = time.monotonic, max_answers: int = 1024) -> None:
        self._seconds = seconds
        self._clock = clock
        self._max_answers = max_answers
        self._in_flight: dict[str, asyncio.Task[ToolCall]] = {}
        self._answers: dict[str, _Answer] = {}  # oldest first

    @property
    def in_flight(self) -> int:
        """Calls being made now."""
        return len(self._in_flight)

    async def call(self, key: str, fetch: Callable[[], Awaitable[ToolCall]]) -> tuple[ToolCall, bool]:
        """The answer for ``key``: a recent one, the one in flight, or ``fetch()``'s; True when shared
        (this caller did not start the call)."""
        answer = self._answers.get(key)
        if answer is not None:
            if answer.until > self._clock():
                return answer.call, True
            del self._answers[key]
        task = self._in_flight.get(key)
        shared = task is not None
        if task is None:
            task = asyncio.create_task(self._fetch(key, fetch), name=f"provider-call-{key[:40]}")
            self._in_flight[key] = task
            task.add_done_callback(lambda done: self._landed(key, done))
        # shield: a caller that is cancelled stops waiting; the call goes on for the others.
        return await asyncio.shield(task), shared

    async def _fetch(self, key: str, fetch: Callable[[], Awaitable[ToolCall]]) -> ToolCall:
        call = await fetch()
        # Kept before the call leaves the in-flight table: no caller between the two pays again.
        self._keep(key, call)
        return call

    def _keep(self, key: str, call: ToolCall) -> None:
        seconds = self._seconds
        if call.terms.max_age is not None:
            seconds = min(seconds, call.terms.max_age)
        if seconds <= 0 or not call.terms.store:
            return
        now = self._clock()
        self._answers.pop(key, None)
        self._answers[key] = _Answer(call, now + seconds)
        while self._answers:
            oldest = next(iter(self._answers))
            if len(self._answers) <= self._max_answers and self._answers[oldest].until > now:
                break
            del self._answers[oldest]

    def _landed(self, key: str, task: asyncio.Task[ToolCall]) -> None:
        if self._in_flight.get(key) is task:
            del self._in_flight[key]
        if not task.cancelled():
            task.exception()  # retrieved here, so a call every caller gave up on logs no warning
