"""The dialogue state across turns, with the real router and query model: what each message calls, what
it asks, and what the next message may answer (rag/dialogue). No app: the state is threaded as the chat
threads it (the plan's trip after the calls it made)."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio

from connectors.places import LocationCatalogue
from rag.chat.reading import ParamsCheck, read_question_of
from rag.dialogue.actions import Action, PlannedCall, Reply, calls_of, waiting_of
from rag.dialogue.context import asked_slots
from rag.dialogue.events import Searched, reduce
from rag.dialogue.plan_types import ToolSpecs
from rag.dialogue.policy import Known, decide
from rag.dialogue.trip import ToolRequest, TripState
from rag.dialogue.understand import understand
from rag.embedding.onnx import OnnxEmbedder
from rag.ingest.documents import norm
from rag.ingest.seeding import load_documents
from rag.routing.config import load_config
from rag.routing.router import Router
from rag.settings import SEED_DIR, EmbeddingSettings
from rag.tools.catalog import ToolCatalogue

TODAY = dt.date(2026, 11, 21)  # a Saturday
pytestmark = pytest.mark.asyncio(loop_scope="module")
GUIDES = frozenset(
    norm(d.metadata["city"]) for d in load_documents(sorted((SEED_DIR / "guides").glob("*.md")))
)


@dataclass
class Turned:
    """What one message did: its action, with its calls, what waits and what was asked."""

    action: Action

    @property
    def calls(self) -> list[PlannedCall]:
        return list(calls_of(self.action))

    @property
    def waiting(self) -> dict[str, list[str]]:
        return waiting_of(self.action)

    @property
    def clarify(self) -> str | None:
        return " ".join(self.action.said.questions) or None

    @property
    def notes(self) -> tuple[str, ...]:
        return self.action.said.notes


class Conversation:
    """One traveller's messages in order, each decided against the trip the previous ones left (the
    calls it makes go out, as the chat's would)."""

    def __init__(self, router: Router) -> None:
        self.router = router
        self.specs = ToolSpecs(router.config.tools, router.tools)
        self.trip = TripState()

    async def say(self, text: str) -> Turned:
        asked = asked_slots(self.trip, self.specs)
        decision = await self.router.route(text, today=TODAY, asked=asked, anchor=self.trip.start_date)
        places = [p.place.city_name for p in decision.slots.places] if decision.slots else []
        understood = understand(
            decision, self.specs.declared, **read_question_of(text, places, decision.slots)
        )
        check = ParamsCheck(self.specs.declared, self.router.catalogue, TODAY)
        decided = decide(self.trip, understood, Known(self.specs, TODAY, GUIDES, check))
        made = tuple(ToolRequest(name=c.name, params=c.params) for c in calls_of(decided.action))
        self.trip = reduce(self.trip, [*decided.events, *([Searched(made)] if made else [])])
        return Turned(decided.action)


def calls(p: Turned) -> dict[str, dict[str, Any]]:
    return {c.name: c.params for c in p.calls}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def router() -> AsyncIterator[Router]:
    embedder = await OnnxEmbedder.load(EmbeddingSettings())

    async def embed(texts: list[str]) -> list[list[float]]:
        return await embedder.embed_documents(texts)

    yield await Router.create(
        load_config(), LocationCatalogue.load(), ToolCatalogue.builtin(), embed, today=lambda: TODAY
    )
    await embedder.close()


@pytest.fixture
def talk(router: Router) -> Conversation:
    return Conversation(router)


async def test_answers_to_its_own_questions_complete_the_search(talk: Conversation) -> None:
    first = await talk.say("I need a one way flight")
    assert first.calls == [] and set(first.waiting["flight_search"]) == {
        "origin",
        "destination",
        "departure_date",
    }
    second = await talk.say("I will be departing from Vancouver on the 3rd of March.")
    assert second.calls == [] and second.waiting == {"flight_search": ["destination"]}
    third = await talk.say("I will be flying to Seattle.")
    assert calls(third) == {
        "flight_search": {"origin": "YVR", "destination": "SEA", "departure_date": "2027-03-03"}
    }


async def test_a_place_named_alone_answers_the_place_asked_for(talk: Conversation) -> None:
    await talk.say("find me a flight to Seattle on December 3")
    answered = await talk.say("Vancouver")
    assert calls(answered)["flight_search"]["origin"] == "YVR"
    assert talk.trip.origin == "YVR" and talk.trip.destination == "SEA"


async def test_an_intent_stays_until_it_is_done(talk: Conversation) -> None:
    """A question about something else in between does not drop the search waiting for its date."""
    await talk.say("I need a hotel in Lisbon")
    await talk.say("what's the weather like there?")
    done = await talk.say("check in on December 12 for 3 nights")
    assert calls(done)["hotel_search"] == {"city": "LIS", "check_in": "2026-12-12", "nights": 3}


async def test_a_question_about_the_results_does_not_search_again(talk: Conversation) -> None:
    await talk.say("a hotel in Paris on December 3 for 2 nights")
    asked = await talk.say("What's the address of that hotel?")
    assert asked.calls == [] and asked.waiting == {}


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("I'm looking for a house to stay in Paris from December 3 for 2 nights", "hotel_search"),
        ("can you find us an apartment to rent in Rome from December 3 for 4 nights", "hotel_search"),
        ("Find local attractions to see in Lisbon please", "activity_search"),
        ("which days are cheapest to fly from London to Rome in March?", "cheapest_dates"),
    ],
)
async def test_indirect_requests_reach_their_tool(talk: Conversation, text: str, tool: str) -> None:
    assert tool in calls(await talk.say(text))


async def test_getting_there_and_staying_there_take_the_trip(talk: Conversation) -> None:
    await talk.say("Tell me about Lisbon")
    there = await talk.say("how would I get there from Manchester?")
    assert there.waiting == {"flight_search": ["departure_date"]}
    assert talk.trip.origin == "MAN" and talk.trip.destination == "LIS"
    dated = await talk.say("on the 28th")
    assert calls(dated)["flight_search"]["departure_date"] == "2026-11-28"
    stay = await talk.say("find us a place to stay there for three nights")
    assert calls(stay)["hotel_search"] == {"city": "LIS", "check_in": "2026-11-28", "nights": 3}
    todo = await talk.say("something to do there on Saturday")
    assert calls(todo)["activity_search"]["city"] == "LIS"


async def test_ordinary_words_are_not_places(talk: Conversation) -> None:
    march = await talk.say("fly from Boston to Seattle in March")
    assert talk.trip.destination == "SEA" and talk.trip.month == dt.date(2027, 3, 1)
    assert march.waiting == {"flight_search": ["departure_date"]}
    rated = await talk.say("a hotel in Paris rated 4.2 or higher")
    assert rated.waiting == {"hotel_search": ["check_in"]} and talk.trip.start_date is None


async def test_comparing_places_makes_neither_an_origin(talk: Conversation) -> None:
    await talk.say("Rome or Paris in spring?")
    assert talk.trip.origin is None and talk.trip.destination is None
    await talk.say("what about Porto?")
    assert talk.trip.origin is None and talk.trip.destination == "OPO"


async def test_a_return_date_is_a_return_date(talk: Conversation) -> None:
    both = await talk.say("I need flights from Atlanta to Boston on December 3 returning the 10th")
    assert calls(both)["flight_search"]["return_date"] == "2026-12-10"
    assert calls(both)["flight_search"]["departure_date"] == "2026-12-03"
    later = await talk.say("actually I'd rather come back on December 12")
    assert calls(later)["flight_search"]["departure_date"] == "2026-12-03"
    assert calls(later)["flight_search"]["return_date"] == "2026-12-12"


async def test_a_round_trip_asks_for_its_return(talk: Conversation) -> None:
    await talk.say("flights from London to Seattle on December 11")
    round_trip = await talk.say("I actually need a round trip flight.")
    assert round_trip.waiting == {"flight_search": ["return_date"]}
    back = await talk.say("My returning date will be the 20th of December.")
    assert calls(back)["flight_search"]["return_date"] == "2026-12-20"


async def test_one_day_said_two_ways_is_one_day(talk: Conversation) -> None:
    p = await talk.say("weather in Lisbon on Wednesday next week")
    assert calls(p)["weather_forecast"]["start_date"] == "2026-11-25"
    assert talk.trip.end_date is None


async def test_a_day_of_this_month_that_has_passed_is_next_month_s_and_said(talk: Conversation) -> None:
    taken = await talk.say("a hotel in Rome on the 5th")
    assert calls(taken)["hotel_search"]["check_in"] == "2026-12-05"
    assert "so I took it as 5 December 2026" in " ".join(taken.notes)


async def test_a_correction_replaces_the_day_taken(talk: Conversation) -> None:
    await talk.say("a hotel in Rome on the 5th")
    corrected = await talk.say("no, the 8th of December")
    assert calls(corrected)["hotel_search"]["check_in"] == "2026-12-08"


async def test_counts_of_rooms_and_children(talk: Conversation) -> None:
    p = await talk.say("a hotel in Madrid on December 2 for 2 adults and a kid, two rooms")
    assert calls(p)["hotel_search"]["rooms"] == 2 and calls(p)["hotel_search"]["adults"] == 2
    assert talk.trip.children == 1
    seats = await talk.say("I need three economy class tickets from Madrid to Paris on December 4")
    assert calls(seats)["flight_search"]["adults"] == 3


async def test_the_stay_keeps_its_length_when_the_first_day_moves(talk: Conversation) -> None:
    await talk.say("a hotel in Vienna from December 3 for 6 nights")
    moved = await talk.say("no, check in on December 5 instead")
    assert calls(moved)["hotel_search"]["check_in"] == "2026-12-05"
    assert talk.trip.nights == 6


async def test_the_same_place_at_both_ends_is_said(talk: Conversation) -> None:
    p = await talk.say("flights from Paris to Paris tomorrow")
    assert p.calls == [] and "Paris as both where you leave from and where you are going" in (p.clarify or "")


async def test_yes_with_nothing_asked_is_said(talk: Conversation) -> None:
    p = await talk.say("yes")
    assert p.calls == [] and p.action == Reply("nothing_pending", p.action.said)


async def test_a_long_unknown_name_is_not_a_guess(talk: Conversation) -> None:
    p = await talk.say("hotels in " + "Zzyzxq" * 300 + " on December 4")
    assert p.calls == [] and p.waiting == {"hotel_search": ["city"]}


async def test_a_stay_longer_than_the_tool_takes_is_asked_again(talk: Conversation) -> None:
    p = await talk.say("a hotel in Rome from December 1 for 45 nights")
    assert p.calls == [] and p.waiting == {"hotel_search": ["nights"]}
    assert (p.clarify or "").startswith("Nights can be from 1 to 30, not 45.")
    fixed = await talk.say("20 nights then")
    assert calls(fixed)["hotel_search"] == {"city": "ROM", "check_in": "2026-12-01", "nights": 20}


async def test_ten_places_in_one_message_are_not_ten_searches(talk: Conversation) -> None:
    p = await talk.say(
        "flights from London to Paris, Rome, Berlin, Madrid, Lisbon, Vienna, Prague, Oslo, Dublin on December 3"
    )
    assert p.calls == [] and p.waiting == {"flight_search": ["destination"]}
    assert "You named 9 places" in (p.clarify or "") and talk.trip.destination is None
    chosen = await talk.say("Rome")
    assert calls(chosen)["flight_search"] == {
        "origin": "LON",
        "departure_date": "2026-12-03",
        "destination": "ROM",
    }


async def test_a_kind_of_place_narrows_the_last_activity_search(talk: Conversation) -> None:
    await talk.say("find attractions in London")
    museum = await talk.say("How about a museum?")
    assert calls(museum)["activity_search"]["category"] == "museum"
    assert calls(museum)["activity_search"]["city"] in ("LON", "London")


async def test_an_airline_narrows_the_last_flight_search(talk: Conversation) -> None:
    await talk.say("flights from Boston to Denver on December 3")
    united = await talk.say("I'd rather fly with United")
    assert calls(united)["flight_search"] == {
        "origin": "BOS",
        "destination": "DEN",
        "departure_date": "2026-12-03",
        "airline": "UA",
    }


@pytest.mark.parametrize(
    ("text", "places", "unknown"),
    [
        ("I have a plan to make a trip, will you check the weather on March 6th?", [], []),
        ("Okay.", [], []),
        ("Can you help me find a one way flight, preferably on Delta Airlines.", [], []),
        ("Make the check in date for the 7th of this month.", [], []),
        ("Hi, I am planning a trip with my family, Can you show me some attractions?", [], []),
        ("From which Airport does the flight leave?", [], []),
        ("What is the weather like in Bodega Bay?", [], ["Bodega Bay"]),
        ("I want to do a weather check at San Anselmo", [], ["San Anselmo"]),
        ("Can you also look into Toronto, Ontario for March 13th?", ["YTO"], []),
        ("flights from London to Paris", ["LON", "PAR"], []),
        ("what about Porto?", ["OPO"], []),
    ],
)
async def test_a_word_is_a_place_only_when_it_is_one(
    router: Router, text: str, places: list[str], unknown: list[str]
) -> None:
    """Measured on public dialogues: "make" read as Mackay, "Okay" as Les Cayes, "Delta" as Delta (BC),
    "Bodega Bay" as Baia Mare. The slot tagger and the rules now agree on what a name is."""
    slots = (await router.analyse(text, today=TODAY)).slots
    assert [p.place.city_code for p in slots.places] == places
    assert slots.unknown_places[: len(unknown)] == unknown
