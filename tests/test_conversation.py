"""The conversation's context through the real app: follow-ups, intents completed from the trip or asked
about (never dropped, never guessed), passages from the conversation's places, /v1/route in context.

One app of each kind for the module: each test talks as its own user.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient

from rag.dialogue.followup import shape
from rag.i18n import detect_language
from rag.routing.extracted import Slots
from rag.routing.shifts import find_shift
from rag.tools.catalog import ToolCatalogue
from tests.conftest import copy_seed, env_settings, serve

# Guides that compete for travel questions ("where to stay", "nightlife"), and the topic documents.
GROUNDING_SEED = [
    "guides/prague.md",
    "guides/barcelona.md",
    "guides/paris.md",
    "guides/rio-de-janeiro.md",
    "guides/lisbon.md",
    "topics/where-to-stay.md",
]


pytestmark = pytest.mark.asyncio(loop_scope="module")


def ahead(days: int) -> dt.date:
    return dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)


@pytest.fixture(scope="module")
def tools_only(shared_tools_client: TestClient) -> TestClient:
    """The real app with the sandbox and no documents: the follow-ups are about tool calls."""
    return shared_tools_client


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def guides(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[TestClient]:
    """The real app seeded with guides that compete for the same questions, one for the module."""
    tmp = tmp_path_factory.mktemp("grounding")
    root = copy_seed(tmp / "seed", GROUNDING_SEED)
    async with serve(env_settings(tmp, WAYFARER_INDEX__SEED_DIR=str(root))) as client:
        yield client


async def say(client: Any, user: str, message: str) -> dict[str, Any]:
    resp = await client.post("/v1/chat", json={"user_id": user, "message": message})
    assert resp.status == 200, await resp.text()
    return dict(await resp.json())


async def say_ws(ws: Any, message: str) -> dict[str, Any]:
    await ws.send_json({"type": "message", "text": message})
    while True:
        frame = await ws.receive_json(timeout=60)
        if frame.get("complete"):
            return dict(frame)


def only_call(body: dict[str, Any]) -> dict[str, Any]:
    [call] = body["tool_calls"]
    return dict(call)


def guides_cited(body: dict[str, Any]) -> set[str]:
    return {s["id"] for s in body["sources"] if s["kind"] == "document" and s["id"].startswith("guides/")}


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("the day after instead", 1),
        ("a day earlier", -1),
        ("two days later please", 2),
        ("a week later", 7),
        ("¿y el día siguiente?", 1),
        ("et la veille ?", -1),
        ("einen Tag später", 1),
        ("o dia seguinte", 1),
        ("il giorno prima", -1),
        ("the day after tomorrow", None),  # a date, not a shift
    ],
)
def test_date_shifts_in_six_languages(text: str, days: int | None) -> None:
    found = find_shift(text, detect_language(text))
    assert (found.days if found else None) == days


@pytest.mark.parametrize(
    ("text", "follow_up"),
    [
        ("same dates but for 2 adults", True),
        ("and the weather there?", True),
        ("how about for 3 people instead", True),
        ("What should I pack for Porto?", False),
        ("is it worth it?", False),
    ],
)
def test_what_is_shaped_as_a_follow_up(text: str, follow_up: bool) -> None:
    nouns = ToolCatalogue.builtin().nouns()
    assert (shape(text, Slots(text=text), nouns) is not None) is follow_up


async def test_what_about_porto_searches_hotels_there_for_the_same_dates(tools_only) -> None:  # type: ignore[no-untyped-def]
    check_in, check_out = ahead(30), ahead(33)
    first = only_call(await say(tools_only, "ana", f"hotel in Lisbon from {check_in} to {check_out}"))
    assert first["params"]["city"] == "LIS" and first["assumed"] == []
    body = await say(tools_only, "ana", "what about Porto?")
    call = only_call(body)
    assert call["name"] == "hotel_search" and call["params"]["city"] == "OPO"
    assert call["params"]["check_in"] == check_in.isoformat()
    assert call["params"]["check_out"] == check_out.isoformat()
    assert set(call["assumed"]) == {"check_in", "check_out"}
    assert "I assumed" in body["text"] and check_in.isoformat() in body["text"]


async def test_same_dates_for_two_adults_then_the_day_after_then_a_day_earlier(tools_only) -> None:  # type: ignore[no-untyped-def]
    check_in, check_out = ahead(40), ahead(42)
    await say(tools_only, "ben", f"hotel in Rome from {check_in} to {check_out}")
    adults = only_call(await say(tools_only, "ben", "same dates but for 2 adults"))
    assert adults["params"]["adults"] == 2 and adults["params"]["city"] == "ROM"
    assert (adults["params"]["check_in"], adults["params"]["check_out"]) == (
        check_in.isoformat(),
        check_out.isoformat(),
    )
    later = only_call(await say(tools_only, "ben", "the day after instead"))
    assert later["params"]["check_in"] == (check_in + dt.timedelta(days=1)).isoformat()
    assert later["params"]["check_out"] == (check_out + dt.timedelta(days=1)).isoformat()
    assert later["params"]["adults"] == 2 and later["params"]["city"] == "ROM"
    earlier = only_call(await say(tools_only, "ben", "a day earlier"))
    assert earlier["params"]["check_in"] == check_in.isoformat()
    session = await (await tools_only.get("/v1/sessions/ben")).json()
    assert session["trip"]["start_date"] == check_in.isoformat()
    [last] = session["trip"]["last_calls"]
    assert last["name"] == "hotel_search" and last["params"]["check_in"] == check_in.isoformat()


async def test_follow_ups_over_the_websocket_and_in_other_languages(tools_only) -> None:  # type: ignore[no-untyped-def]
    day = ahead(5)  # within the forecast's reach: the weather follows the trip's day
    async with tools_only.ws_connect("/v1/ws?user_id=cleo") as ws:
        flight = only_call(await say_ws(ws, f"Find flights from London to Lisbon on {day}"))
        assert flight["params"]["destination"] == "LIS"
        weather = await say_ws(ws, "and the weather there?")
        call = only_call(weather)
        assert call["name"] == "weather_forecast" and call["params"]["city"] == "Lisbon"
        assert call["assumed"] == ["city", "start_date"] and call["params"]["start_date"] == day.isoformat()
        assert "Lisbon" in weather["text"]
    await say(tools_only, "dan", f"hotel in Lisbon from {ahead(20)} to {ahead(22)}")
    spanish = only_call(await say(tools_only, "dan", "¿y en Oporto?"))
    assert spanish["name"] == "hotel_search" and spanish["params"]["city"] == "OPO"
    await say(tools_only, "eve", f"hotel in Lisbon from {ahead(20)} to {ahead(22)}")
    french = await say(tools_only, "eve", "et à Porto ?")
    assert only_call(french)["params"]["city"] == "OPO"
    assert "supposé" in french["text"]  # what was assumed, said in French


async def test_a_follow_up_the_last_call_cannot_take_is_asked_about(tools_only) -> None:  # type: ignore[no-untyped-def]
    await say(tools_only, "fay", "what's the weather in Lisbon tomorrow?")
    body = await say(tools_only, "fay", "same dates but for 2 adults")
    assert body["tool_calls"] == [] and "the last search (the forecast)" in body["text"]


async def test_a_tool_without_a_place_is_completed_from_the_trip_and_says_so(tools_only) -> None:  # type: ignore[no-untyped-def]
    await say(tools_only, "gus", "I'm going to Lisbon soon")
    body = await say(tools_only, "gus", "find me a hotel for next weekend")
    call = only_call(body)
    assert call["name"] == "hotel_search" and call["params"]["city"] == "LIS"
    assert call["assumed"] == ["city"] and "I assumed Lisbon" in body["text"]


async def test_unknown_places_and_bad_dates_are_asked_never_filled_from_the_trip(tools_only) -> None:  # type: ignore[no-untyped-def]
    await say(tools_only, "hal", f"hotel in Lisbon from {ahead(20)} to {ahead(22)}")
    unknown = await say(tools_only, "hal", "find me a hotel in Zzyzx next weekend")
    assert unknown["tool_calls"] == [] and "Zzyzx" in unknown["text"]
    past = await say(tools_only, "hal", "hotel in Rome on 2020-03-03")
    assert past["tool_calls"] == [] and "check-in date" in past["text"]
    impossible = await say(tools_only, "hal", "hotel in Rome on February 30")
    assert impossible["tool_calls"] == [] and "February 30" in impossible["text"]
    # The question waits for its answer: a date alone completes the hotel search in Rome.
    answered = only_call(await say(tools_only, "hal", ahead(15).strftime("%B %d").replace(" 0", " ")))
    assert answered["params"]["city"] == "ROM" and answered["params"]["check_in"] == ahead(15).isoformat()


async def test_route_with_a_user_id_reads_the_conversation_and_changes_nothing(tools_only) -> None:  # type: ignore[no-untyped-def]
    check_in, check_out = ahead(30), ahead(32)
    await say(tools_only, "ivy", f"hotel in Lisbon from {check_in} to {check_out}")
    before = await (await tools_only.get("/v1/sessions/ivy")).json()

    follow = await (
        await tools_only.post("/v1/route", json={"message": "what about Porto?", "user_id": "ivy"})
    ).json()
    [tool] = follow["tools"]
    assert tool["name"] == "hotel_search" and tool["via"] == "followup" and follow["followup"] is True
    assert tool["params"] == {
        "city": "OPO",
        "check_in": check_in.isoformat(),
        "check_out": check_out.isoformat(),
    }
    completed = await (
        await tools_only.post(
            "/v1/route", json={"message": "find me a hotel for next weekend", "user_id": "ivy"}
        )
    ).json()
    [tool] = completed["tools"]
    assert tool["params"]["city"] == "LIS" and tool["assumed"] == ["city"] and completed["missing"] == {}
    alone = await (
        await tools_only.post("/v1/route", json={"message": "find me a hotel for next weekend"})
    ).json()
    assert alone["tools"] == [] and alone["missing"] == {"hotel_search": ["city"]}

    after = await (await tools_only.get("/v1/sessions/ivy")).json()
    assert after == before


async def test_where_should_i_stay_reads_the_trip_s_guide(guides) -> None:  # type: ignore[no-untyped-def]
    await say(guides, "jon", "I'm going to Prague in May")
    body = await say(guides, "jon", "where should I stay?")
    assert guides_cited(body) == {"guides/prague"}


async def test_a_city_question_cites_no_other_city_s_guide(guides) -> None:  # type: ignore[no-untyped-def]
    body = await say(guides, "kai", "Which neighbourhoods in Barcelona are good for nightlife?")
    assert guides_cited(body) == {"guides/barcelona"}
    compared = await say(guides, "lou", "Where is the better nightlife, Lisbon or Barcelona?")
    assert guides_cited(compared) and guides_cited(compared) <= {"guides/lisbon", "guides/barcelona"}


async def test_an_ambiguous_place_is_asked_about_never_filled_from_the_trip(tools_only) -> None:  # type: ignore[no-untyped-def]
    await say(tools_only, "amb", f"flights from Chicago to Lisbon on {ahead(20)}")
    shared = await say(tools_only, "amb", f"flights from Chicago to Springfield on {ahead(25)}")
    assert shared["tool_calls"] == [], shared["tool_calls"]
    assert "Springfield" in shared["text"] and "SGF" in shared["text"], shared["text"]


async def test_a_shared_name_follows_the_conversation_country(tools_only) -> None:  # type: ignore[no-untyped-def]
    await say(tools_only, "es", f"hotel in Madrid from {ahead(20)} to {ahead(22)}")
    # Valencia, Venezuela is bigger than Valencia, Spain; the conversation is in Spain.
    valencia = only_call(await say(tools_only, "es", "what about Valencia?"))
    assert valencia["params"]["city"] == "VLC", valencia
