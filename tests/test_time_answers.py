"""Time-aware answers: the forecast follows the days asked about (the message's or the trip's), a month
beyond the forecast's horizon gets the guides' climate and a note saying when the forecast comes, past
days are refused, and "this weekend" is the traveller's. Pure parts first, then through the real app (one
for the module: each test talks as its own user)."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from aiohttp.test_utils import TestClient

from rag.dialogue.forecast import Span, Window, available_on, date_span, fit, later_note
from rag.i18n import LANGUAGES, message
from rag.routing.dates import find_dates

# The weather tool as its declaration gives it: 16 days ahead, from start_date, for days.
WINDOW = Window(16, "start_date", "days")

pytestmark = pytest.mark.asyncio(loop_scope="module")
TODAY = dt.date(2026, 11, 21)  # a Saturday
MONTHS = "January February March April May June July August September October November December".split()


def day(d: dt.date) -> str:
    """As a traveller writes it: "December 1"."""
    return f"{MONTHS[d.month - 1]} {d.day}"


# --- pure: the forecast for the days asked about --------------------------------------------------------


@pytest.mark.parametrize(
    ("span", "params"),
    [
        (None, {"city": "Rome"}),  # no date: as today
        (
            Span(TODAY + dt.timedelta(days=3), TODAY + dt.timedelta(days=6)),
            {"start_date": "2026-11-24", "days": 4},
        ),
        (
            Span(TODAY + dt.timedelta(days=10), TODAY + dt.timedelta(days=20)),
            {"start_date": "2026-12-01", "days": 6},
        ),
        (
            Span(TODAY - dt.timedelta(days=2), TODAY + dt.timedelta(days=1)),
            {"start_date": "2026-11-21", "days": 2},
        ),
        (
            Span(TODAY + dt.timedelta(days=15), TODAY + dt.timedelta(days=15)),
            {"start_date": "2026-12-06", "days": 1},
        ),
        (Span(dt.date(2026, 11, 1), dt.date(2026, 11, 30), month=True), {"city": "Rome"}),  # this month
        (
            Span(dt.date(2026, 12, 1), dt.date(2026, 12, 31), month=True),
            {"start_date": "2026-12-01", "days": 6},
        ),
    ],
)
def test_the_forecast_covers_the_days_within_its_horizon(span: Span | None, params: dict[str, Any]) -> None:
    got = fit({"city": "Rome"}, span, TODAY, "en", WINDOW)
    assert got.params is not None and got.later is None and got.passed is None
    assert {k: v for k, v in got.params.items() if k != "city" or "start_date" not in params} == params
    if "start_date" in got.params:
        start = dt.date.fromisoformat(got.params["start_date"])
        assert (start - TODAY).days + got.params["days"] <= WINDOW.horizon  # what the tool accepts


def test_beyond_the_horizon_or_past_there_is_no_forecast() -> None:
    april = Span(dt.date(2027, 4, 10), dt.date(2027, 4, 14))
    assert fit({"city": "Tokyo"}, april, TODAY, "en", WINDOW).later == april
    assert fit(
        {}, Span(TODAY + dt.timedelta(days=16), TODAY + dt.timedelta(days=16)), TODAY, "en", WINDOW
    ).later
    assert fit({}, Span(dt.date(2025, 3, 1), dt.date(2025, 3, 1)), TODAY, "en", WINDOW).passed == "2025-03-01"
    month = Span(dt.date(2025, 4, 1), dt.date(2025, 4, 30), month=True)
    assert fit({}, month, TODAY, "es", WINDOW).passed == "abril de 2025"
    assert available_on(april, WINDOW.horizon) == dt.date(
        2027, 3, 26
    )  # the day the forecast reaches 10 April


def test_the_note_says_when_the_forecast_becomes_available_in_six_languages() -> None:
    april = Span(dt.date(2027, 4, 10), dt.date(2027, 4, 14))
    assert later_note(april, "en", WINDOW.horizon) == (
        "The forecast for 10–14 April 2027 becomes available around 26 March 2027; forecasts reach 16 days"
        " ahead. Here is the climate the guides give for April."
    )
    expected = {"es": "abril", "fr": "avril", "de": "April", "pt": "abril", "it": "aprile"}
    for lang, april_word in expected.items():
        note = later_note(april, lang, WINDOW.horizon)
        assert april_word in note and "2027" in note and "16" in note and "{" not in note, note
    assert date_span(dt.date(2027, 4, 30), dt.date(2027, 5, 2), "de") == "30. April 2027 – 2. Mai 2027"
    assert set(LANGUAGES) >= set(expected)


# --- through the real app -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client(shared_client: TestClient) -> TestClient:
    return shared_client


async def say(client: Any, user: str, text: str, **extra: Any) -> dict[str, Any]:
    resp = await client.post("/v1/chat", json={"user_id": user, "message": text, **extra})
    assert resp.status == 200, await resp.text()
    return dict(await resp.json())


def forecasts(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in body["tool_calls"] if c["name"] == "weather_forecast"]


def utc_today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


@pytest.mark.parametrize(
    ("lang", "going", "weather"),
    [
        ("en", "I'm going to Tokyo in {month}", "what's the weather there?"),
        ("es", "Voy a Tokio en {month}", "¿Qué tiempo hará en Tokio?"),
    ],
)
async def test_a_trip_months_ahead_gets_the_guides_climate_and_when_the_forecast_comes(
    client, lang: str, going: str, weather: str
) -> None:  # type: ignore[no-untyped-def]
    first = (utc_today() + dt.timedelta(days=100)).replace(day=1)  # always beyond the horizon
    name = message(lang, "month_names").split()[first.month - 1]
    user = f"ana-{lang}"
    await say(client, user, going.format(month=name))
    body = await say(client, user, weather)
    assert forecasts(body) == []  # no forecast of today's weather passed off as the trip's
    span = Span(first, first, month=True)
    assert later_note(span, lang, WINDOW.horizon) in body["text"]
    climate = [
        s for s in body["sources"] if s["id"] == "guides/tokyo" and "Best time" in str(s.get("section"))
    ]
    assert climate and f"[{climate[0]['n']}]" in body["text"], body
    session = await (await client.get(f"/v1/sessions/{user}")).json()
    assert session["trip"]["month"] == first.isoformat() and "start_date" not in session["trip"]


async def test_trip_dates_within_the_horizon_get_a_forecast_covering_them(client) -> None:  # type: ignore[no-untyped-def]
    start, end = utc_today() + dt.timedelta(days=3), utc_today() + dt.timedelta(days=6)
    await say(client, "ben", f"hotel in Lisbon from {day(start)} to {day(end)}")
    [call] = forecasts(await say(client, "ben", "what's the weather there?"))
    assert call["params"]["start_date"] == start.isoformat() and call["params"]["days"] == 4
    assert "start_date" in call["assumed"] and call.get("error") is None

    # Partly beyond the horizon: the forecast covers what it can.
    later, last = utc_today() + dt.timedelta(days=10), utc_today() + dt.timedelta(days=20)
    [call] = forecasts(await say(client, "cy", f"weather in Lisbon from {day(later)} to {day(last)}"))
    assert call["params"]["start_date"] == later.isoformat() and call["params"]["days"] == WINDOW.horizon - 10
    assert call.get("error") is None

    # No date: the forecast from today, as always.
    [call] = forecasts(await say(client, "dee", "weather in Lisbon"))
    assert call["params"]["start_date"] == utc_today().isoformat() and call.get("error") is None


PAST = [
    ("weather in Rome on 2025-03-01", "en"),
    ("weather in Rome last week", "en"),
    ("weather in Rome in March 2025", "en"),
    ("tiempo en Roma la semana pasada", "es"),
    ("qué tiempo hizo en Madrid el 12 de mayo de 2020", "es"),
    ("hotel in Rome from yesterday for 2 nights", "en"),
]


async def test_past_days_are_refused_never_sent(client) -> None:  # type: ignore[no-untyped-def]
    for i, (text, lang) in enumerate(PAST):
        body = await say(client, f"eve{i}", text)
        assert body["tool_calls"] == [], text
        passed = message(lang, "past_date", date="@").split("@")
        assert all(part.strip(" .") in body["text"] for part in passed if part.strip(" .")), body["text"]


async def test_years_ahead_get_the_climate_note_or_the_tools_refusal(client) -> None:  # type: ignore[no-untyped-def]
    body = await say(client, "fay", "weather in Lisbon in April 2031")
    assert forecasts(body) == [] and "becomes available around 17 March 2031" in body["text"]
    body = await say(client, "gus", "weather in Lisbon on 2031-04-10")
    assert forecasts(body) == [] and "The forecast for 10 April 2031 becomes available" in body["text"]
    body = await say(client, "hal", "flights from London to Paris on 2031-04-10")
    assert body["tool_calls"] == [] and "more than a year ahead" in body["text"]  # asked, never sent


async def test_this_weekend_is_the_travellers(client) -> None:  # type: ignore[no-untyped-def]
    for zone in ["Pacific/Kiritimati", "Pacific/Pago_Pago", "Europe/Lisbon"]:  # UTC+14, UTC-11, UTC+0/1
        resp = await client.post(
            "/v1/route", json={"message": "weather in Lisbon this weekend", "timezone": zone}
        )
        body = await resp.json()
        assert resp.status == 200, body
        local = dt.datetime.now(ZoneInfo(zone)).date()
        weekend = find_dates("this weekend", local)[0]
        [tool] = body["tools"]
        assert (tool["params"]["start_date"], tool["params"]["days"]) == (weekend.first.isoformat(), 2), zone


async def test_the_router_reads_dates_on_the_given_day(client) -> None:  # type: ignore[no-untyped-def]
    from rag.web import keys

    router = client.app[keys.ROUTER]
    wednesday = dt.date(2031, 1, 1)
    d = await router.route("weather in Lisbon this weekend", today=wednesday)
    [tool] = d.tools
    assert tool.params["start_date"] == "2031-01-04" and tool.params["days"] == 2
    d = await router.route("/weather Lisbon tomorrow", today=wednesday)
    assert d.tools[0].params["start_date"] == "2031-01-02"
