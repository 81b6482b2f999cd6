"""The chat over HTTP and WebSocket, and the sessions endpoints."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from aiohttp import WSMsgType, web

from rag.errors import UnknownFrameError, ValidationError, WayfarerError
from rag.web import keys
from rag.web.auth import require_user
from rag.web.middleware import error_body
from rag.web.schemas import ChatRequest, parse_json, read_body, user_id_param

logger = logging.getLogger(__name__)
routes = web.RouteTableDef()


@routes.post("/v1/chat")
async def chat(request: web.Request) -> web.Response:
    body = await read_body(request, ChatRequest)
    require_user(request, body.user_id)
    final: dict[str, Any] = {}
    async for event in request.app[keys.CHAT].respond(body.user_id, body.message):
        if event.get("complete"):
            final = event
    return web.json_response(final)


@routes.get("/v1/sessions/{user_id}")
async def session(request: web.Request) -> web.Response:
    user_id = user_id_param(request.match_info["user_id"])
    require_user(request, user_id)
    sessions = request.app[keys.CHAT].sessions
    trip = await sessions.trip(user_id)
    history = await sessions.history(user_id)
    return web.json_response(
        {
            "user_id": user_id,
            "trip": trip.model_dump(mode="json", exclude_none=True),
            "history": history[-20:],
        }
    )


@routes.delete("/v1/sessions/{user_id}")
async def forget(request: web.Request) -> web.Response:
    user_id = user_id_param(request.match_info["user_id"])
    require_user(request, user_id)
    forgotten = await request.app[keys.CHAT].sessions.forget(user_id)
    return web.json_response({"forgotten": forgotten})


@routes.get("/v1/ws")
async def websocket(request: web.Request) -> web.StreamResponse:
    """Messages in, streamed answers out; errors are frames and the connection stays usable."""
    user_id = user_id_param(request.query.get("user_id", ""))
    require_user(request, user_id, query_token=True)
    limit = request.app[keys.SETTINGS].limits.max_message_chars
    ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=max(65536, limit * 8))
    await ws.prepare(request)
    current: asyncio.Task[None] | None = None
    try:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                if msg.type == WSMsgType.BINARY:
                    await _error(ws, "invalid_frame", "send JSON text frames")
                continue
            # Nothing a frame holds may end the connection: every failure is an error frame.
            try:
                text = _message_text(parse_json(msg.data, request, "the frame"))
            except WayfarerError as exc:
                await _error(ws, exc.code, exc.message)
                continue
            if current is not None and not current.done():
                await _error(ws, "busy", "wait for the answer to the previous message")
                continue
            current = asyncio.create_task(_answer(ws, request.app, user_id, text))
    finally:
        if current is not None and not current.done():
            current.cancel()  # the client went away: stop generating
            with contextlib.suppress(asyncio.CancelledError):
                await current
    return ws


def _message_text(frame: Any) -> str:
    if not isinstance(frame, dict) or frame.get("type") != "message":
        raise UnknownFrameError('send {"type": "message", "text": "..."}')
    if not isinstance(frame.get("text"), str):
        raise ValidationError("text: a string is required")
    return str(frame["text"])


async def _answer(ws: web.WebSocketResponse, app: web.Application, user_id: str, text: str) -> None:
    try:
        async for event in app[keys.CHAT].respond(user_id, text):
            await ws.send_json(event)
    except WayfarerError as exc:
        await _error(ws, exc.code, exc.message)
    except ConnectionResetError:
        return
    except Exception:
        logger.exception("chat message failed")
        await _error(ws, "internal_error", "internal error")


async def _error(ws: web.WebSocketResponse, code: str, message: str) -> None:
    if not ws.closed:
        await ws.send_json({"type": "error", **error_body(code, message)})
