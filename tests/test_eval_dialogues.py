"""The SGD replay's scoring, on two hand-written mini-dialogues: no service, the real place catalogue."""

from __future__ import annotations

from typing import Any

import pytest

from connectors.places import LocationCatalogue
from scripts.eval_dialogues import Places, score_dialogue, summarise
from scripts.sgd_data import expectations, load_dialogues, parse_dialogue, unmapped

REQUIRED = {
    "flight_search": ["origin", "destination", "departure_date"],
    "hotel_search": ["city", "check_in"],
}
SCHEMA: dict[str, dict[str, Any]] = {
    "Flights_3": {
        "intents": [
            {
                "name": "SearchOnewayFlight",
                "optional_slots": {"airlines": "dontcare", "passengers": "1", "flight_class": "Economy"},
            }
        ],
        "slots": [],
    },
    "Hotels_4": {
        "intents": [
            {"name": "SearchHotel", "optional_slots": {"number_of_rooms": "dontcare"}},
            {"name": "ReserveHotel", "optional_slots": {"number_of_rooms": "1"}},
        ],
        "slots": [],
    },
}


def user(
    text: str, service: str, state: dict[str, list[str]], informs: dict[str, str] | None = None
) -> dict[str, Any]:
    """A user turn; ``informs``: slot -> canonical value of what this utterance says."""
    actions = [
        {"act": "INFORM", "slot": slot, "values": state[slot][:1], "canonical_values": [canon]}
        for slot, canon in (informs or {}).items()
    ]
    frame = {
        "service": service,
        "actions": actions,
        "slots": [],
        "state": {"active_intent": "X", "requested_slots": [], "slot_values": state},
    }
    return {"speaker": "USER", "utterance": text, "frames": [frame]}


def system(text: str, service: str, call: tuple[str, dict[str, str]] | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"service": service, "actions": [], "slots": []}
    if call:
        frame["service_call"] = {"method": call[0], "parameters": call[1]}
    return {"speaker": "SYSTEM", "utterance": text, "frames": [frame]}


FLIGHT = parse_dialogue(
    {
        "dialogue_id": "t_flight",
        "services": ["Flights_3"],
        "turns": [
            user(
                "A one way flight from Vancouver to Seattle on March 3rd, please.",
                "Flights_3",
                {
                    "origin_city": ["Vancouver"],
                    "destination_city": ["Seattle"],
                    "departure_date": ["March 3rd"],
                },
                {"departure_date": "2019-03-03"},
            ),
            system(
                "Air Canada at 4:20 am.",
                "Flights_3",
                (
                    "SearchOnewayFlight",
                    {
                        "origin_city": "Vancouver",
                        "destination_city": "Seattle",
                        "departure_date": "2019-03-03",
                    },
                ),
            ),
        ],
    }
)
HOTEL = parse_dialogue(
    {
        "dialogue_id": "t_hotel",
        "services": ["Hotels_4"],
        "turns": [
            user("Find me a hotel in London.", "Hotels_4", {"location": ["London"]}),
            system("45 Park Lane is a 5 star hotel.", "Hotels_4", ("SearchHotel", {"location": "London"})),
            user(
                "Book it for 3 days from March 7th.",
                "Hotels_4",
                {"location": ["London"], "check_in_date": ["March 7th"], "stay_length": ["3"]},
                {"check_in_date": "2019-03-07", "stay_length": "3"},
            ),
            system("One room at 45 Park Lane from March 7th for 3 days?", "Hotels_4"),
            user(
                "Yes.",
                "Hotels_4",
                {"location": ["London"], "check_in_date": ["March 7th"], "stay_length": ["3"]},
            ),
            system(
                "Booked.",
                "Hotels_4",
                (
                    "ReserveHotel",
                    {
                        "location": "London",
                        "check_in_date": "2019-03-07",
                        "stay_length": "3",
                        "number_of_rooms": "1",
                        "place_name": "45 Park Lane",
                    },
                ),
            ),
        ],
    }
)


@pytest.fixture(scope="module")
def places() -> Places:
    return Places(LocationCatalogue.load())


def record(
    turn: int,
    text: str,
    calls: list[dict[str, Any]],
    missing: dict[str, list[str]] | None = None,
    trip: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "turn": turn,
        "utterance": text,
        "route": {"tools": [], "missing": missing or {}},
        "chat": {"text": "", "tool_calls": calls},
        "chat_ms": 50.0,
        "trip": trip or {},
    }


def flight_call(date: str) -> dict[str, Any]:
    params = {"origin": "YVR", "destination": "SEA", "departure_date": date}
    return {"name": "flight_search", "params": params}


def test_a_right_flight_call_scores_every_parameter_right(places: Places) -> None:
    score = score_dialogue(FLIGHT, [record(0, "…", [flight_call("2019-03-03")])], SCHEMA, REQUIRED, places)
    [turn] = score.turns
    assert turn.complete and turn.outcome == "called"
    assert turn.fields == {
        "origin": True,
        "destination": True,
        "departure_date": True,
        "return_date": True,  # a one-way search: none, as SGD's
        "adults": True,  # SGD's default, one passenger, is ours
        "cabin": True,
    }
    assert turn.all_right


def test_a_flight_call_on_the_wrong_date_fails(places: Places) -> None:
    score = score_dialogue(FLIGHT, [record(0, "…", [flight_call("2019-03-04")])], SCHEMA, REQUIRED, places)
    [turn] = score.turns
    assert turn.outcome == "called"
    assert turn.fields["departure_date"] is False and not turn.all_right
    summary = summarise([score])
    assert summary["params"]["all_right"] == 0.0
    assert summary["params"]["groups"]["dates"]["right"] == 0.5  # the return date is right: none


def test_no_call_where_sgd_called_is_scored_silent(places: Places) -> None:
    score = score_dialogue(FLIGHT, [record(0, "…", [])], SCHEMA, REQUIRED, places)
    assert [t.outcome for t in score.turns] == ["silent"]
    assert summarise([score])["complete"]["called"] == 0.0


def test_a_hotel_search_without_check_in_must_ask_for_it_then_search_once_given(places: Places) -> None:
    hotel = {"name": "hotel_search", "params": {"city": "London", "check_in": "2019-03-07", "nights": 3}}
    records = [
        record(0, "Find me a hotel in London.", [], {"hotel_search": ["check_in"]}),
        record(
            2,
            "Book it for 3 days from March 7th.",
            [hotel],
            trip={"destination": "LON", "destination_name": "London"},
        ),
        record(4, "Yes.", [hotel], trip={"destination": "CYA", "destination_name": "Les Cayes"}),
    ]
    score = score_dialogue(HOTEL, records, SCHEMA, REQUIRED, places)
    search, booking = score.turns
    assert (search.complete, search.missing, search.outcome) == (False, ["check_in"], "asks exactly")
    assert (booking.kind, booking.turn, booking.outcome) == ("booking", 2, "called")
    assert booking.expected == {"city": "London", "check_in": "2019-03-07", "nights": 3, "rooms": 1}
    assert booking.all_right
    # Searching again when SGD books is an extra call; a place SGD never mentions is spurious.
    assert [(x["turn"], x["reason"]) for x in score.extra] == [(4, "SGD booked")]
    assert [(p["code"], p["turn"]) for p in score.spurious] == [("CYA", 4)]


def test_a_search_that_guesses_the_check_in_is_not_asking(places: Places) -> None:
    guessed = {"name": "hotel_search", "params": {"city": "LON", "check_in": "2019-03-01"}}
    score = score_dialogue(
        HOTEL, [record(0, "Find me a hotel in London.", [guessed])], SCHEMA, REQUIRED, places
    )
    assert score.turns[0].outcome == "calls (guessed)"
    asks_more = score_dialogue(
        HOTEL, [record(0, "…", [], {"hotel_search": ["check_in", "city"]})], SCHEMA, REQUIRED, places
    )
    assert asks_more.turns[0].outcome == "asks more"


def test_the_map_covers_a_schema_and_names_what_it_does_not() -> None:
    schema: dict[str, dict[str, Any]] = {
        "Hotels_4": {"intents": [{"name": "SearchHotel"}], "slots": [{"name": "location"}, {"name": "pool"}]},
        "Trains_1": {"intents": [], "slots": []},
    }
    assert unmapped(schema) == ["slot Hotels_4.pool", "service Trains_1"]
    assert [e.tool for e in expectations(HOTEL, SCHEMA, REQUIRED)] == ["hotel_search", "hotel_search"]
    with pytest.raises(ValueError, match="test split"):
        load_dialogues("test")
