"""Guides and tool results kept apart (issue 23, item 4), through the real app and the sandbox over HTTP.

Knowledge questions are answered from documents only; stored tool results answer only "what did you
find?" questions, from the asker's own results, about the places and days asked, each with its provider,
fetch time and sandbox label. A tool call made without a user id is kept where no one's answer reads it.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from rag.store.base import Filter, VectorStore
from rag.store.edge import EdgeStore
from rag.store.qdrant import QdrantStore
from rag.web import keys
from tests.test_store_contract import BM25, DIM, DOCS, axis, point

pytestmark = pytest.mark.asyncio(loop_scope="module")


def ahead(days: int) -> dt.date:
    return dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)


async def say(client: TestClient, user: str, message: str) -> dict[str, Any]:
    resp = await client.post("/v1/chat", json={"user_id": user, "message": message})
    assert resp.status == 200, await resp.text()
    return dict(await resp.json())


async def settled(client: TestClient) -> None:
    """Every tool result handed to background ingestion is written."""
    await client.app[keys.TASKS].drain()


def recalled_lines(text: str) -> list[str]:
    """The answer's list items: one per recalled result."""
    return [line for line in text.splitlines() if line.startswith("- ")]


def assert_guides_only(body: dict[str, Any]) -> None:
    """A knowledge answer: no tool called, and nothing but documents quoted or cited."""
    assert body["tool_calls"] == [], body["tool_calls"]
    assert all(s["kind"] == "document" and s["source"] != "live" for s in body["sources"]), body["sources"]
    assert "Flight " not in body["text"] and "sandbox" not in body["text"], body["text"]


async def test_an_anonymous_tool_call_reaches_no_one_else(shared_client: TestClient) -> None:
    client = shared_client
    params = {"origin": "Paris", "destination": "Tokyo", "departure_date": ahead(33).isoformat()}
    first = await (await client.post("/v1/tools/flight_search", json=params)).json()
    assert first["results"] and first["from_index"] is False
    await settled(client)
    # The same anonymous request, while fresh, is still answered from the index.
    again = await (await client.post("/v1/tools/flight_search", json=params)).json()
    assert again["from_index"] is True
    assert [r["id"] for r in again["results"]] == [r["id"] for r in first["results"][:5]]

    # These once quoted the anonymous caller's flight offers as the guides.
    for user, question in (
        ("lou", "When is the best time to visit Tokyo?"),
        ("lee", "Which airlines fly from Paris to Tokyo?"),
    ):
        assert_guides_only(await say(client, user, question))
    recall = await say(client, "lou", "what flights did you find?")
    assert recall["sources"] == [] and "no earlier results" in recall["text"], recall["text"]
    for body in (
        {"message": "what flights did you find?"},
        {"message": "what flights did you find?", "user_id": "lou"},
    ):
        found = await (await client.post("/v1/recall", json=body)).json()
        assert found == {"recall": True, "results": []}, found
    search = {"query": "flight from Paris to Tokyo", "top_k": 10, "filters": {"kind": "flight_offer"}}
    for who in ({}, {"user_id": "lou"}):
        results = (await (await client.post("/v1/search", json={**search, **who})).json())["results"]
        assert results == [], results


async def test_a_user_s_own_results_stay_out_of_a_knowledge_answer(shared_client: TestClient) -> None:
    client = shared_client
    searched = await say(client, "kai", f"Find flights from London to Tokyo on {ahead(35).isoformat()}")
    assert searched["tool_calls"][0]["result_count"] > 0
    await settled(client)
    answer = await say(client, "kai", "What is the best time to visit Tokyo?")
    assert_guides_only(answer)
    assert answer["sources"] and {s["id"] for s in answer["sources"]} == {"guides/tokyo"}, answer["text"]
    # This one once quoted the user's own flight offers "from the guides".
    assert_guides_only(await say(client, "kai", "Which airlines fly to Tokyo?"))
    # The results are still the user's to recall.
    recall = await say(client, "kai", "what flights did you find?")
    assert recall["sources"] and all(s["kind"] == "flight_offer" for s in recall["sources"])


async def test_recall_keeps_to_the_day_asked(shared_client: TestClient) -> None:
    client = shared_client
    read = await (
        await client.post("/v1/route", json={"message": "flights from London to Lisbon next Friday"})
    ).json()
    friday = dt.date.fromisoformat(read["tools"][0]["params"]["departure_date"])
    later = friday + dt.timedelta(days=40)  # another month
    for day in (friday, later):  # the later search is the newer: recall lists the newest first
        body = await say(client, "ines", f"flights from London to Lisbon on {day.isoformat()}")
        assert body["tool_calls"][0]["result_count"] > 0, body["text"]
    await settled(client)

    recall = await say(client, "ines", "what flights did you find for next Friday?")
    assert recall["tool_calls"] == [], recall["tool_calls"]
    lines = recalled_lines(recall["text"])
    assert lines and len(lines) == len(recall["sources"]), recall["text"]
    assert all(f"{friday.isoformat()} " in line for line in lines), recall["text"]
    assert not any(later.isoformat() in line for line in lines), recall["text"]

    month = await say(client, "ines", f"which flights did you find in {later:%B}?")
    lines = recalled_lines(month["text"])
    assert lines and all(later.isoformat() in line for line in lines), month["text"]
    assert not any(friday.isoformat() in line for line in lines), month["text"]

    # Asked about no day, every flight found is a candidate.
    body = {"user_id": "ines", "message": "what flights did you find?", "limit": 10}
    everything = (await (await client.post("/v1/recall", json=body)).json())["results"]
    days = {d for r in everything for d in re.findall(r"\d{4}-\d{2}-\d{2}", r["text"])}
    assert {friday.isoformat(), later.isoformat()} <= days, everything


async def test_recall_keeps_to_the_place_asked(shared_client: TestClient) -> None:
    client = shared_client
    for city, days in (("Lisbon", 21), ("Porto", 24)):
        body = await say(client, "jo", f"hotel in {city} from {ahead(days).isoformat()} for 2 nights")
        assert body["tool_calls"][0]["result_count"] > 0, body["text"]
    await settled(client)

    lisbon = await say(client, "jo", "which hotels did you find in Lisbon?")
    assert lisbon["tool_calls"] == [], lisbon["tool_calls"]
    lines = recalled_lines(lisbon["text"])
    assert lines and all("(LIS)" in line for line in lines), lisbon["text"]
    porto = await say(client, "jo", "what hotels did you find in Porto?")
    lines = recalled_lines(porto["text"])
    assert lines and all("(OPO)" in line for line in lines), porto["text"]
    nowhere = await say(client, "jo", "what hotels did you find in Tokyo?")
    assert nowhere["sources"] == [] and "no earlier results" in nowhere["text"], nowhere["text"]

    flights = await say(client, "jo", f"flights from London to Lisbon on {ahead(21).isoformat()}")
    assert flights["tool_calls"][0]["result_count"] > 0
    await settled(client)
    to_lisbon = await say(client, "jo", "what flights did you find to Lisbon?")
    assert recalled_lines(to_lisbon["text"]) and all(
        s["kind"] == "flight_offer" for s in to_lisbon["sources"]
    )
    from_lisbon = await say(client, "jo", "what flights did you find from Lisbon?")
    assert from_lisbon["sources"] == [], from_lisbon["text"]

    # Said this way, the conversation also takes "in Lisbon" as a new hotel search (rag.dialogue);
    # what it recalls is still Lisbon's alone.
    lisbon = await say(client, "jo", "the hotels you found in Lisbon")
    lines = recalled_lines(lisbon["text"])
    assert lines and all("(LIS)" in line for line in lines), lisbon["text"]


async def test_every_recalled_item_says_where_it_came_from(shared_client: TestClient) -> None:
    client = shared_client
    body = await say(client, "rui", f"hotel in Lisbon from {ahead(26).isoformat()} for 3 nights")
    assert body["tool_calls"][0]["result_count"] > 0
    await settled(client)
    recall = await say(client, "rui", "what hotels did you find?")
    lines = recalled_lines(recall["text"])
    assert lines and len(lines) == len(recall["sources"]), recall["text"]
    for line in lines:
        assert "liteapi" in line and "sandbox data" in line, line
        assert re.search(r"fetched \d{4}-\d\d-\d\d \d\d:\d\d UTC", line), line
    for source in recall["sources"]:
        assert source["kind"] == "hotel_offer" and source["provider"] == "liteapi", source
        assert source["fetched_at"] and source["sandbox"] is True, source


@pytest.fixture(params=["edge", "qdrant"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[VectorStore]:
    s: VectorStore
    if request.param == "edge":
        s = EdgeStore(tmp_path / "index", "test", DIM, rrf_k=60, prefetch_limit=20)
    else:
        s = QdrantStore("test", DIM, rrf_k=60, prefetch_limit=20, location=":memory:")
    await s.open()
    yield s
    await s.close()


async def test_both_backends_leave_out_what_a_filter_excludes(store: VectorStore) -> None:
    offer = point("offer", 0, "Paris hotel offer", source="live", user_scope="alice", kind="hotel_offer")
    note = point("note", 0, "A Paris note without a source")  # a point without the key is kept
    await store.upsert([*DOCS, offer, note])
    only_documents = Filter(scope=("alice",), exclude={"source": "live"})
    found = await store.search(axis(0), BM25.encode_query("Paris hotel"), 10, only_documents)
    assert {h.payload["document_id"] for h in found} == {"paris", "tokyo", "rome", "lisbon", "note"}
    assert await store.count(Filter(exclude={"source": ["live", "seed"]})) == 1
    assert await store.count(Filter(equals={"kind": "hotel_offer"}, exclude={"kind": "document"})) == 1
    [hit], _ = await store.scroll(Filter(equals={"source": "live"}), 10)
    assert hit.id == str(uuid.uuid5(uuid.NAMESPACE_URL, "offer"))


def test_a_result_is_about_the_days_and_the_ends_asked() -> None:
    """Pure: a stay's nights (not its check-out day), a route's ends by role, a round trip's two days."""
    from connectors.models import FlightOffer, HotelOffer
    from connectors.places import LocationCatalogue
    from rag.live.recall import PlaceAsked, RecallFocus, matches, whereabouts

    resolve = LocationCatalogue.load().resolve
    now = dt.datetime.now(dt.UTC)
    day = dt.date(2030, 5, 3)
    stay = HotelOffer(
        provider="liteapi", fetched_at=now, hotel_id="h1", name="Casa", city_code="LIS",
        check_in=day, check_out=day + dt.timedelta(days=2), price=100.0, currency="EUR",
    )  # fmt: skip

    def leg(origin: str, destination: str, when: dt.date) -> dict[str, Any]:
        at = dt.datetime.combine(when, dt.time(9))
        segment = {"carrier": "TP", "number": "1", "origin": origin, "destination": destination}
        return {"segments": [{**segment, "departure": at, "arrival": at + dt.timedelta(hours=2)}]}

    back = day + dt.timedelta(days=7)
    trip = FlightOffer(
        provider="duffel", fetched_at=now, cabin="ECONOMY", price=90.0, currency="EUR",
        itineraries=[leg("LGW", "LIS", day), leg("LIS", "LHR", back)],  # type: ignore[list-item]
    )  # fmt: skip
    hotel, flight = whereabouts(stay, {"city_norm": "lisbon"}, resolve), whereabouts(trip, {}, resolve)
    london, lisbon = PlaceAsked(frozenset({"LON"}), "london"), PlaceAsked(frozenset({"LIS"}), "lisbon")

    def on(*days: dt.date) -> RecallFocus:
        return RecallFocus(days=tuple((d, d) for d in days))

    assert matches(hotel, on(day + dt.timedelta(days=1)))
    assert not matches(hotel, on(day + dt.timedelta(days=2)))  # the day of checking out
    assert matches(flight, on(back))  # the way back
    assert not matches(flight, on(day + dt.timedelta(days=1)))
    assert matches(hotel, RecallFocus(places=(lisbon,)))
    assert not matches(hotel, RecallFocus(places=(london,)))
    assert matches(flight, RecallFocus(places=(PlaceAsked(london.codes, london.name, "origin"),)))
    assert not matches(flight, RecallFocus(places=(PlaceAsked(london.codes, london.name, "destination"),)))
    assert matches(flight, RecallFocus(places=(london,), countries=("PT",)))  # Gatwick is London's
    assert not matches(flight, RecallFocus(countries=("JP",)))
