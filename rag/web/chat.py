"""The chat over HTTP and WebSocket, and the sessions endpoints."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import uuid
from typing import Any

from aiohttp import WSMsgType, web

from rag.chat.answers import Run
from rag.chat.events import ChatAnswer, Frame, WsCancelled, frames
from rag.chat.sessions import MAIN, Conversation
from rag.errors import (
    BusyError,
    NothingToCancelError,
    UnknownAnswerError,
    UnknownFrameError,
    ValidationError,
    WayfarerError,
    WebSocketRequiredError,
)
from rag.web import keys
from rag.web.auth import caller_address, require_user
from rag.web.jsonio import json_response
from rag.web.params import conversation_param, session_page_params, user_id_param
from rag.web.responses import ErrorDetail, WsError
from rag.web.schemas import (
    FRAMES,
    CancelFrame,
    ChatRequest,
    MessageFrame,
    ResumeFrame,
    parse_json,
    read_body,
    validate,
)

logger = logging.getLogger(__name__)
routes = web.RouteTableDef()


@routes.post("/v1/chat")
async def chat(request: web.Request) -> web.Response:
    body = await read_body(request, ChatRequest)
    require_user(request, body.user_id)
    final: ChatAnswer | None = None
    answer_id = body.id or uuid.uuid4().hex
    respond = request.app[keys.CHAT].respond(
        body.user_id,
        body.message,
        conversation=body.conversation_id,
        answer_id=answer_id,
        timezone=body.timezone,
        address=caller_address(request),
    )
    async for event in respond:
        if isinstance(event, ChatAnswer):
            final = event
    assert final is not None  # respond ends every answer with its complete frame
    return json_response(final.frame())


def _owner(request: web.Request) -> str:
    """The conversation's user, from the path, when the caller may act as them."""
    user_id = user_id_param(request.match_info["user_id"])
    require_user(request, user_id)
    return user_id


def _conversation(request: web.Request) -> Conversation:
    """The conversation the path and ``?conversation_id=`` name (the main one without it), when the
    caller may act as its user."""
    user_id = _owner(request)
    return Conversation(user_id, conversation_param(request.query) or MAIN)


@routes.get("/v1/sessions/{user_id}")
async def session(request: web.Request) -> web.Response:
    """The trip and a page of the history, newest page first: ``?before=<seq>&limit=N`` pages back."""
    conv = _conversation(request)
    before, limit = session_page_params(request.query)
    sessions = request.app[keys.CHAT].sessions
    trip = await sessions.trip(conv.key)
    shown = await sessions.page(conv.key, before, limit)
    return json_response(
        {
            "user_id": conv.user,
            "conversation_id": conv.conversation,
            "trip": trip.model_dump(mode="json", exclude_none=True),
            "history": shown.turns,
            "more": shown.more,
            "before": shown.before,
        }
    )


@routes.delete("/v1/sessions/{user_id}")
async def forget(request: web.Request) -> web.Response:
    """The conversation forgotten: its turns, its trip and its place in the user's list."""
    conv = _conversation(request)
    forgotten = await request.app[keys.CHAT].sessions.forget_conversation(conv.user, conv.conversation)
    return json_response({"forgotten": forgotten})


@routes.delete("/v1/sessions/{user_id}/trip")
async def forget_trip(request: web.Request) -> web.Response:
    """The trip started over; the conversation's turns stay."""
    conv = _conversation(request)
    forgotten = await request.app[keys.CHAT].sessions.forget_trip(conv.key)
    return json_response({"forgotten": forgotten})


@routes.get("/v1/sessions/{user_id}/conversations")
async def conversations(request: web.Request) -> web.Response:
    """The user's conversations, the one written last first, each with its title (its first message)."""
    user_id = _owner(request)
    listed = await request.app[keys.CHAT].sessions.conversations(user_id)
    return json_response({"user_id": user_id, "conversations": [dataclasses.asdict(c) for c in listed]})


@routes.get("/v1/ws")
async def websocket(request: web.Request) -> web.StreamResponse:
    """Messages in, streamed answers out; errors are frames and the connection stays usable.

    An answer belongs to the service, not to the connection: ``cancel`` stops it, a dropped connection
    does not, and ``resume`` follows it again from a new connection (rag.chat.answers).
    """
    user_id = user_id_param(request.query.get("user_id", ""))
    require_user(request, user_id, query_token=True)
    conv = Conversation(user_id, conversation_param(request.query) or MAIN)
    limit = request.app[keys.SETTINGS].limits.max_message_chars
    ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=max(65536, limit * 8))
    if not ws.can_prepare(request).ok:
        raise WebSocketRequiredError(
            "/v1/ws speaks WebSocket: connect with a WebSocket client (an Upgrade: websocket request), "
            "or use POST /v1/chat for one answer over plain HTTP"
        )
    await ws.prepare(request)
    conversation = _Connection(ws, request.app, conv, caller_address(request))
    try:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                if msg.type == WSMsgType.BINARY:
                    await _error(ws, "invalid_frame", "send JSON text frames")
                continue
            # Nothing a frame holds may end the connection: every failure is an error frame.
            try:
                await conversation.handle(_frame(parse_json(msg.data, request, "the frame"), request))
            except WayfarerError as exc:
                await _error(ws, exc.code, exc.message)
    finally:
        await conversation.close()
    return ws


class _Connection:
    """One WebSocket's view of its conversation's answers: the one it is receiving, and its forwarding
    task."""

    def __init__(
        self, ws: web.WebSocketResponse, app: web.Application, conv: Conversation, address: str
    ) -> None:
        self._ws = ws
        self._app = app
        self._conv = conv
        self._key = conv.key  # the answers in progress are the conversation's, by this key
        self._address = address  # the client's, which the rate limits count besides the user
        self._run: Run | None = None
        self._forward: asyncio.Task[None] | None = None

    async def handle(self, frame: MessageFrame | CancelFrame | ResumeFrame) -> None:
        if isinstance(frame, MessageFrame):
            self._start(frame)
        elif isinstance(frame, CancelFrame):
            await self._cancel(frame.id)
        else:
            await self._resume(frame.id)

    def _busy(self) -> bool:
        return self._run is not None and not self._run.finished

    def _start(self, frame: MessageFrame) -> None:
        if self._busy():
            raise BusyError("wait for the answer to the previous message, or cancel it")
        answer_id = frame.id or uuid.uuid4().hex
        book = self._app[keys.ANSWERS]
        if book.get(self._key, answer_id) is not None:
            raise ValidationError(f"id: {answer_id!r} is already an answer of this conversation")
        events = self._app[keys.CHAT].respond(
            self._conv.user,
            frame.text,
            conversation=self._conv.conversation,
            answer_id=answer_id,
            timezone=frame.timezone,
            address=self._address,
        )
        self._follow(book.start(self._key, answer_id, frames(events)), replay=False)

    async def _cancel(self, answer_id: str | None) -> None:
        """Stop an answer: the one this connection receives, or by its id another of this user's (another
        tab's: then this connection follows it too, to its ``cancelled`` frame). A cancel of an answer
        that has finished is answered ``nothing_to_cancel`` (its last frame said how it ended), of one
        never asked ``unknown_answer``; the answer itself gets no second end."""
        run = self._run
        if answer_id is None or (run is not None and run.id == answer_id):
            if run is None or not run.cancel():
                raise NothingToCancelError(
                    f"answer {answer_id!r} has already finished"
                    if answer_id
                    else "no answer is being written on this connection"
                )
            return
        other = self._app[keys.ANSWERS].get(self._key, answer_id)
        if other is None or other.finished:
            if other is None and await self._saved(answer_id) is None:
                raise UnknownAnswerError(f"no answer {answer_id!r} in this conversation; reload its history")
            raise NothingToCancelError(f"answer {answer_id!r} has already finished")
        if self._busy():
            raise BusyError("this connection is receiving another answer")
        other.cancel()
        self._follow(other, replay=True)

    async def _resume(self, answer_id: str) -> None:
        if self._busy():
            raise BusyError("this connection is receiving another answer")
        run = self._app[keys.ANSWERS].get(self._key, answer_id)
        if run is not None:
            self._follow(run, replay=True)
            return
        turn = await self._saved(answer_id)
        if turn is None:
            raise UnknownAnswerError(f"no answer {answer_id!r} in this conversation; reload its history")
        await self._ws.send_json(replayed(turn))

    async def _saved(self, answer_id: str) -> dict[str, Any] | None:
        """The answer ``answer_id`` as the history keeps it, if it does."""
        history = await self._app[keys.CHAT].sessions.history(self._key)
        return next(
            (t for t in reversed(history) if t.get("id") == answer_id and t["role"] == "assistant"), None
        )

    def _follow(self, run: Run, replay: bool) -> None:
        self._run = run
        self._forward = asyncio.create_task(self._send(run, replay), name=f"ws-forward-{run.id}")

    async def _send(self, run: Run, replay: bool) -> None:
        try:
            async for frame in run.follow(replay):
                if self._ws.closed:
                    return
                await self._ws.send_json(frame)
        except ConnectionResetError:
            return

    async def close(self) -> None:
        """The connection ended: stop forwarding; the answer itself goes on and is saved."""
        if self._forward is not None and not self._forward.done():
            self._forward.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._forward


def replayed(turn: dict[str, Any]) -> Frame:
    """A saved answer as the frame that ended it: cancelled, or complete (marked redelivered)."""
    if turn.get("cancelled"):
        return WsCancelled(type="cancelled", id=turn["id"], text=turn["text"]).frame()
    return ChatAnswer(
        type="response",
        id=turn["id"],
        text=turn["text"],
        complete=True,
        sources=turn.get("sources", []),
        tool_calls=turn.get("tool_calls", []),
        redelivered=True,
    ).frame()


def _frame(value: Any, request: web.Request) -> MessageFrame | CancelFrame | ResumeFrame:
    kind = value.get("type") if isinstance(value, dict) else None
    model = FRAMES.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise UnknownFrameError(
            'send {"type": "message", "text": "..."}, {"type": "cancel"} or {"type": "resume", "id": "..."}'
        )
    frame = validate(model, value, request)
    assert isinstance(frame, MessageFrame | CancelFrame | ResumeFrame)
    return frame


async def _error(ws: web.WebSocketResponse, code: str, message: str) -> None:
    if not ws.closed:
        await ws.send_json(WsError(type="error", error=ErrorDetail(code=code, message=message)).frame())
