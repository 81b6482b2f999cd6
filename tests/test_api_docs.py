"""What the README says a newcomer sees, through the real app: readable JSON, a clear code for a plain
HTTP request to the WebSocket, and one meaning per field name."""

from __future__ import annotations

import datetime as dt
from typing import Any


async def test_json_is_readable_in_a_terminal(client: Any) -> None:
    resp = await client.post("/v1/search", json={"query": "Café culture in Lisbon → Tokyo", "top_k": 1})
    raw = await resp.text()
    assert resp.status == 200 and raw.endswith("\n")
    bad = await client.post("/v1/search", json={"query": "→" * 5, "top_k": "x"})
    text = await bad.text()
    assert bad.status == 422 and "\\u" not in text and text.endswith("}\n")


async def test_a_plain_request_to_the_websocket_says_so(client: Any) -> None:
    resp = await client.get("/v1/ws?user_id=ana")
    body = await resp.json()
    assert resp.status == 400 and body["error"]["code"] == "websocket_required"
    assert "POST /v1/chat" in body["error"]["message"]
    missing = await client.get("/v1/ws")
    assert missing.status == 422 and (await missing.json())["error"]["code"] == "validation_error"


async def test_chat_tool_calls_count_their_results_and_show_them_as_data(client: Any) -> None:
    day = (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=3)).isoformat()
    resp = await client.post("/v1/chat", json={"user_id": "cy", "message": f"weather in Rome on {day}"})
    [call] = (await resp.json())["tool_calls"]
    assert call["result_count"] > 0 and call["sandbox"] is True
    # The days the answer shows, typed (not the tool API's kind/id/text/data items).
    assert call["results"] and all(r["kind"] == "weather" and "text" not in r for r in call["results"])
    assert call["results"][0]["date"] == day
    direct = await (await client.post("/v1/tools/weather_forecast", json={"city": "Rome"})).json()
    assert isinstance(direct["results"], list)
