"""Operating the chat: Prometheus metrics, structured logs, per-user rate limits and user tokens."""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import Any

import pytest
from aiohttp import web
from prometheus_client.parser import text_string_to_metric_families

from rag.observability.logs import JsonFormatter
from rag.web import keys
from rag.web.app import create_app
from rag.web.auth import user_token


def ahead(days: int) -> dt.date:
    return dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)


async def samples(client: Any) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    resp = await client.get("/metrics")
    assert resp.status == 200 and resp.headers["Content-Type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(await resp.text()):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


async def test_metrics_count_messages_tools_cache_hits_and_ingestion(client) -> None:  # type: ignore[no-untyped-def]
    message = f"Find flights from London to Tokyo on {ahead(45).isoformat()}"
    found = []
    for _ in range(2):
        resp = await client.post("/v1/chat", json={"user_id": "mia", "message": message})
        assert resp.status == 200
        found.append((await resp.json())["tool_calls"][0]["result_count"])
        await client.app[keys.TASKS].drain()
    # Too long for the request schema: refused at the HTTP layer, before the chat sees a message.
    refused = await client.post("/v1/chat", json={"user_id": "mia", "message": "x" * 5000})
    assert refused.status == 422
    m = await samples(client)
    assert m[("wayfarer_chat_messages_total", (("outcome", "ok"),))] == 2
    assert ("wayfarer_chat_messages_total", (("outcome", "validation_error"),)) not in m
    assert m[("wayfarer_tool_calls_total", (("outcome", "provider"), ("tool", "flight_search")))] == 1
    assert m[("wayfarer_tool_calls_total", (("outcome", "index"), ("tool", "flight_search")))] == 1
    assert m[("wayfarer_cache_hits_total", (("tool", "flight_search"),))] == 1
    # The top 5 of the first call's results (how many flights a day has depends on the day).
    assert found[0] > 0 and m[("wayfarer_live_ingested_results_total", (("how", "added"),))] == min(
        5, found[0]
    )
    assert m[("wayfarer_chat_complete_seconds_count", ())] == 2
    assert m[("wayfarer_chat_first_chunk_seconds_count", ())] == 2
    assert (
        m[("wayfarer_http_requests_total", (("method", "POST"), ("route", "/v1/chat"), ("status", "200")))]
        == 2
    )
    assert (
        m[("wayfarer_http_requests_total", (("method", "POST"), ("route", "/v1/chat"), ("status", "422")))]
        == 1
    )
    assert m[("wayfarer_http_request_seconds_count", (("route", "/v1/chat"),))] == 3


async def test_one_structured_log_line_per_message(client, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    caplog.set_level(logging.INFO, logger="rag.chat.service")
    resp = await client.post(
        "/v1/chat", json={"user_id": "noor", "message": "Where should I stay in Lisbon?"}
    )
    assert resp.status == 200
    [record] = [r for r in caplog.records if hasattr(r, "chat")]
    fields = record.chat  # type: ignore[attr-defined]
    assert fields["outcome"] == "ok" and fields["tools"] == {} and fields["sources"] >= 1
    assert fields["action"] == "guide" and fields["why"]  # what the policy decided, and which rule
    assert "noor" not in json.dumps(fields) and len(fields["user"]) == 12
    timings = fields["timings_ms"]
    steps = ["saved", "embed", "route", "search", "tools", "compose"]  # each step's own time
    assert set(timings) >= {*steps, "answer", "first_chunk", "complete"}
    assert all(timings[s] >= 0 for s in steps) and timings["embed"] > 0 and timings["compose"] > 0
    # Each figure is rounded to 0.01 ms on its own: their sum may exceed the rounded whole by that much each.
    assert sum(timings[s] for s in steps) <= timings["first_chunk"] + 0.01 * len(steps)
    assert timings["first_chunk"] <= timings["complete"]
    line = json.loads(JsonFormatter().format(record))  # WAYFARER_LOG_FORMAT=json writes this line
    assert line["level"] == "INFO" and line["chat"]["timings_ms"] == timings


async def test_rate_limit_per_user_over_rest_and_websocket(aiohttp_client, make_settings, small_seed) -> None:  # type: ignore[no-untyped-def]
    # An hour-long window: the count cannot roll over between these few messages.
    settings = make_settings(
        WAYFARER_INDEX__SEED_DIR=str(small_seed),
        WAYFARER_SERVER__CHAT_RATE_LIMIT="2",
        WAYFARER_SERVER__CHAT_RATE_WINDOW_SECONDS="3600",
    )
    client = await aiohttp_client(create_app(settings))
    for _ in range(2):
        assert (
            await client.post("/v1/chat", json={"user_id": "ray", "message": "Lisbon tips"})
        ).status == 200
    resp = await client.post("/v1/chat", json={"user_id": "ray", "message": "Lisbon tips"})
    assert resp.status == 429
    error = (await resp.json())["error"]
    assert error["code"] == "rate_limited" and "2 messages per 3600 s" in error["message"]
    async with client.ws_connect("/v1/ws?user_id=ray") as ws:
        await ws.send_json({"type": "message", "text": "Practical tips for Lisbon?"})
        assert (await ws.receive_json(timeout=30))["error"]["code"] == "rate_limited"
        await ws.send_json({"type": "message", "text": "still there?"})  # the connection stays usable
        assert (await ws.receive_json(timeout=30))["error"]["code"] == "rate_limited"
    other = await client.post("/v1/chat", json={"user_id": "sam", "message": "Lisbon tips"})
    assert other.status == 200  # one user's limit is not another's
    history = await (await client.get("/v1/sessions/ray")).json()
    assert len(history["history"]) == 4  # refused messages are not stored


@pytest.fixture
async def secured(aiohttp_client, make_settings, small_seed):  # type: ignore[no-untyped-def]
    settings = make_settings(
        WAYFARER_INDEX__SEED_DIR=str(small_seed),
        WAYFARER_CHAT_SECRET="chat-secret",
        WAYFARER_ADMIN_TOKEN="admin-secret",
    )
    app: web.Application = create_app(settings)
    return await aiohttp_client(app)


async def test_user_tokens_keep_users_apart(secured) -> None:  # type: ignore[no-untyped-def]
    ann, bob = user_token("chat-secret", "ann"), user_token("chat-secret", "bob")

    def auth(token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    body = {"user_id": "ann", "message": "Where should I stay in Lisbon?"}
    assert (await secured.post("/v1/chat", json=body)).status == 401
    denied = await secured.post("/v1/chat", json=body, headers=auth(bob))
    assert denied.status == 401 and (await denied.json())["error"]["code"] == "unauthorized"
    assert (await secured.post("/v1/chat", json=body, headers=auth(ann))).status == 200

    assert (await secured.get("/v1/sessions/ann", headers=auth(bob))).status == 401
    assert (await secured.delete("/v1/sessions/ann", headers=auth(bob))).status == 401
    # Each of ann's conversations, and their list, are ann's alone.
    other = {**body, "conversation_id": "trip2"}
    assert (await secured.post("/v1/chat", json=other, headers=auth(bob))).status == 401
    assert (await secured.post("/v1/chat", json=other, headers=auth(ann))).status == 200
    for path in ("/v1/sessions/ann/conversations", "/v1/sessions/ann?conversation_id=trip2"):
        assert (await secured.get(path, headers=auth(bob))).status == 401
    assert (await secured.delete("/v1/sessions/ann?conversation_id=trip2", headers=auth(bob))).status == 401
    listed = await secured.get("/v1/sessions/ann/conversations", headers=auth(ann))
    assert [c["id"] for c in (await listed.json())["conversations"]] == ["trip2", "main"]
    mine = await secured.get("/v1/sessions/ann", headers=auth(ann))
    assert len((await mine.json())["history"]) == 2
    admin = await secured.get("/v1/sessions/ann", headers=auth("admin-secret"))
    assert admin.status == 200
    search = {"query": "Lisbon", "user_id": "ann"}
    assert (await secured.post("/v1/search", json=search, headers=auth(bob))).status == 401
    assert (await secured.post("/v1/search", json={"query": "Lisbon"}, headers=auth(ann))).status == 401
    assert (await secured.post("/v1/search", json=search, headers=auth(ann))).status == 200
    recall = {"message": "what hotels did you find?", "user_id": "ann"}
    assert (await secured.post("/v1/recall", json=recall, headers=auth(bob))).status == 401
    assert (await secured.get("/healthz")).status == 200 and (await secured.get("/metrics")).status == 200

    # Browsers cannot set headers on a WebSocket: the token goes in the query.
    resp = await secured.get(f"/v1/ws?user_id=ann&token={bob}")
    assert resp.status == 401
    async with secured.ws_connect(f"/v1/ws?user_id=ann&token={ann}") as ws:
        await ws.send_json({"type": "message", "text": "Practical tips for Lisbon?"})
        while not (frame := await ws.receive_json(timeout=60)).get("complete"):
            assert frame["chunk"] is True
        assert frame["sources"]
