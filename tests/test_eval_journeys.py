"""The journeys-dev scorer (scripts/journey_scoring.py) on hand-written answers: no service, the real
airport and city tables."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from scripts.journey_scoring import (
    PlaceTables,
    norm_place,
    place_matches,
    score_journey,
    score_turn,
    summarise,
)

TODAY = dt.date(2031, 3, 14)
GUIDED = ("San Francisco", "Mexico City", "New York", "Lisbon", "Tokyo", "Berlin", "Paris", "Lima")


@pytest.fixture(scope="module")
def tables() -> PlaceTables:
    return PlaceTables.load()


def call(name: str, error: str | None = None, **params: Any) -> dict[str, Any]:
    return {"name": name, "params": params, "error": error}


def guide(city: str, section: str | None = None) -> dict[str, Any]:
    return {"kind": "document", "title": f"{city} City Guide", "section": section, "excerpt": "..."}


def hotel(name: str, price: str) -> dict[str, Any]:
    excerpt = (
        f"{name} (PAR), 2031-05-02 to 2031-05-05 (3 nights, 1 adult): {price} EUR total, about 1 a night."
    )
    return {"kind": "hotel_offer", "title": name, "excerpt": excerpt}


def turn(expect: dict[str, Any], calls=(), sources=(), text="", missing=None, status=200) -> dict[str, Any]:
    chat = {"text": text, "tool_calls": list(calls), "sources": list(sources)}
    return {"expect": expect, "status": status, "chat": chat, "missing": missing}


def verdict(t: dict[str, Any], tables: PlaceTables, history=()) -> str | None:
    return score_turn(t, list(history), TODAY, tables, GUIDED)


# Values.


def test_dates_month_day_and_relative(tables: PlaceTables) -> None:
    e = {"tool": "flight_search", "params": {"departure_date": "04-09", "return_date": {"rel": 10}}}
    right = turn(e, [call("flight_search", departure_date="2031-04-09", return_date="2031-03-24")])
    assert verdict(right, tables) is None
    wrong = turn(e, [call("flight_search", departure_date="2032-04-10", return_date="2031-03-25")])
    reason = verdict(wrong, tables)
    assert "departure_date 04-10 != 04-09" in reason
    assert "return_date 2031-03-25 != 2031-03-24 (today+10)" in reason
    missing = turn(e, [call("flight_search", departure_date="2031-04-09")])
    assert "return_date missing" in verdict(missing, tables)


def test_place_normal_form() -> None:
    assert norm_place("Sydney, NSW") == "sydney"
    assert norm_place("Portland, Maine") == "portland"
    assert norm_place("Washington D.C.") == "washington"
    assert norm_place("São Paulo") == "sao paulo"
    assert norm_place("NYC") == norm_place("New York City") == "new york"
    assert norm_place("Rio") == "rio de janeiro"
    assert norm_place("Saint-Denis") == "saint denis"


@pytest.mark.parametrize(
    ("want", "got", "same"),
    [
        ("London", "LHR", True),  # the airport's city in the IATA table
        ("London", "LON", True),  # a metropolitan code
        ("London", "London, UK", True),
        ("London", "MAN", False),
        (["Tokyo", "Shinjuku"], "TYO", True),
        (["Tokyo", "Shinjuku"], "Shinjuku", True),
        ("Washington", "Washington DC", True),
        ("Washington", "IAD", True),
        ("Mexico City", "CDMX", True),
        ("Sao Paulo", "GRU", True),
        ("PWM", "PWM", True),  # an expected code pins one place
        ("PWM", "Portland, Maine", True),
        ("PWM", "PDX", False),
        ("PWM", "Portland", False),
        ("Portland", "PDX", True),  # a name cannot tell the Portlands apart
        ("Paris", None, False),
    ],
)
def test_places(tables: PlaceTables, want: Any, got: Any, same: bool) -> None:
    assert place_matches(want, got, tables) is same


def test_hotel_stay_as_check_out_or_nights(tables: PlaceTables) -> None:
    by_range = {
        "tool": "hotel_search",
        "params": {"city": "Berlin", "check_in": "06-02", "check_out": "06-07"},
    }
    by_length = {"tool": "hotel_search", "params": {"city": "Berlin", "check_in": "06-02", "nights": 5}}
    stay = call("hotel_search", city="BER", check_in="2031-06-02", check_out="2031-06-07", nights=5)
    assert verdict(turn(by_range, [stay]), tables) is None
    assert verdict(turn(by_length, [stay]), tables) is None
    short = call("hotel_search", city="Berlin", check_in="2031-06-02", check_out="2031-06-06", nights=4)
    assert verdict(turn(by_range, [short]), tables) == "hotel_search check_out 06-06 != 06-07"
    assert verdict(turn(by_length, [short]), tables) == "hotel_search nights 4 != 5"


def test_tool_calls_errors_absent_and_best_call(tables: PlaceTables) -> None:
    e = {"tool": "flight_search", "params": {"destination": "Paris"}, "absent": ["return_date"]}
    assert verdict(turn(e), tables) == "no flight_search call (no tool called; said nothing)"
    assert verdict(turn(e, [call("hotel_search", city="Paris")]), tables) == (
        "no flight_search call (called hotel_search)"
    )
    failed = call("flight_search", error="provider_unavailable", destination="PAR")
    assert verdict(turn(e, [failed]), tables) == "flight_search failed: provider_unavailable"
    round_trip = call("flight_search", destination="CDG", return_date="2031-05-01")
    assert (
        verdict(turn(e, [round_trip]), tables) == "flight_search return_date set (2031-05-01), expected none"
    )
    one_way = call("flight_search", destination="CDG", return_date=None)
    assert verdict(turn(e, [call("flight_search", destination="CDG", return_date="")]), tables) is None
    assert verdict(turn(e, [round_trip, one_way]), tables) is None  # one right call is enough


def test_weather_day_in_the_forecast_window(tables: PlaceTables) -> None:
    e = {"tool": "weather_forecast", "params": {"city": "Lisbon", "day": {"rel": 3}}}
    assert verdict(turn(e, [call("weather_forecast", city="Lisbon")]), tables) is None  # today, 16 days
    late = call("weather_forecast", city="Lisbon", start_date="2031-03-18", days=5)
    assert "misses 2031-03-17 (today+3)" in verdict(turn(e, [late]), tables)


def test_numbers_and_cabin(tables: PlaceTables) -> None:
    e = {"tool": "flight_search", "params": {"adults": 2, "cabin": "PREMIUM_ECONOMY"}}
    assert verdict(turn(e, [call("flight_search", adults="2", cabin="premium_economy")]), tables) is None
    kids = {"tool": "hotel_search", "params": {"children": 0}}
    assert verdict(turn(kids, [call("hotel_search", children=0)]), tables) is None
    assert verdict(turn(kids, [call("hotel_search")]), tables) == "hotel_search children missing (want 0)"
    assert verdict(turn(e, [call("flight_search", adults=1, cabin="ECONOMY")]), tables) == (
        "flight_search adults 1 != 2; cabin ECONOMY != PREMIUM_ECONOMY"
    )


# Answers.


def test_guide_city_sections_and_forbidden_tools(tables: PlaceTables) -> None:
    e = {"guide": "Lisbon", "sections": ["Neighbourhoods"]}
    topic = {"kind": "document", "title": "Where to Stay", "section": "Lisbon"}
    assert verdict(turn(e, sources=[topic, guide("Lisbon", "Neighbourhoods > Alfama")]), tables) is None
    assert verdict(turn(e, sources=[guide("Paris", "Neighbourhoods")]), tables) == (
        "cited Paris guide, expected Lisbon"
    )
    assert verdict(turn(e, sources=[topic]), tables) == "no Lisbon guide cited (cited Where to Stay)"
    assert verdict(turn(e, sources=[guide("Lisbon", "Sights")]), tables) == (
        "Lisbon guide sections [Sights] lack Neighbourhoods"
    )
    searched = turn(e, [call("hotel_search", city="LIS")], [guide("Lisbon", "Neighbourhoods")])
    assert verdict(searched, tables) == "called hotel_search"
    weather = {"guide": "Lisbon", "sections": None, "forbid_tools": ["weather_forecast"]}
    assert verdict(turn(weather, [call("weather_forecast")], [guide("Lisbon")]), tables) == (
        "called weather_forecast"
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("**Day 1**\nA\n**Day 2**\nB\n**Day 3**\nC", None),
        ("**Día 1**\n**Dia 2**\n** DÍA 3 **", None),
        ("**Jour 1** **Jour 2** **Jour 3**", None),
        ("**Tag 1** **Tag 2** **Giorno 3**", None),
        ("**Day 1** **Day 2**", "day headings no Day 3 (want 1..3)"),
        ("**Day 1** **Day 2** **Day 3** **Day 4**", "day headings extra Day 4 (want 1..3)"),
        ("Day 1: a. Day 2: b.", 'no **Day N** headings (said "Day 1: a. Day 2: b.")'),
        ("**Day 1: Asakusa** **Day 2** **Day 3**", "day headings no Day 1 (want 1..3)"),
    ],
)
def test_plan_day_headings(tables: PlaceTables, text: str, reason: str | None) -> None:
    e = {"plan": "Tokyo", "days": 3}
    assert verdict(turn(e, sources=[guide("Tokyo")], text=text), tables) == reason


def test_plan_needs_the_city_guide(tables: PlaceTables) -> None:
    e = {"plan": "Tokyo", "days": 1}
    assert verdict(turn(e, sources=[], text="**Day 1**"), tables) == 'no Tokyo guide cited (said "**Day 1**")'


def test_ask_reads_the_route_preview(tables: PlaceTables) -> None:
    e = {"ask": "flight_search", "missing": ["origin", "departure_date"]}
    exact = {"flight_search": ["departure_date", "origin"]}
    assert verdict(turn(e, missing=exact), tables) is None
    less = turn(e, missing={"flight_search": ["origin"]})
    assert verdict(less, tables) == "route missing[flight_search] = origin, want departure_date, origin"
    called = turn(e, [call("flight_search")], missing=exact)
    assert verdict(called, tables) == "called flight_search"


def test_no_guide_and_none(tables: PlaceTables) -> None:
    e = {"no_guide": "Cusco", "allow_guides": ["Lima"]}
    assert verdict(turn(e, sources=[guide("Lima")], text="No guide for Cusco yet."), tables) is None
    wrong = turn(e, sources=[guide("Tokyo")], text="Here is what I know.")
    assert verdict(wrong, tables) == "text does not name Cusco; cited Tokyo guide for Cusco (no guide)"
    assert verdict(turn({"none": True}), tables) is None
    assert verdict(turn({"none": True}, [call("hotel_search")]), tables) == "called hotel_search"


def test_any_of(tables: PlaceTables) -> None:
    e = {"any_of": [{"guide": "Paris", "sections": None}, {"none": True}]}
    assert verdict(turn(e), tables) is None
    assert verdict(turn(e, sources=[guide("Paris")]), tables) is None
    reason = verdict(turn(e, [call("flight_search")], [guide("Lisbon")]), tables)
    assert (
        reason
        == "[guide] cited Lisbon guide, expected Paris; called flight_search | [none] called flight_search"
    )


def test_http_failure_is_wrong(tables: PlaceTables) -> None:
    t = turn({"none": True}, status=500) | {"error": "internal"}
    assert verdict(t, tables) == "chat HTTP 500: internal"


# Recall.

PARIS = {"tool": "hotel_search", "params": {"city": "Paris", "check_in": "05-02"}}
ROME = {"tool": "hotel_search", "params": {"city": "Rome", "check_in": "05-02"}}
A, B, C = hotel("Hotel A", "1,200.00"), hotel("Hotel B", "450.00"), hotel("Hotel C", "980.00")


def test_recall_base_search_is_the_latest_right_place(tables: PlaceTables) -> None:
    history = [
        turn(PARIS, [call("hotel_search", city="PAR")], [A, B]),
        turn(
            {"any_of": [{"guide": "Rome", "sections": None}, ROME]}, [call("hotel_search", city="LIS")], [C]
        ),
    ]
    recall = {"recall": "hotel_search", "pick": None}
    # The latest expected call is Rome's (inside any_of), and no call to Rome was made.
    assert verdict(turn(recall, sources=[C]), tables, history) == (
        "no earlier error-free hotel_search with city Rome to recall (earlier: city PAR; city LIS)"
    )
    history[1] = turn(ROME, [call("hotel_search", city="Rome")], [C])
    assert verdict(turn(recall, sources=[C]), tables, history) is None
    # Stale results of another city are wrong.
    assert verdict(turn(recall, sources=[A]), tables, history) == (
        "none of the 1 hotel_offers shown is from the base search (turn 1: city Rome)"
    )
    again = turn(recall, [call("hotel_search", city="Rome", check_in="2031-06-01")], [A])
    assert verdict(again, tables, history) == (
        "none of the 1 hotel_offers shown is from the base search (turn 1: city Rome)"
        " (searched again: city Rome 2031-06-01)"
    )


def test_recall_cheapest_and_other_searches(tables: PlaceTables) -> None:
    history = [turn(PARIS, [call("hotel_search", city="Paris")], [A, B, C])]
    cheapest = {"recall": "hotel_search", "pick": "cheapest"}
    assert verdict(turn(cheapest, sources=[B, A]), tables, history) is None
    same_price = hotel("Hotel A", "450.00")  # not the base search's offer: its price says 1,200.00
    assert "is not the base search's cheapest (450.0)" in verdict(
        turn(cheapest, sources=[A, B]), tables, history
    )
    assert "none of the 1" in verdict(turn(cheapest, sources=[same_price]), tables, history)
    flights = turn(cheapest, [call("flight_search")], [B])
    assert verdict(flights, tables, history) == "called flight_search (another booking search)"
    assert verdict(turn(cheapest, text="Which city?"), tables, history) == (
        'shows no hotel_offer (said "Which city?")'
    )
    failed = [turn(PARIS, [call("hotel_search", error="timeout", city="Paris")], [])]
    assert "no earlier error-free" in verdict(turn(cheapest, sources=[B]), tables, failed)


def test_score_journey_and_summary(tables: PlaceTables) -> None:
    turns = [
        turn(PARIS, [call("hotel_search", city="Paris", check_in="2031-05-02")], [A, B]),
        turn({"recall": "hotel_search", "pick": "cheapest"}, sources=[B]),
        turn({"none": True}, [call("flight_search")]),
    ]
    verdicts = score_journey(turns, TODAY, tables, GUIDED)
    assert verdicts == [None, None, "called flight_search"]
    records = [
        {"journey": "D1", "lang": "en", "expect": t["expect"], "ok": v is None}
        for t, v in zip(turns, verdicts, strict=True)
    ] + [{"journey": "D2", "lang": "fr", "expect": {"none": True}, "ok": True}]
    m = summarise(records)
    assert m["turns"] == {"right": 3, "turns": 4}
    assert m["journeys"] == {"right": 1, "turns": 2}
    assert m["by_kind"]["none"] == {"right": 1, "turns": 2}
    assert m["by_lang"]["fr"] == {"right": 1, "turns": 1}
    assert m["by_tool"] == {"hotel_search": {"right": 1, "turns": 1}}
