"""A scripted OpenAI-compatible chat completions server: an external-service stand-in for tests."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Script:
    """What the next answers look like: ("tools", {name: args}), ("json", obj), ("text", str),
    ("sleep", seconds) or ("status", code). The last entry repeats."""

    replies: list[tuple[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def next(self) -> tuple[str, Any]:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


STUB = web.AppKey("script", Script)


def completion(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "stub",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


async def chat(request: web.Request) -> web.StreamResponse:
    script = request.app[STUB]
    script.requests.append(await request.json())
    kind, value = script.next()
    if kind == "sleep":
        await asyncio.sleep(value)
        return web.json_response(completion({"role": "assistant", "content": '{"tools": []}'}))
    if kind == "status":
        return web.json_response({"error": {"message": "boom", "type": "server_error"}}, status=value)
    if kind == "tools":
        calls = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
            }
            for i, (name, args) in enumerate(value.items())
        ]
        return web.json_response(completion({"role": "assistant", "content": None, "tool_calls": calls}))
    if kind in ("stream", "broken_stream"):
        return await stream(request, value, broken=kind == "broken_stream")
    content = json.dumps(value) if kind == "json" else value
    return web.json_response(completion({"role": "assistant", "content": content}))


def delta_event(text: str) -> bytes:
    """One server-sent event of a streamed completion, carrying ``text``."""
    event = {
        "id": "chatcmpl-stub",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": "stub",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }
    return f"data: {json.dumps(event)}\n\n".encode()


async def stream(request: web.Request, text: str, broken: bool) -> web.StreamResponse:
    """Server-sent events as OpenAI streams them: one delta a word, then [DONE] (or a cut connection)."""
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await resp.prepare(request)
    for i, word in enumerate(text.split(" ")):
        if broken and i == 2:
            await resp.write(b"data: {not json\n\n")
            return resp
        await resp.write(delta_event((" " if i else "") + word))
    await resp.write(b"data: [DONE]\n\n")
    return resp


def create_stub(script: Script) -> web.Application:
    app = web.Application()
    app[STUB] = script
    app.router.add_post("/v1/chat/completions", chat)
    return app
