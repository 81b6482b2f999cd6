"""Travel tools over the service's HTTP API, with the in-process sandbox started automatically."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from connectors.sandbox.app import FAULTS
from rag.web import keys


@pytest.fixture
async def api(aiohttp_client, make_settings):  # type: ignore[no-untyped-def]
    from rag.web.app import create_app

    settings = make_settings(
        WAYFARER_INDEX__SEED_ON_START="false",
        WAYFARER_CONNECTORS__MIN_INTERVAL_MS="0",
        WAYFARER_CONNECTORS__BACKOFF_SECONDS="0.01",
    )
    return await aiohttp_client(create_app(settings))


def ahead(days: int) -> str:
    return (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)).isoformat()


async def error_code(resp: Any, status: int) -> str:
    assert resp.status == status, await resp.text()
    return str((await resp.json())["error"]["code"])


async def test_catalogue_lists_every_tool_with_its_schema(api) -> None:  # type: ignore[no-untyped-def]
    tools = (await (await api.get("/v1/tools")).json())["tools"]
    names = {t["name"] for t in tools}
    assert names == {
        "flight_search",
        "hotel_search",
        "activity_search",
        "location_search",
        "flight_inspiration",
        "cheapest_dates",
        "weather_forecast",
    }
    flight = next(t for t in tools if t["name"] == "flight_search")
    assert {"origin", "destination", "departure_date"} <= set(flight["parameters"]["required"])
    assert flight["sandbox"] is True and flight["provider"] == "duffel"
    assert flight["why"] == "no provider configured"
    options = {o["name"]: o for o in flight["providers"]}
    assert list(options) == ["duffel", "amadeus"] and options["duffel"]["current"] is True
    assert options["duffel"]["keys"] == ["WAYFARER_CONNECTORS__DUFFEL_TOKEN"] and options["duffel"]["signup"]
    places = next(t for t in tools if t["name"] == "location_search")
    assert places["provider"] == "catalogue" and places["sandbox"] is False


async def test_call_a_tool(api) -> None:  # type: ignore[no-untyped-def]
    body = {"origin": "Paris", "destination": "New York", "departure_date": ahead(30)}
    resp = await api.post("/v1/tools/flight_search", json=body)
    assert resp.status == 200
    data = await resp.json()
    assert data["sandbox"] is True and "not real fares" in data["notice"]
    assert data["params"]["origin"] == "PAR" and data["params"]["destination"] == "NYC"
    first = data["results"][0]
    assert first["kind"] == "flight_offer" and first["id"].startswith("flight:")
    assert first["data"]["sandbox"] is True and first["text"].startswith("Flight ")


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("/v1/tools/teleport", {}, 404, "unknown_tool"),
        ("/v1/tools/flight_search", {"origin": "Paris"}, 422, "invalid_tool_params"),
        ("/v1/tools/hotel_search", {"city": "Zzyzxville", "check_in": "2099-01-01"}, 422, "unknown_location"),
        ("/v1/tools/hotel_search", {"city": "Rome", "check_in": "2020-01-01"}, 422, "invalid_tool_params"),
        ("/v1/tools/flight_search", [1, 2], 422, "validation_error"),
    ],
)
async def test_bad_tool_calls(api, path: str, body: Any, status: int, code: str) -> None:  # type: ignore[no-untyped-def]
    assert await error_code(await api.post(path, json=body), status) == code


async def test_client_json_is_validated_strictly(api) -> None:  # type: ignore[no-untyped-def]
    """Wrong JSON types are refused, not coerced: "2" is not an integer, "true" not a boolean."""
    base = {"origin": "Paris", "destination": "Rome", "departure_date": ahead(30)}
    for field, value in (("adults", "2"), ("nonstop", "true"), ("adults", 2.5), ("origin", 7)):
        resp = await api.post("/v1/tools/flight_search", json={**base, field: value})
        assert await error_code(resp, 422) == "invalid_tool_params"
        assert f"{field}:" in (await resp.json())["error"]["message"]
    resp = await api.post("/v1/tools/flight_search", json={**base, "adults": 2, "nonstop": False})
    assert resp.status == 200, await resp.text()
    assert (await resp.json())["params"]["adults"] == 2
    resp = await api.post("/v1/tools/activity_search", json={"latitude": 41, "longitude": 12.5})
    assert resp.status == 200, await resp.text()  # an integer is a number
    # JSON Schema's integers include 2.0, so the validators take it as 2 (and nothing else is coerced).
    resp = await api.post("/v1/tools/flight_search", json={**base, "adults": 2.0})
    assert resp.status == 200, await resp.text()
    assert (await resp.json())["params"]["adults"] == 2
    resp = await api.post("/v1/search", json={"query": "museums", "top_k": 3.0})
    assert resp.status == 200, await resp.text()
    # Blank places are refused as the document says (a pattern), not looked up.
    for field, value in (("origin", "   "), ("destination", "")):
        resp = await api.post("/v1/tools/flight_search", json={**base, field: value})
        assert await error_code(resp, 422) == "invalid_tool_params"


async def test_malformed_json_body(api) -> None:  # type: ignore[no-untyped-def]
    resp = await api.post("/v1/tools/location_search", data=b"{nope")
    assert await error_code(resp, 400) == "invalid_json"


async def test_upstream_failure_is_a_clear_error_and_the_service_recovers(api) -> None:  # type: ignore[no-untyped-def]
    live = api.app[keys.TOOLS].sandbox_runner.app[FAULTS]
    live.error_rate = 1.0
    resp = await api.post("/v1/tools/activity_search", json={"city": "Rome"})
    assert await error_code(resp, 503) == "provider_unavailable"
    live.error_rate, live.quota_exceeded = 0.0, True
    resp = await api.post("/v1/tools/activity_search", json={"city": "Rome"})
    assert await error_code(resp, 429) == "provider_rate_limited"
    live.quota_exceeded = False
    assert (await api.post("/v1/tools/activity_search", json={"city": "Rome"})).status == 200


async def test_tool_results_are_learned_and_recalled_per_user(api) -> None:  # type: ignore[no-untyped-def]
    body = {"city": "Porto", "check_in": ahead(15), "nights": 2}
    first = await (await api.post("/v1/tools/hotel_search?user_id=ana", json=body)).json()
    assert first["from_index"] is False and first["ingesting"] == 5
    await api.app[keys.TASKS].drain()
    again = await (await api.post("/v1/tools/hotel_search?user_id=ana", json=body)).json()
    assert again["from_index"] is True and again["fetched_at"]
    assert [r["id"] for r in again["results"]] == [r["id"] for r in first["results"][:5]]

    recall = await (
        await api.post("/v1/recall", json={"user_id": "ana", "message": "what hotels did you find?"})
    ).json()
    assert recall["recall"] is True and len(recall["results"]) == 5
    assert all(r["kind"] == "hotel_offer" and r["sandbox"] for r in recall["results"])
    other = await (
        await api.post("/v1/recall", json={"user_id": "ben", "message": "what hotels did you find?"})
    ).json()
    assert other == {"recall": True, "results": []}

    search = {"query": "hotel in Porto", "top_k": 10, "filters": {"kind": "hotel_offer"}}
    mine = (await (await api.post("/v1/search", json={**search, "user_id": "ana"})).json())["results"]
    assert mine and all(r["metadata"]["source"] == "live" for r in mine)
    assert (await (await api.post("/v1/search", json={**search, "user_id": "ben"})).json())["results"] == []
