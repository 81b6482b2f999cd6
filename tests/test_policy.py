"""The dialogue's policy, table-tested: a trip and a message in, one action out (rag/dialogue/policy.py).

Pure: the message is read by the real extractor and place catalogue, the tools the router would choose
are given (with how it chose them), and the chat's reading of the question (its topics, the days of a
plan) comes from the chat's own pure readers. No model, no index, no app.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from connectors.places import LocationCatalogue
from rag.chat.reading import ParamsCheck, read_question_of
from rag.dialogue.actions import (
    Ask,
    Compare,
    Guide,
    NoGuide,
    Plan,
    Recall,
    Reply,
    Search,
    calls_of,
    waiting_of,
)
from rag.dialogue.events import DatesSet, TripSet, reduce
from rag.dialogue.plan_types import ToolSpecs
from rag.dialogue.policy import Decision, Known, decide
from rag.dialogue.trip import ToolRequest, TripState
from rag.dialogue.understand import understand
from rag.i18n import detect_language
from rag.routing.config import load_config, lowered_ascii
from rag.routing.decision import RouteDecision, ToolChoice
from rag.routing.extract import extract
from rag.routing.slots import build_params
from rag.tools.catalog import ToolCatalogue

TODAY = dt.date(2026, 11, 21)
CATALOGUE = LocationCatalogue.load()
TOOLS = ToolCatalogue.builtin()
SPECS = ToolSpecs(load_config(tools=TOOLS).tools, TOOLS)
GUIDES = frozenset({"lisbon", "porto", "tokyo", "rome", "amsterdam", "san francisco"})
KNOWN = Known(SPECS, TODAY, GUIDES, ParamsCheck(TOOLS, CATALOGUE, TODAY))


def read(text: str, trip: TripState, tools: Sequence[tuple[str, str]] = ()) -> Decision:
    """``text`` decided in the conversation whose trip is ``trip``; ``tools``: what the router chose
    (tool, how: keyword, semantic, command, llm), with parameters from the message as it would."""
    lang = detect_language(text, default=trip.lang or "en")
    slots = extract(text, CATALOGUE, TODAY, lang=lang, anchor=trip.start_date)
    decision = RouteDecision(use_rag=True, slots=slots, unknown_places=slots.unknown_places, lang=lang)
    # The tools whose keywords the message holds, as the router's keyword layer finds them.
    decision.keywords = {
        n for n, r in SPECS.routes.items() if r.keyword_rules.search(text, lowered_ascii(text))
    }
    for name, via in tools:
        route = SPECS.routes[name]
        params = build_params(route, slots, {})
        decision.vias[name] = via
        missing = [p for p in route.required if params.get(p) in (None, "")]
        if missing:
            decision.missing[name], decision.partial[name] = missing, params
        else:
            decision.tools.append(ToolChoice(name, params, 0.9, via))
    places = [p.place.city_name for p in slots.places] + (
        [trip.destination_name] if trip.destination_name else []
    )
    return decide(trip, understand(decision, TOOLS, **read_question_of(text, places, slots)), KNOWN)


def searched(*calls: tuple[str, dict[str, Any]], **trip: Any) -> TripState:
    """A trip whose searches went out (each showing two results), in order."""
    state = TripState(**trip)
    for turn, (name, params) in enumerate(calls, start=1):
        made = ToolRequest(
            name=name, params=params, turn=turn, shown=[f"{name}-{turn}-a", f"{name}-{turn}-b"]
        )
        kept = [s for s in state.searches or [] if s.name != name]
        state = state.model_copy(update={"searches": [*kept, made], "last_calls": [made], "turn": turn})
    return state


LISBON = {"destination": "LIS", "destination_name": "Lisbon"}
HOTELS = ("hotel_search", {"city": "LIS", "check_in": "2027-04-09", "check_out": "2027-04-13"})
FLIGHTS = ("flight_search", {"origin": "LON", "destination": "LIS", "departure_date": "2027-04-09"})


@dataclass(frozen=True)
class Case:
    name: str
    text: str
    trip: TripState = field(default_factory=TripState)
    tools: tuple[tuple[str, str], ...] = ()
    kind: type = Search
    expect: dict[str, Any] = field(default_factory=dict)  # attributes of the action
    calls: dict[str, dict[str, Any]] | None = None  # each call's parameters (those listed)
    waiting: dict[str, list[str]] | None = None


CASES = [
    Case("thanks are answered in kind", "Cheers, that's brilliant.", searched(FLIGHTS), kind=Reply),
    Case("yes to nothing asked", "yes", kind=Reply, expect={"social": "nothing_pending"}),
    Case(
        "which was cheapest reads back the latest priced search",
        "Which was cheapest?",
        searched(FLIGHTS, HOTELS, **LISBON),
        kind=Recall,
        expect={
            "tool": "hotel_search",
            "pick": "cheapest",
            "shown": ("hotel_search-2-a", "hotel_search-2-b"),
        },
    ),
    Case(
        "a recall names its results",
        "What did the flights cost again?",
        searched(FLIGHTS, HOTELS, **LISBON),
        kind=Recall,
        expect={"tool": "flight_search", "pick": None},
    ),
    Case(
        "a recall in another language",
        "¿Cuál salía más barato?",
        searched(FLIGHTS, HOTELS, **LISBON),
        kind=Recall,
        expect={"tool": "hotel_search", "pick": "cheapest"},
    ),
    Case(
        "the first one shown",
        "The first one you showed: how much was it?",
        searched(HOTELS, **LISBON),
        kind=Recall,
        expect={"tool": "hotel_search", "pick": 1},
    ),
    Case(
        "the cheapest way from the airport is a guide question",
        "What's the cheapest way from the airport to the centre?",
        searched(HOTELS, **LISBON),
        kind=Guide,
        expect={"city": "Lisbon"},
    ),
    Case(
        "a plan for the trip's city",
        "Plan 2 days there.",
        TripState(**LISBON),
        kind=Plan,
        expect={"city": "Lisbon", "days": 2},
    ),
    Case(
        "a plan where there is no guide says so",
        "Lay out 3 days in Hamburg for me.",
        kind=NoGuide,
        expect={"city": "Hamburg", "offer": ()},
    ),
    Case(
        "things to see where there is no guide are looked up",
        "What is there to see in Seville?",
        kind=NoGuide,
        expect={"city": "Seville"},
        calls={"activity_search": {"city": "Seville"}},
    ),
    Case(
        "a guide question is never a booking search",
        "Which part of town is nice and quiet to stay in?",
        TripState(**LISBON),
        tools=(("hotel_search", "semantic"),),
        kind=Guide,
        expect={"city": "Lisbon"},
    ),
    Case(
        "getting around the trip's city is the guide's",
        "How do I get there from the airport?",
        TripState(**LISBON),
        tools=(("flight_search", "semantic"),),
        kind=Guide,
        expect={"city": "Lisbon"},
    ),
    Case(
        "a new destination's guide",
        "Then I want to go on to Porto. What are the top sights?",
        TripState(**LISBON),
        kind=Guide,
        expect={"city": "Porto"},
    ),
    Case(
        "places weighed against each other",
        "Lisbon or Porto for food?",
        kind=Compare,
        expect={"places": ("Lisbon", "Porto")},
    ),
    Case(
        "a place without a guide is said",
        "Is Vancouver a good summer destination?",
        kind=NoGuide,
        expect={"city": "Vancouver"},
    ),
    Case(
        "an open question yields to a new request of another kind",
        "Flights from Boston to Denver on December 3",
        TripState(pending=[ToolRequest(name="hotel_search", params={"city": "LIS"}, turn=1)], turn=1),
        tools=(("flight_search", "keyword"),),
        calls={"flight_search": {"origin": "BOS", "destination": "DEN", "departure_date": "2026-12-03"}},
    ),
    Case(
        "a bare day corrects the trip's date, not today's month",
        "Make it the 22nd.",
        searched(
            ("flight_search", {"origin": "WAS", "destination": "SFO", "departure_date": "2027-05-20"}),
            start_date=dt.date(2027, 5, 20),
        ),
        calls={"flight_search": {"departure_date": "2027-05-22", "destination": "SFO"}},
    ),
    Case(
        "the return pushed back a day",
        "Push the return back a day.",
        searched(
            ("flight_search", {**FLIGHTS[1], "return_date": "2027-04-13"}),
            start_date=dt.date(2027, 4, 9),
            end_date=dt.date(2027, 4, 13),
        ),
        calls={"flight_search": {"departure_date": "2027-04-09", "return_date": "2027-04-14"}},
    ),
    Case(
        "a return a week later counts from the departure",
        "Return a week later.",
        searched(FLIGHTS, start_date=dt.date(2027, 4, 9)),
        calls={"flight_search": {"departure_date": "2027-04-09", "return_date": "2027-04-16"}},
    ),
    Case(
        "a correction in Spanish",
        "Mejor el día 11.",
        searched(FLIGHTS, start_date=dt.date(2027, 4, 9), lang="es"),
        calls={"flight_search": {"departure_date": "2027-04-11"}},
    ),
    Case(
        "a hotel for those dates takes the trip's",
        "A hotel in Lisbon for those dates.",
        searched(FLIGHTS, start_date=dt.date(2027, 4, 9), end_date=dt.date(2027, 4, 14), **LISBON),
        tools=(("hotel_search", "keyword"),),
        calls={"hotel_search": {"city": "LIS", "check_in": "2027-04-09", "check_out": "2027-04-14"}},
    ),
    Case(
        "a flat is lodging",
        "Find me a flat in Lisbon from the 2nd until the 7th of June.",
        calls={"hotel_search": {"check_in": "2027-06-02", "check_out": "2027-06-07"}},
    ),
    Case(
        "a stay the tool would refuse is asked about, not sent",
        "A hotel in Rome from December 1 to January 20.",
        tools=(("hotel_search", "keyword"),),
        kind=Ask,
        waiting={"hotel_search": ["check_out"]},
    ),
    Case(
        "a count out of bounds is asked about, with or without a conversation",
        "a hotel in Rome from December 1 for 99999999999 nights",
        tools=(("hotel_search", "keyword"),),
        kind=Ask,
        waiting={"hotel_search": ["nights"]},
    ),
    Case(
        "a passed day of this month is next month's",
        "a hotel in Rome on the 5th",
        tools=(("hotel_search", "keyword"),),
        calls={"hotel_search": {"check_in": "2026-12-05"}},
    ),
    Case(
        "a request by a tool's word alone asks for what the search needs",
        "I need an economy seat on a plane.",
        kind=Ask,
        waiting={"flight_search": ["origin", "destination", "departure_date"]},
    ),
    Case(
        "a word that only resembles a place looks nothing up",
        "add ian gillan to my rock party",
        kind=NoGuide,
        expect={"offer": ()},
    ),
    Case(
        "what the weather will do this month is the forecast's",
        "will there be snowfall this month?",
        tools=(("weather_forecast", "semantic"),),
        kind=Ask,
        waiting={"weather_forecast": ["city"]},
    ),
    Case(
        "the code of an airport is the location tool's",
        "what's the code for cancun airport",
        tools=(("location_search", "semantic"),),
        calls={"location_search": {}},
    ),
    Case(
        "a dress code is the guide's",
        "whats the dress code for temples?",
        TripState(destination_name="Tokyo"),
        kind=Guide,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_one_action_per_message(case: Case) -> None:
    decided = read(case.text, case.trip, case.tools)
    action = decided.action
    assert isinstance(action, case.kind), (action, decided.why)
    for attr, value in case.expect.items():
        assert getattr(action, attr) == value, (attr, action)
    made = {c.name: c.params for c in calls_of(action)}
    for name, params in (case.calls or {}).items():
        assert name in made, (made, decided.why)
        assert {k: made[name].get(k) for k in params} == params, made[name]
    if case.waiting is not None:
        assert waiting_of(action) == case.waiting
    assert decided.why  # every decision says which rule chose it


def test_a_passed_day_is_said_as_assumed() -> None:
    action = read("a hotel in Rome on the 5th", TripState(), (("hotel_search", "keyword"),)).action
    assert any("so I took it as 5 December 2026" in n for n in action.said.notes)


def test_a_new_destination_replaces_the_trip_s_place() -> None:
    decided = read("Then I want to go on to Porto. What are the top sights?", TripState(**LISBON))
    trip = reduce(TripState(**LISBON), decided.events)
    assert (trip.destination, trip.destination_name) == ("OPO", "Porto")


def test_the_trip_changes_only_through_events() -> None:
    before = searched(FLIGHTS, start_date=dt.date(2027, 4, 9), **LISBON)
    snapshot = before.model_copy(deep=True)
    decided = read("Return a week later.", before)
    assert before == snapshot  # the decision wrote nothing
    assert any(isinstance(e, DatesSet) and e.end == dt.date(2027, 4, 16) for e in decided.events)
    assert any(isinstance(e, TripSet) and e.field == "lang" for e in decided.events)
    assert reduce(before, decided.events).end_date == dt.date(2027, 4, 16)
