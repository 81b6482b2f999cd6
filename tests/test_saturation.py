"""A saturated service and a spent deadline, seen from outside: the real app on a real port.

Saturation: one admission slot and no queue (``WAYFARER_LIMITS__ADMISSION_SLOTS=1``, ``..._WAIT_SECONDS=0``).
A message holds the slot while it is routed, and the stand-in model (an OpenAI-compatible server) that
routes it waits at a gate the test opens before it answers, so "the slot is taken" is a state the test
waits for, not a timing. Meanwhile chat, route and WebSocket messages are refused at once with 503
``overloaded`` and Retry-After (the WebSocket: an error frame saying ``retry_after``), nothing of them
stored; once the gate opens every one is answered again.

A spent deadline: the chat's deadline is shorter than any message takes to reach its tools, so the
flight search is never started, and the answer says so with ``tool_not_started``, not as a provider
that took too long; the sandbox provider, over HTTP, is never asked.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web

from rag.web import keys
from tests.llm_stub import completion, delta_event

WAIT = 30.0  # a hang guard, not a timing assertion
WORDS = ["Pack", "light", "layers."]


@dataclass
class Gate:
    """The stand-in model's state: routing requests wait until ``open`` is set."""

    open: asyncio.Event = field(default_factory=asyncio.Event)
    routing: asyncio.Event = field(default_factory=asyncio.Event)  # a message is being routed


GATE = web.AppKey("gate", Gate)


async def _completions(request: web.Request) -> web.StreamResponse:
    gate = request.app[GATE]
    body = await request.json()
    if not body.get("stream"):  # the router asking which tools: none, once the gate opens
        gate.routing.set()
        await gate.open.wait()
        return web.json_response(completion({"role": "assistant", "content": None, "tool_calls": []}))
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await resp.prepare(request)
    for i, word in enumerate(WORDS):
        await resp.write(delta_event((" " if i else "") + word))
    await resp.write(b"data: [DONE]\n\n")
    return resp


@pytest.fixture
async def saturated(aiohttp_client, aiohttp_server, make_settings):  # type: ignore[no-untyped-def]
    """(gate, client): the real app with one slot and no queue, answering through the gated model."""
    from rag.web.app import create_app

    gate = Gate()
    model = web.Application()
    model[GATE] = gate
    model.router.add_post("/v1/chat/completions", _completions)
    server = await aiohttp_server(model)
    settings = make_settings(
        WAYFARER_INDEX__SEED_ON_START="false",
        WAYFARER_LLM__BASE_URL=str(server.make_url("/v1")),
        WAYFARER_LLM__MODEL="stub",
        WAYFARER_LLM__TIMEOUT_SECONDS=str(2 * WAIT),
        WAYFARER_ROUTING__LLM_TIMEOUT_SECONDS=str(2 * WAIT),
        WAYFARER_LIMITS__ADMISSION_SLOTS="1",
        WAYFARER_LIMITS__ADMISSION_WAIT_SECONDS="0",
    )
    client = await aiohttp_client(create_app(settings))
    yield gate, client
    gate.open.set()  # no answer left waiting, whatever the test did


async def user_turns(client: Any, user: str) -> list[str]:
    resp = await client.get(f"/v1/sessions/{user}")
    assert resp.status == 200
    return [t["text"] for t in (await resp.json())["history"] if t["role"] == "user"]


async def test_a_saturated_service_refuses_at_once_with_when_to_come_back(saturated) -> None:  # type: ignore[no-untyped-def]
    gate, client = saturated
    holding = asyncio.create_task(
        client.post("/v1/chat", json={"user_id": "holder", "message": "What should I pack for Lisbon?"})
    )
    await asyncio.wait_for(gate.routing.wait(), WAIT)  # it is being routed: the slot is taken

    resp = await client.post("/v1/chat", json={"user_id": "late", "message": "What should I pack for Rome?"})
    body = await resp.json()
    assert resp.status == 503 and body["error"]["code"] == "overloaded", body
    retry = int(resp.headers["Retry-After"])
    assert retry >= 1 and body["error"]["retry_after"] == retry
    assert "try again" in body["error"]["message"]

    resp = await client.post("/v1/route", json={"message": "hotels in Rome next weekend"})
    assert resp.status == 503 and (await resp.json())["error"]["code"] == "overloaded"
    assert int(resp.headers["Retry-After"]) >= 1

    async with client.ws_connect("/v1/ws?user_id=socket") as ws:
        await ws.send_json({"type": "message", "text": "What should I pack for Oslo?", "id": "w1"})
        refused = await asyncio.wait_for(ws.receive_json(), WAIT)
        assert refused["type"] == "error" and refused["id"] == "w1", refused
        assert refused["error"]["code"] == "overloaded" and refused["error"]["retry_after"] >= 1

        gate.open.set()
        held = await asyncio.wait_for(holding, WAIT)
        assert held.status == 200 and (await held.json())["text"] == " ".join(WORDS)

        # The slot is free again: the same message over the same connection is answered now.
        await ws.send_json({"type": "message", "text": "What should I pack for Oslo?", "id": "w2"})
        while not (answer := await asyncio.wait_for(ws.receive_json(), WAIT)).get("complete"):
            assert answer["type"] == "response", answer
        assert answer["id"] == "w2" and answer["text"] == " ".join(WORDS)

    resp = await client.post("/v1/chat", json={"user_id": "late", "message": "What should I pack for Rome?"})
    assert resp.status == 200
    resp = await client.post("/v1/route", json={"message": "hotels in Rome next weekend"})
    assert resp.status == 200
    # A refused message was never stored: each history holds only the message that was answered.
    assert await user_turns(client, "late") == ["What should I pack for Rome?"]
    assert await user_turns(client, "socket") == ["What should I pack for Oslo?"]
    metrics = (await (await client.get("/metrics")).read()).decode()
    assert "wayfarer_overloaded_total 3.0" in metrics


async def test_a_tool_the_deadline_left_no_time_for_is_not_a_provider_timeout(
    aiohttp_client, make_settings
) -> None:  # type: ignore[no-untyped-def]
    from rag.web.app import create_app

    # 1 ms: less than embedding and routing a message take, so the deadline is spent before the tools.
    settings = make_settings(
        WAYFARER_INDEX__SEED_ON_START="false", WAYFARER_LIMITS__CHAT_DEADLINE_SECONDS="0.001"
    )
    client = await aiohttp_client(create_app(settings))
    day = (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=30)).isoformat()
    resp = await client.post(
        "/v1/chat", json={"user_id": "unlucky", "message": f"flights from Paris to Rome on {day}"}
    )
    assert resp.status == 200
    answer = await resp.json()
    [call] = answer["tool_calls"]
    assert call["name"] == "flight_search" and call["error"] == "tool_not_started", call
    assert answer["complete"] is True and "was not called" in answer["text"]
    assert "timed out" not in answer["text"]
    assert client.app[keys.TOOL_SERVICE].provider_calls == 0  # the provider was never asked
    # It was asked for all the same: the trip keeps it as the last search, for a follow-up to change.
    trip = (await (await client.get("/v1/sessions/unlucky")).json())["trip"]
    assert [c["name"] for c in trip["last_calls"]] == ["flight_search"]
