"""The LLM intent classifier through the service, against a scripted OpenAI-compatible server."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from rag.dialogue.trip import ToolRequest, TripState
from rag.web import keys
from tests.llm_stub import Script, create_stub


@pytest.fixture
async def setup(aiohttp_client, aiohttp_server, make_settings):  # type: ignore[no-untyped-def]
    from rag.web.app import create_app

    script = Script()
    server = await aiohttp_server(create_stub(script))

    async def make(mode: str = "tools", budget: str = "2", **env: str) -> Any:
        settings = make_settings(
            WAYFARER_INDEX__SEED_ON_START="false",
            WAYFARER_LLM__BASE_URL=str(server.make_url("/v1")),
            WAYFARER_LLM__MODEL="stub",
            WAYFARER_ROUTING__LLM_MODE=mode,
            WAYFARER_ROUTING__LLM_TIMEOUT_SECONDS=budget,
            **env,
        )
        return await aiohttp_client(create_app(settings))

    return script, make


async def route(client: Any, message: str) -> dict[str, Any]:
    resp = await client.post("/v1/route", json={"message": message})
    assert resp.status == 200, await resp.text()
    return dict(await resp.json())


async def test_tool_calls_decide_and_the_extractor_grounds_values(setup) -> None:  # type: ignore[no-untyped-def]
    script, make = setup
    client = await make("tools")
    script.replies = [
        (
            "tools",
            {"flight_search": {"origin": "Zzyzxville", "destination": "PAR", "departure_date": "2027-01-09"}},
        )
    ]
    body = await route(client, "get me to Paris from Rome on January 9")
    [tool] = body["tools"]
    assert tool["name"] == "flight_search" and tool["via"] == "llm"
    assert tool["params"]["origin"] == "ROM"  # the extractor's grounded value wins over the LLM's
    request = script.requests[-1]
    assert request["temperature"] == 0 and {t["function"]["name"] for t in request["tools"]} >= {
        "flight_search"
    }
    assert dt.date.today().isoformat()[:4] in request["messages"][0]["content"]  # prompt rendered per call


async def test_json_mode(setup) -> None:  # type: ignore[no-untyped-def]
    script, make = setup
    client = await make("json")
    script.replies = [("json", {"tools": [{"name": "weather_forecast", "arguments": {"city": "Oslo"}}]})]
    body = await route(client, "should I bring an umbrella in Oslo tomorrow")
    assert [(t["name"], t["via"], t["params"]["city"]) for t in body["tools"]] == [
        ("weather_forecast", "llm", "Oslo")
    ]
    assert script.requests[-1]["response_format"] == {"type": "json_object"}


async def test_llm_cannot_override_a_negative_rule(setup) -> None:  # type: ignore[no-untyped-def]
    script, make = setup
    client = await make("tools")
    script.replies = [("tools", {"weather_forecast": {"city": "Moscow"}})]
    body = await route(client, "How many people live in Moscow?")
    assert body["tools"] == [] and body["missing"] == {}


@pytest.mark.parametrize(
    "reply",
    [
        ("sleep", 3.0),  # over the 1 s budget
        ("status", 500),
        ("text", "Sure! You should use the flight tool."),  # not JSON in JSON mode
        ("json", {"tool": "flight_search"}),  # JSON without a tools list
        ("tools", {"flight_search": "{not json"}),  # malformed arguments
    ],
)
async def test_failures_fall_back_to_the_other_layers(setup, reply: tuple[str, Any]) -> None:  # type: ignore[no-untyped-def]
    script, make = setup
    client = await make("json" if reply[0] in ("text", "json") else "tools", budget="1")
    script.replies = [reply]
    body = await route(client, "flights from London to Rome on 2027-05-05")
    assert [t["name"] for t in body["tools"]] == ["flight_search"]
    assert body["tools"][0]["via"] in ("semantic", "keyword")  # the other layers, not the LLM
    assert body["tools"][0]["params"]["origin"] == "LON"


async def test_the_classifier_sees_the_conversation_and_its_answer_goes_through_the_same_update(
    setup,
) -> None:  # type: ignore[no-untyped-def]
    """A reply to the assistant's question is read with the question: the LLM is told the state, and
    the tool it picks completes the waiting search as any answer does."""
    script, make = setup
    client = await make("tools", WAYFARER_FIXED_TODAY="2026-11-21")
    waiting = TripState(
        destination="LIS",
        destination_name="Lisbon",
        pending=[ToolRequest(name="hotel_search", params={"city": "Lisbon"}, turn=1)],
        turn=1,
    )
    await client.app[keys.CHAT].sessions.save_trip("ana", waiting)
    script.replies = [("tools", {"hotel_search": {"check_in": "2026-12-12"}})]
    resp = await client.post(
        "/v1/route", json={"message": "the twelfth of December, three nights", "user_id": "ana"}
    )
    body = await resp.json()
    told = [m["content"] for m in script.requests[-1]["messages"] if m["role"] == "system"]
    assert len(told) == 2 and "asked for check_in to call hotel_search (it has city=Lisbon)" in told[1]
    [tool] = body["tools"]
    assert tool["name"] == "hotel_search"  # completed from the conversation, as any answer
    assert tool["params"] == {"city": "Lisbon", "check_in": "2026-12-12", "nights": 3}
    assert body["missing"] == {}
