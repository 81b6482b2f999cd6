"""Answers being written, owned by the service rather than by the connection that asked.

A WebSocket that drops does not stop its answer: the answer finishes (the chat's deadline bounds it) and
is saved, and a new connection can follow it again (``resume``): first everything written so far as one
piece, then the rest as it comes. A ``cancel`` stops it on the server; the chat saves what was said as a
stopped turn. Finished answers stay here for ``keep_seconds`` so a reconnect moments later finds them;
after that the conversation's history has them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable

from rag.chat.events import Frame, WsCancelled, WsChunk
from rag.errors import WayfarerError, error_json

logger = logging.getLogger(__name__)


class Run:
    """One answer being written: its frames so far, as sent, and whoever follows them."""

    def __init__(self, answer_id: str, frames: AsyncIterator[Frame]) -> None:
        self.id = answer_id
        self.frames: list[Frame] = []
        self.finished = False
        self._cancel_requested = False
        self._begun = False
        self._changed = asyncio.Event()
        self.task = asyncio.create_task(self._drive(frames), name=f"chat-answer-{answer_id}")

    @property
    def written(self) -> str:
        return "".join(f["text"] for f in self.frames if f.get("chunk"))

    def cancel(self) -> bool:
        """Ask the answer to stop; False when it has already finished. Asking twice is asking once."""
        if self.finished:
            return False
        if not self._cancel_requested:
            self._cancel_requested = True
            if self._begun:  # else _drive stops it as soon as it has begun
                self.task.cancel()
        return True

    async def follow(self, replay: bool = False) -> AsyncIterator[Frame]:
        """The frames from now on; with ``replay``, what was written so far first, as one piece."""
        seen = 0
        if replay and self.finished:  # the frame that ended it, as a saved answer is re-delivered
            last = self.frames[-1]
            yield {**last, "redelivered": True} if last.get("complete") else last
            return
        if replay:
            seen = len(self.frames)
            if self.written:
                yield WsChunk(type="response", id=self.id, text=self.written, chunk=True, replay=True).frame()
            elif self.frames and self.frames[-1].get("type") == "progress":
                yield self.frames[-1]  # not writing yet: what it is doing
        while True:
            changed = self._changed
            while seen < len(self.frames):
                seen += 1
                yield self.frames[seen - 1]
            if self.finished:
                return
            await changed.wait()

    def _push(self, frame: Frame) -> None:
        self.frames.append({**frame, "id": self.id})
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def _drive(self, frames: AsyncIterator[Frame]) -> None:
        self._begun = True
        if self._cancel_requested:
            # Stopped before it began (a cancel right behind its message). A task cancelled before its
            # first step never runs at all: the answer would neither save the turn nor say "cancelled",
            # and its followers would wait for ever. Cancelled from inside, it stops at its first wait,
            # where the answer saves the turn as stopped.
            self.task.cancel()
        try:
            async for frame in frames:
                self._push(frame)
        except asyncio.CancelledError:
            self._push(WsCancelled(type="cancelled", id=self.id, text=self.written).frame())
        except WayfarerError as exc:
            self._push({"type": "error", **error_json(exc)})
        except Exception:
            logger.exception("chat answer %s failed", self.id)
            self._push({"type": "error", "error": {"code": "internal_error", "message": "internal error"}})
        finally:
            self.finished = True
            self._changed.set()


class AnswerBook:
    """The answers this process is writing, by conversation (its key, rag.chat.sessions) and answer id."""

    def __init__(self, keep_seconds: float = 120.0) -> None:
        self._keep = keep_seconds
        self._runs: dict[tuple[str, str], Run] = {}
        # The timer that drops each finished answer. A fired timer leaves this map: a handle kept here
        # would hold its Run (frames, task, events) for the life of the process.
        self._forget: dict[Run, asyncio.TimerHandle] = {}

    def start(self, conversation: str, answer_id: str, frames: AsyncIterator[Frame]) -> Run:
        run = Run(answer_id, frames)
        key = (conversation, answer_id)
        self._runs[key] = run

        def finished(_: asyncio.Task[None]) -> None:
            self._forget[run] = asyncio.get_running_loop().call_later(self._keep, self._drop, key, run)

        run.task.add_done_callback(finished)
        return run

    def get(self, conversation: str, answer_id: str) -> Run | None:
        return self._runs.get((conversation, answer_id))

    def _drop(self, key: tuple[str, str], run: Run) -> None:
        self._forget.pop(run, None)
        if self._runs.get(key) is run:
            del self._runs[key]

    async def close(self) -> None:
        """Stop every answer still being written (the service is shutting down)."""
        for handle in self._forget.values():
            handle.cancel()
        self._forget.clear()
        runs = [r for r in self._runs.values() if not r.finished]
        for run in runs:
            run.cancel()
        for run in runs:
            with contextlib.suppress(asyncio.CancelledError):
                await run.task
        self._runs.clear()


async def finish(save: Awaitable[object], *, complete: bool = False) -> None:
    """Run ``save`` to its end even if the answer is cancelled meanwhile (a cancel racing the last
    piece, or many cancels): a history is never half-saved. A ``complete`` answer being saved is
    past cancelling: it is delivered as saved. Otherwise the cancel still ends the answer."""
    task = asyncio.ensure_future(save)
    cancels = 0
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancels += 1
    task.result()
    current = asyncio.current_task()
    if cancels and complete and current is not None:
        for _ in range(cancels):
            current.uncancel()
    elif cancels:
        raise asyncio.CancelledError
