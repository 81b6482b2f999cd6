"""Admission: at most so many chat messages and route requests worked on at once, and a bounded wait.

Past saturation a queue only makes every answer later: 40 users sending at once on two cores waited
7 s for the median answer and 24 s for the slowest. Here a message takes one of ``slots`` slots; when
none is free it queues, first come first served, but only if its wait, estimated from the queue ahead
of it and how long a slot has recently been held, stays within ``max_wait`` seconds. Otherwise it is
refused at once with ``OverloadedError`` (503 ``overloaded``) and a Retry-After of that estimate, and
a message whose estimate proved short is refused when ``max_wait`` is up. ``max_wait`` 0 queues nothing.
A slot is for this process's own work on a message (reading it, embedding, routing, searching): an
answer gives it back before waiting on travel providers, which other messages' work need not queue
behind. No aiohttp here: the chat service holds one ``Admission``, built from settings in rag/web/app.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Callable

from rag.errors import OverloadedError

# Weight of the latest hold in the running mean of how long a slot is held.
HOLD_WEIGHT = 0.2


class Admission:
    """``slots`` at once (0: no limit), each caller waiting at most ``max_wait`` seconds for one."""

    def __init__(
        self,
        slots: int,
        max_wait: float,
        *,
        on_refused: Callable[[], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._slots = slots
        self._max_wait = max_wait
        self._on_refused = on_refused
        self._clock = clock
        self._busy = 0
        self._queue: deque[asyncio.Future[None]] = deque()
        self._hold = 0.0  # running mean of the seconds a slot is held; 0 until one is released

    @property
    def busy(self) -> int:
        """Slots taken now."""
        return self._busy

    @property
    def waiting(self) -> int:
        """Callers queued for a slot now."""
        return len(self._queue)

    def expected_wait(self) -> float:
        """Seconds a caller arriving now would wait for a slot: none while one is free; else, with every
        slot busy, a slot frees about every ``hold / slots`` seconds, and it is served after those queued
        ahead of it."""
        if self._busy < self._slots and not self._queue:
            return 0.0
        return (len(self._queue) + 1) * self._hold / self._slots

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold a slot for the block, or raise OverloadedError (nothing held) when none comes in time."""
        held = await self.acquire()
        try:
            yield
        finally:
            held.release()

    async def acquire(self) -> Slot:
        """A slot, to release once the work it is for is done (earlier than the caller's end, if the
        rest is waiting on others); or OverloadedError when none comes in time."""
        if self._slots <= 0:
            return Slot(None)
        await self._enter()
        return Slot(self)

    def _done(self, held: float) -> None:
        self._hold = held if self._hold == 0.0 else (1 - HOLD_WEIGHT) * self._hold + HOLD_WEIGHT * held
        self._release()

    async def _enter(self) -> None:
        if self._busy < self._slots and not self._queue:
            self._busy += 1
            return
        if self._max_wait <= 0 or self.expected_wait() > self._max_wait:
            raise self._refuse()
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(turn)
        try:
            async with asyncio.timeout(self._max_wait):
                await turn
        except TimeoutError:
            if not (turn.done() and not turn.cancelled()):
                raise self._refuse() from None
            # The slot was handed over just as the time ran out: it is this caller's.
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._release()  # handed a slot, but gone: pass it on
            raise
        finally:
            with contextlib.suppress(ValueError):
                self._queue.remove(turn)

    def _refuse(self) -> OverloadedError:
        if self._on_refused is not None:
            self._on_refused()
        retry = max(1, math.ceil(self.expected_wait()))
        return OverloadedError(
            f"the service is busy ({self._busy} messages being answered, {len(self._queue)} waiting); "
            f"try again in {retry} s",
            retry_after=retry,
        )

    def _release(self) -> None:
        """Hand the slot to the first caller still waiting, or free it."""
        while self._queue:
            turn = self._queue.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self._busy -= 1


class Slot:
    """One caller's slot; ``release`` gives it back (the first call only)."""

    def __init__(self, admission: Admission | None) -> None:
        self._admission = admission
        self._start = admission._clock() if admission is not None else 0.0

    def release(self) -> None:
        if self._admission is not None:
            admission, self._admission = self._admission, None
            admission._done(admission._clock() - self._start)
