"""The deterministic extractor: dates against a fixed today, places with roles, travellers, budgets. Pure."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectors.locations import LocationCatalogue
from rag.routing.dates import find_dates
from rag.routing.extract import extract

TODAY = dt.date(2026, 11, 21)  # a Saturday
CAT = LocationCatalogue.load()
MONTH_NAMES = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
future = st.dates(min_value=TODAY, max_value=TODAY + dt.timedelta(days=360))


@given(future)
@settings(max_examples=200)
def test_written_dates_round_trip(day: dt.date) -> None:
    month = MONTH_NAMES[day.month - 1]
    forms = [
        day.isoformat(),
        f"{month} {day.day}, {day.year}",
        f"{day.day} {month} {day.year}",
        f"{day.month}/{day.day}/{day.year}",
        f"on {month[:3]} {day.day}th {day.year}",
    ]
    for text in forms:
        found = find_dates(f"fly on {text} please", TODAY)
        assert [d.first for d in found] == [day], text


@given(future)
@settings(max_examples=100)
def test_dates_without_a_year_are_the_next_one(day: dt.date) -> None:
    found = find_dates(f"{MONTH_NAMES[day.month - 1]} {day.day}", TODAY)
    assert found[0].first == day or (day.month, day.day) == (2, 29)


@given(st.integers(min_value=1, max_value=60))
def test_in_n_days(n: int) -> None:
    assert find_dates(f"in {n} days", TODAY)[0].first == TODAY + dt.timedelta(days=n)


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("tomorrow", "2026-11-22", None),
        ("day after tomorrow", "2026-11-23", None),
        ("next friday", "2026-11-27", None),
        ("this weekend", "2026-11-21", "2026-11-23"),
        ("next week", "2026-11-23", None),
        ("March 3", "2027-03-03", None),
        ("12/08", "2026-12-08", None),
        ("from July 10 for 3 nights", "2027-07-10", None),
        ("July 10-15", "2027-07-10", "2027-07-15"),
        ("from july 10 to july 15", "2027-07-10", "2027-07-15"),
        ("between 2 may and 6 may", "2027-05-02", "2027-05-06"),
        ("on the 3rd", "2026-12-03", None),
    ],
)
def test_date_phrases(text: str, first: str, last: str | None) -> None:
    d = find_dates(text, TODAY)[0]
    assert d.first.isoformat() == first and (d.last.isoformat() if d.last else None) == last


def test_day_first_order_and_words_that_are_not_dates() -> None:
    assert find_dates("12/08", TODAY, "DMY")[0].first == dt.date(2027, 8, 12)
    assert find_dates("I may go to the sun and sea", TODAY) == []
    assert find_dates("31/02", TODAY, "DMY") == []  # no such day


@given(st.sampled_from(CAT.cities), st.sampled_from(CAT.cities))
@settings(max_examples=100)
def test_from_a_to_b_roles(a, b) -> None:  # type: ignore[no-untyped-def]
    if a.city_code == b.city_code:
        return
    for text in (
        f"flights from {a.name} to {b.name}",
        f"to {b.name} from {a.name}",
        f"{a.city_code} {b.city_code}",
    ):
        slots = extract(text, CAT, TODAY)
        assert slots.origin and slots.origin.place.city_code == a.city_code, text
        assert slots.destination and slots.destination.place.city_code == b.city_code, text


def test_slots_of_a_rich_message() -> None:
    s = extract(
        "we are 2 adults and 1 kid flying business, nonstop, NYC to Paris on June 2, under $1,500", CAT, TODAY
    )
    assert (s.origin.place.code, s.destination.place.code) == ("NYC", "PAR")  # type: ignore[union-attr]
    assert s.start_date == dt.date(2027, 6, 2)
    assert (s.adults, s.children, s.cabin, s.nonstop) == (2, 1, "BUSINESS", True)
    assert (s.max_price, s.currency) == (1500, "USD")


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("hotel in barcelonna", ["BCN"]),  # misspelt
        ("a nice hotel in Rome", ["ROM"]),  # "nice" is not Nice here
        ("three nights in Nice", ["NCE"]),
        ("hanoi's old quarter", ["HAN"]),
        ("budget 2000 NOK from Oslo", ["OSL"]),  # NOK is money, not an airport
        ("the sun and the sea", []),
    ],
)
def test_places(text: str, codes: list[str]) -> None:
    assert [p.place.code for p in extract(text, CAT, TODAY).places] == codes


def test_nights_and_budget_forms() -> None:
    assert extract("a room for 3 nights", CAT, TODAY).nights == 3
    assert extract("a hotel for a week", CAT, TODAY).nights == 7
    s = extract("max 300 euros", CAT, TODAY)
    assert (s.max_price, s.currency) == (300, "EUR")
    assert extract("for 3 nights", CAT, TODAY).max_price is None
