"""An answer's life on the server, without a network: cancel, follow, and saves a cancel cannot cut."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import AsyncIterator
from typing import Any

import pytest

from rag.chat.answers import AnswerBook, finish


async def _words(gate: asyncio.Event, words: list[str]) -> AsyncIterator[dict[str, Any]]:
    for i, w in enumerate(words):
        if i == 1:
            await gate.wait()  # the answer is "being written" until the test lets it go on
        yield {"type": "response", "text": w, "chunk": True}
    yield {"type": "response", "text": "".join(words), "complete": True, "sources": [], "tool_calls": []}


async def test_a_follower_who_comes_late_gets_everything_so_far_then_the_rest() -> None:
    gate = asyncio.Event()
    book = AnswerBook(keep_seconds=60)
    run = book.start("u", "a1", _words(gate, ["Lis", "bon ", "is ", "hilly."]))
    first = run.follow()
    assert (await anext(first))["text"] == "Lis"
    late = run.follow(replay=True)
    assert await anext(late) == {"type": "response", "id": "a1", "chunk": True, "text": "Lis", "replay": True}
    gate.set()
    rest = [f async for f in late]
    assert "".join(f["text"] for f in rest if f.get("chunk")) == "bon is hilly."
    assert rest[-1]["complete"] and rest[-1]["text"] == "Lisbon is hilly."
    # once it is finished, a follower gets the frame that ended it, marked as sent again
    again = [f async for f in run.follow(replay=True)]
    assert len(again) == 1 and again[0]["complete"] and again[0]["redelivered"] is True
    assert not run.cancel()  # nothing to cancel any more
    await book.close()


async def test_cancels_stop_the_answer_once_and_say_what_was_sent() -> None:
    gate = asyncio.Event()
    book = AnswerBook()
    run = book.start("u", "a2", _words(gate, ["Tokyo ", "is ", "big."]))
    follower = run.follow()
    assert (await anext(follower))["text"] == "Tokyo "
    assert all(run.cancel() for _ in range(5))  # many cancels are one
    frames = [f async for f in follower]
    assert frames == [{"type": "cancelled", "text": "Tokyo ", "id": "a2"}]
    assert book.get("u", "a2") is run and book.get("u", "other") is None
    await book.close()


async def test_a_finished_answer_is_let_go_after_its_keep_time() -> None:
    """Nothing of an answer outlives its keep time: a soak of many answers must not grow the process."""
    gate = asyncio.Event()
    gate.set()
    book = AnswerBook(keep_seconds=0.01)
    runs = [book.start("u", f"k{i}", _words(gate, ["Rome ", "is ", "old."])) for i in range(50)]
    again = book.start("u", "k0", _words(gate, ["Again."]))  # the same id answered twice
    refs = [weakref.ref(r) for r in runs]
    for r in [*runs, again]:
        await r.task
    del runs, r, again
    # Every drop timer was set by now, for at most 0.01 s ahead; the loop fires timers in deadline order.
    after = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_later(0.02, after.set_result, None)
    await after
    assert not any(book.get("u", f"k{i}") for i in range(50))
    gc.collect()
    assert [ref for ref in refs if ref() is not None] == []
    assert not book._forget
    await book.close()


async def test_a_save_is_never_cut_by_a_cancel() -> None:
    saved: list[str] = []
    started = asyncio.Event()

    async def save(what: str) -> None:
        started.set()
        await asyncio.sleep(0.05)  # a KV write in flight
        saved.append(what)

    async def answer(complete: bool) -> str:
        await finish(save("complete" if complete else "stopped"), complete=complete)
        return "delivered"

    # a complete answer being saved is past cancelling: it is saved and delivered
    task = asyncio.create_task(answer(True))
    await started.wait()
    task.cancel()
    task.cancel()
    assert await task == "delivered" and saved == ["complete"]
    # a stopped answer's save also ends; the cancel then ends the answer
    started.clear()
    task = asyncio.create_task(answer(False))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert saved == ["complete", "stopped"]
