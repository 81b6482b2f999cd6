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


async def chat(request: web.Request) -> web.Response:
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
    content = json.dumps(value) if kind == "json" else value
    return web.json_response(completion({"role": "assistant", "content": content}))


def create_stub(script: Script) -> web.Application:
    app = web.Application()
    app[STUB] = script
    app.router.add_post("/v1/chat/completions", chat)
    return app
