"""Whether a forecast can answer for the days asked about, and what to say when it cannot yet. Pure.

A forecast reaches its tool's ``horizon_days`` (a ``Window``): today and the days following (16 in all
for Open-Meteo's range, and what its parameter model accepts). The window names the tool's parameters
for the first day and the number of days, as its declaration's slots say. The days asked about come from the message ("tomorrow", "May 5-9",
"in April") or else from the trip ("what's the weather there?" after "Tokyo, April 10-14"):

- within the horizon, the forecast covers them: it starts on their first day (today if they have
  begun) and lasts as many days as they do (a week when only the first is known), as far as the
  horizon allows;
- further ahead, no forecast is asked for: the answer says when it becomes available and gives the
  guides' climate for that month instead (``Climate``, a query for the guides);
- days that have passed are refused; a month that is this month is forecast from today, as a
  question without a date is.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from rag.dialogue.trip import TripState
from rag.i18n import message
from rag.routing.extract import Slots
from rag.routing.months import ENGLISH_MONTHS, last_day

DEFAULT_DAYS = 7  # a trip whose length is unknown, as the forecast tool's own default


@dataclass(frozen=True, slots=True)
class Window:
    """A forecast tool as this module needs it: how many days ahead it reaches, and the names of its
    parameters for the first day and the number of days (None when it takes no count)."""

    horizon: int
    start: str
    days: str | None


@dataclass(frozen=True, slots=True)
class Climate:
    """The guides' climate for ``month`` (1-12) at ``place``, for when the forecast cannot answer yet:
    the chat searches the guides with ``query`` (English, as the guides are)."""

    month: int
    place: str
    query: str
    tool: str | None = None  # the forecast asked for, which cannot answer yet

    def to_json(self) -> dict[str, Any]:
        return {"month": self.month, "place": self.place, "query": self.query}


@dataclass(frozen=True, slots=True)
class Span:
    """The days asked about: from ``first`` to ``last``, or a whole month (``month``); ``days`` is a
    count the message gave ("the next 3 days", a weekend's 2)."""

    first: dt.date
    last: dt.date
    month: bool = False
    days: int | None = None


@dataclass(frozen=True, slots=True)
class Fit:
    """One of: the forecast's parameters (``params``), the days have passed (``passed``, as said to
    the traveller), or they are beyond the horizon (``later``)."""

    params: dict[str, Any] | None = None
    passed: str | None = None
    later: Span | None = None


def asked_span(slots: Slots, trip: TripState, *, trip_applies: bool, today: dt.date) -> Span | None:
    """The days a weather question is about; None for "from today" (no date, or "the next 3 days").

    ``trip_applies``: the question is about the trip's place (it names none, or the trip's), so the
    trip's dates or month are its time. A trip's days that have all passed are not (a stale trip).
    """
    if slots.start_date is not None:
        return _days(slots.start_date, slots.end_date, slots.forecast_days)
    if slots.month is not None:
        return Span(slots.month, last_day(slots.month), month=True)
    if slots.forecast_days is not None or not trip_applies:
        return None
    if trip.start_date is not None:
        end = trip.end_date
        if end is None and trip.nights:
            end = trip.start_date + dt.timedelta(days=trip.nights)
        span = _days(trip.start_date, end, None)
        return span if span.last >= today else None
    if trip.month is not None and last_day(trip.month) >= today:
        return Span(trip.month, last_day(trip.month), month=True)
    return None


def params_span(params: dict[str, Any], slots: Slots, window: Window) -> Span | None:
    """The days a forecast call's own first day and count cover (a follow-up's, a command's)."""
    try:
        first = dt.date.fromisoformat(str(params[window.start]))
    except (KeyError, ValueError):
        return None
    count = params.get(window.days) if window.days else None
    days = count if isinstance(count, int) else None
    end = slots.end_date if slots.start_date == first else None
    return _days(first, end, days)


def _days(first: dt.date, end: dt.date | None, days: int | None) -> Span:
    if end is not None and end > first and days is None:
        return Span(first, end)
    return Span(first, first + dt.timedelta(days=(days or DEFAULT_DAYS) - 1), days=days)


def fit(params: dict[str, Any], span: Span | None, today: dt.date, lang: str, window: Window) -> Fit:
    """The forecast call for ``span``, or why there is none (``passed``, ``later``)."""
    if span is None:
        return Fit(params=params)
    if span.last < today:
        return Fit(passed=month_year(span.first, lang) if span.month else span.first.isoformat())
    if span.month and span.first <= today:
        # This month: the forecast from today, as for a question without a date.
        return Fit(params={k: v for k, v in params.items() if k != window.start})
    if (span.first - today).days >= window.horizon:
        return Fit(later=span)
    start = max(span.first, today)
    allowed = window.horizon - (start - today).days
    wanted = span.days or (span.last - start).days + 1
    timed = {**params, window.start: start.isoformat()}
    if window.days:
        timed[window.days] = max(1, min(wanted, allowed))
    return Fit(params=timed)


def available_on(span: Span, horizon: int) -> dt.date:
    """The first day a forecast reaching ``horizon`` days reaches ``span``'s first day."""
    return span.first - dt.timedelta(days=horizon - 1)


def later_note(span: Span, lang: str, horizon: int) -> str:
    """ "The forecast for 10–14 April 2027 becomes available around 26 March 2027; forecasts reach 16
    days ahead. Here is the climate the guides give for April." in ``lang``."""
    when = month_year(span.first, lang) if span.month else date_span(span.first, span.last, lang)
    return message(
        lang,
        "forecast_later",
        when=when,
        available=full_date(available_on(span, horizon), lang),
        horizon=horizon,
        month=month_name(span.first.month, lang),
    )


def climate(span: Span, place: str) -> Climate:
    """The guides' climate for the month ``span`` begins in, at ``place``."""
    month = ENGLISH_MONTHS[span.first.month - 1].capitalize()
    return Climate(span.first.month, place, f"{place} weather climate in {month}")


def month_name(month: int, lang: str) -> str:
    return message(lang, "month_names").split()[month - 1]


def full_date(day: dt.date, lang: str) -> str:
    return message(lang, "date_full", day=day.day, month=month_name(day.month, lang), year=day.year)


def month_year(day: dt.date, lang: str) -> str:
    return message(lang, "month_year", month=month_name(day.month, lang), year=day.year)


def date_span(first: dt.date, last: dt.date, lang: str) -> str:
    """ "10–14 April 2027", "30 April 2027 – 2 May 2027", or one day, in ``lang``."""
    if first == last:
        return full_date(first, lang)
    if (first.year, first.month) == (last.year, last.month):
        name = month_name(first.month, lang)
        return message(lang, "date_span_month", first=first.day, last=last.day, month=name, year=first.year)
    return message(lang, "date_span", first=full_date(first, lang), last=full_date(last, lang))
