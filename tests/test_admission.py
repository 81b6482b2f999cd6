"""Admission (rag.chat.admission) on its own: slots, a first-come queue, refusals that say when to come
back. Every wait is on an event the test sets; the clock is the test's own where an estimate matters."""

from __future__ import annotations

import asyncio

import pytest

from rag.chat.admission import Admission
from rag.errors import OverloadedError

WAIT = 10.0  # a hang guard, not a timing assertion


class Holder:
    """A caller that takes a slot and keeps it until ``release`` is set."""

    def __init__(self, admission: Admission) -> None:
        self.admitted = asyncio.Event()
        self.release = asyncio.Event()
        self._admission = admission
        self.task = asyncio.create_task(self._hold())

    async def _hold(self) -> None:
        async with self._admission.slot():
            self.admitted.set()
            await self.release.wait()

    async def done(self) -> None:
        self.release.set()
        await asyncio.wait_for(self.task, WAIT)


async def in_queue(admission: Admission, count: int) -> None:
    """Let the callers just started run up to their first wait (they run in the order started), then
    check how many are queued."""
    await asyncio.sleep(0)
    assert admission.waiting == count


async def test_without_waiting_a_caller_past_the_slots_is_refused_at_once() -> None:
    refused: list[int] = []
    admission = Admission(2, 0, on_refused=lambda: refused.append(1))
    a, b = Holder(admission), Holder(admission)
    await asyncio.wait_for(asyncio.gather(a.admitted.wait(), b.admitted.wait()), WAIT)
    with pytest.raises(OverloadedError) as caught:
        async with admission.slot():
            pytest.fail("admitted past the slots")
    assert caught.value.status == 503 and caught.value.code == "overloaded"
    assert caught.value.retry_after >= 1 and refused == [1]
    await a.done()
    c = Holder(admission)  # a freed slot is taken at once
    await asyncio.wait_for(c.admitted.wait(), WAIT)
    await asyncio.gather(b.done(), c.done())
    assert admission.busy == 0 and admission.waiting == 0


async def test_waiters_are_served_first_come_and_slots_are_handed_over() -> None:
    admission = Admission(1, WAIT)
    first = Holder(admission)
    await asyncio.wait_for(first.admitted.wait(), WAIT)
    queued = []
    for k in range(3):  # one after the other, so the queue's order is theirs
        queued.append(Holder(admission))
        await in_queue(admission, k + 1)
    for k, holder in enumerate([first, *queued]):
        await holder.done()
        if k < len(queued):  # the next in line has the slot, and only it
            await asyncio.wait_for(queued[k].admitted.wait(), WAIT)
            assert [h.admitted.is_set() for h in queued] == [i <= k for i in range(len(queued))]
            assert admission.busy == 1
    assert admission.busy == 0 and admission.waiting == 0


async def test_a_caller_is_refused_at_once_when_its_estimated_wait_is_too_long() -> None:
    now = [0.0]
    admission = Admission(1, 5.0, clock=lambda: now[0])
    warm = Holder(admission)
    await asyncio.wait_for(warm.admitted.wait(), WAIT)
    now[0] = 3.0  # a slot is held 3 s
    await warm.done()
    held = Holder(admission)
    await asyncio.wait_for(held.admitted.wait(), WAIT)
    second = Holder(admission)  # waits about 3 s: queued
    await in_queue(admission, 1)
    assert admission.expected_wait() == pytest.approx(6.0)
    with pytest.raises(OverloadedError) as caught:  # would wait about 6 s, over 5: refused now
        async with admission.slot():
            pytest.fail("admitted")
    assert caught.value.retry_after == 6
    assert admission.waiting == 1  # the refused caller never queued
    await held.done()
    await second.done()


async def test_a_queued_caller_whose_turn_does_not_come_in_time_is_refused() -> None:
    admission = Admission(1, 0.05)
    held = Holder(admission)
    await asyncio.wait_for(held.admitted.wait(), WAIT)
    with pytest.raises(OverloadedError):
        async with admission.slot():
            pytest.fail("admitted while the slot is held")
    assert admission.waiting == 0 and admission.busy == 1
    await held.done()
    assert admission.busy == 0


async def test_a_cancelled_waiter_leaves_the_queue_and_takes_no_slot() -> None:
    admission = Admission(1, WAIT)
    held = Holder(admission)
    await asyncio.wait_for(held.admitted.wait(), WAIT)
    gone = Holder(admission)
    await in_queue(admission, 1)
    gone.task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone.task
    assert admission.waiting == 0
    await held.done()
    assert admission.busy == 0
    after = Holder(admission)
    await asyncio.wait_for(after.admitted.wait(), WAIT)
    await after.done()


async def test_zero_slots_is_no_limit() -> None:
    admission = Admission(0, 0)
    holders = [Holder(admission) for _ in range(20)]
    await asyncio.wait_for(asyncio.gather(*(h.admitted.wait() for h in holders)), WAIT)
    await asyncio.gather(*(h.done() for h in holders))


async def test_a_slot_given_back_early_is_given_back_once() -> None:
    admission = Admission(1, 0)
    slot = await admission.acquire()
    assert admission.busy == 1
    slot.release()  # the work it was for is done; its caller goes on waiting on others
    async with admission.slot():  # free for the next caller at once
        slot.release()  # a second release (the caller's own cleanup) frees nothing more
        assert admission.busy == 1
    assert admission.busy == 0
