"""The chat through the real app: REST, WebSocket, trip state across turns, sessions, errors."""

from __future__ import annotations

import datetime as dt
from typing import Any

from connectors.sandbox.app import FAULTS
from rag.web import keys


def ahead(days: int) -> dt.date:
    return dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)


async def say(client: Any, user: str, message: str) -> dict[str, Any]:
    resp = await client.post("/v1/chat", json={"user_id": user, "message": message})
    assert resp.status == 200, await resp.text()
    return dict(await resp.json())


async def test_knowledge_question_cites_the_guides(client) -> None:  # type: ignore[no-untyped-def]
    body = await say(client, "kim", "What should I pack for a humid tropical trip?")
    assert body["complete"] is True and body["tool_calls"] == []
    first = body["sources"][0]
    assert first["n"] == 1 and first["id"] == "topics/packing-by-climate" and first["kind"] == "document"
    assert first["source"] == "seed" and first["title"]
    assert all(part in body["text"] for part in first["excerpt"].split(" … "))  # what it quotes
    assert "[1]" in body["text"] and "Sources: [1] " + first["title"] in body["text"]


async def test_flight_then_a_hotel_there_for_those_dates(client) -> None:  # type: ignore[no-untyped-def]
    day = ahead(40)
    first = await say(client, "lee", f"Find flights from London to Tokyo on {day.isoformat()}")
    [call] = first["tool_calls"]
    assert call["name"] == "flight_search" and call["provider"] == "duffel" and call["result_count"] > 0
    assert call["from_index"] is False and call["ingested"] == min(5, call["result_count"])
    assert any(
        s["kind"] == "flight_offer" and s["source"] == "live" and s["fetched_at"] for s in first["sources"]
    )
    assert "offline sandbox" in first["text"] and "not real fares" in first["text"]

    second = await say(client, "lee", "and a hotel there for 3 nights")
    [hotel] = second["tool_calls"]
    assert hotel["name"] == "hotel_search"
    assert hotel["params"]["city"] == "TYO" and hotel["params"]["check_in"] == day.isoformat()
    assert hotel["params"]["check_out"] == (day + dt.timedelta(days=3)).isoformat()

    session = await (await client.get("/v1/sessions/lee")).json()
    assert session["trip"]["destination"] == "TYO" and session["trip"]["origin"] == "LON"
    assert [t["role"] for t in session["history"]] == ["user", "assistant", "user", "assistant"]
    assert (await (await client.get("/v1/sessions/someone-else")).json())["trip"] == {}
    assert (await (await client.delete("/v1/sessions/lee")).json()) == {"forgotten": True}
    assert (await (await client.get("/v1/sessions/lee")).json())["history"] == []


async def test_recall_answers_from_what_was_found(client) -> None:  # type: ignore[no-untyped-def]
    await say(client, "max", f"hotel in Lisbon from {ahead(20).isoformat()} for 2 nights")
    await client.app[keys.TASKS].drain()
    body = await say(client, "max", "what hotels did you find?")
    assert body["tool_calls"] == [] and "earlier" in body["text"]
    assert body["sources"] and all(s["kind"] == "hotel_offer" for s in body["sources"])
    other = await say(client, "nia", "what hotels did you find?")
    assert other["sources"] == [] and "no earlier results" in other["text"]


async def test_missing_details_get_a_question(client) -> None:  # type: ignore[no-untyped-def]
    body = await say(client, "oli", "book me a flight to Paris")
    assert body["tool_calls"] == [] and "flying from" in body["text"]


async def test_a_failing_provider_is_told_not_crashed(client) -> None:  # type: ignore[no-untyped-def]
    faults = client.app[keys.TOOLS].sandbox_runner.app[FAULTS]
    faults.error_rate = 1.0
    try:
        body = await say(client, "pat", f"flights from Paris to Rome on {ahead(30).isoformat()}")
    finally:
        faults.error_rate = 0.0
    [call] = body["tool_calls"]
    assert call["error"] == "provider_unavailable" and "couldn't get flights" in body["text"]


async def test_a_revoked_key_fails_its_tool_and_the_rest_of_the_message_is_answered(client) -> None:  # type: ignore[no-untyped-def]
    from connectors.sandbox.duffel_api import SANDBOX_TOKEN

    faults = client.app[keys.TOOLS].sandbox_runner.app[FAULTS]
    faults.revoked_keys = [SANDBOX_TOKEN]
    try:
        day = ahead(3).isoformat()
        body = await say(
            client, "rae", f"flights from Paris to Rome on {day} and the weather in Rome on {day}"
        )
    finally:
        faults.revoked_keys = []
    calls = {c["name"]: c for c in body["tool_calls"]}
    assert calls["flight_search"]["error"] == "provider_auth_failed", calls
    assert calls["weather_forecast"]["result_count"] > 0 and calls["weather_forecast"].get("error") is None
    assert "couldn't get flights" in body["text"] and any(s["kind"] == "weather" for s in body["sources"])


async def test_websocket_streams_and_survives_bad_frames(client) -> None:  # type: ignore[no-untyped-def]
    async with client.ws_connect("/v1/ws?user_id=quinn") as ws:
        await ws.send_str("{not json")
        assert (await ws.receive_json())["error"]["code"] == "invalid_json"
        await ws.send_json({"type": "ping"})
        assert (await ws.receive_json())["error"]["code"] == "unknown_frame_type"
        await ws.send_json({"type": "message", "text": "x" * 5000})
        assert (await ws.receive_json())["error"]["code"] == "validation_error"
        await ws.send_json({"type": "message", "text": "Where should I stay in Lisbon?"})
        pieces = []
        while True:
            frame = await ws.receive_json(timeout=60)
            if frame.get("complete"):
                break
            assert frame == {"type": "response", "text": frame["text"], "chunk": True, "id": frame["id"]}
            pieces.append(frame["text"])
        assert len(pieces) > 1 and "".join(pieces) == frame["text"]
        assert frame["sources"] and frame["tool_calls"] == []
    resp = await client.get("/v1/ws")
    assert resp.status == 422 and (await resp.json())["error"]["code"] == "validation_error"


async def test_bad_chat_requests(client) -> None:  # type: ignore[no-untyped-def]
    for body, code in (
        (b"{", "invalid_json"),
        (b'{"user_id": "u"}', "validation_error"),
        (b'{"user_id": "u", "message": "   "}', "validation_error"),
    ):
        resp = await client.post("/v1/chat", data=body)
        assert resp.status in (400, 422) and (await resp.json())["error"]["code"] == code


async def test_passages_about_other_cities_stay_out_of_a_tool_answer(client) -> None:  # type: ignore[no-untyped-def]
    await say(client, "uma", f"Find flights from London to Lisbon on {ahead(50).isoformat()}")
    body = await say(client, "uma", "and a hotel there for 3 nights")
    assert body["tool_calls"][0]["params"]["city"] == "LIS"
    docs = [s["id"] for s in body["sources"] if s["kind"] == "document"]
    assert all(d == "guides/lisbon" or d.startswith("topics/") for d in docs)


async def test_a_place_without_a_guide_is_answered_from_the_guide_that_names_it(client) -> None:  # type: ignore[no-untyped-def]
    body = await say(client, "sam", "How long does it take to get to Sintra by train?")
    cited = {s["id"] for s in body["sources"]}
    assert cited == {"guides/lisbon"}, body["text"]  # the Lisbon guide's day trip, not a pasted topic
    assert "Sintra" in body["text"] and "40 minutes" in body["text"]


async def test_the_results_an_answer_shows_come_as_data_beside_its_text(client) -> None:  # type: ignore[no-untyped-def]
    """Each offer the text lists is also a typed object in its tool call: over HTTP, in the WebSocket's
    complete frame, in the stored history, and described by the OpenAPI document."""
    day = ahead(33)
    body = await say(client, "rosa", f"hotel in Lisbon from {day.isoformat()} for 2 nights")
    [call] = body["tool_calls"]
    offers = call["results"]
    assert 0 < len(offers) <= min(5, call["result_count"])
    for offer in offers:
        assert offer["kind"] == "hotel_offer" and offer["sandbox"] is True and offer["provider"] == "liteapi"
        assert (
            offer["check_in"] == day.isoformat()
            and offer["check_out"] == (day + dt.timedelta(days=2)).isoformat()
        )
        assert offer["price"] > 0 and len(offer["currency"]) == 3
        assert offer["name"].title() in body["text"]  # the same offers the text lists, in its order
    # In its order: each name after the one before it (a hotel may be listed twice, once a room, and a
    # name may also occur inside an earlier line).
    at = 0
    for name in [o["name"].title() for o in offers]:
        found = body["text"].find(name, at)
        assert found >= 0, (name, body["text"])
        at = found + len(name)

    async with client.ws_connect("/v1/ws?user_id=rosa-ws") as ws:
        await ws.send_json({"type": "message", "text": f"flights from Paris to Rome on {day.isoformat()}"})
        while not (frame := await ws.receive_json(timeout=60)).get("complete"):
            pass
    [flights] = frame["tool_calls"]
    first = flights["results"][0]
    assert first["kind"] == "flight_offer" and first["cabin"] and first["price"] > 0
    legs = first["itineraries"][0]["segments"]
    assert legs[0]["origin"] in ("CDG", "ORY", "BVA") and legs[-1]["destination"] in ("FCO", "CIA")
    assert all(s["departure"] < s["arrival"] for s in legs)

    history = (await (await client.get("/v1/sessions/rosa")).json())["history"]
    assert history[-1]["tool_calls"][0]["results"] == offers  # a reopened conversation draws them again

    failed = await say(client, "rosa-x", "hotel in Atlantis from 2030-01-01 for 2 nights")
    assert all("results" not in c for c in failed["tool_calls"])

    schemas = (await (await client.get("/openapi.json")).json())["components"]["schemas"]
    results = schemas["ChatToolCall"]["properties"]["results"]["items"]
    assert {ref["$ref"].rsplit("/", 1)[1] for ref in results["oneOf"]} >= {
        "FlightOffer",
        "HotelOffer",
        "WeatherDay",
    }
    assert {"name", "check_in", "check_out", "price", "currency"} <= set(schemas["HotelOffer"]["properties"])


async def test_a_tool_call_is_announced_before_the_answer_is_written(client) -> None:  # type: ignore[no-untyped-def]
    """A progress frame per call, in the traveller's language, before the first piece; POST answers
    stay the one complete frame."""
    day = ahead(36).isoformat()
    for user, message, said in (
        ("pia", f"hotel in Lisbon from {day} for 2 nights", "Searching hotels in Lisbon…"),
        (
            "pia-es",
            f"hotel en Lisboa del {day} por 2 noches",
            "Buscando hoteles en Lisbon…",
        ),  # the place as the catalogue names it
    ):
        async with client.ws_connect(f"/v1/ws?user_id={user}") as ws:
            await ws.send_json({"type": "message", "text": message, "id": f"{user}-1"})
            frames = []
            while not (frame := await ws.receive_json(timeout=60)).get("complete"):
                frames.append(frame)
        assert frames[0] == {"type": "progress", "tool": "hotel_search", "text": said, "id": f"{user}-1"}
        assert all(f.get("chunk") for f in frames[1:]) and frame["tool_calls"][0]["name"] == "hotel_search"
    body = await say(client, "pia-rest", f"hotel in Lisbon from {day} for 2 nights")
    assert body["complete"] is True and "progress" not in body
