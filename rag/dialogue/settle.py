"""Each request the plan weighs, completed from the trip and then called or left waiting
(``settle``): dates that have passed or cannot be read are asked about, never sent; a forecast follows
the days asked about within its horizon (rag.dialogue.forecast); a number out of the tool's bounds is
said and asked again; a call that would only repeat the last one is left out. Pure."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rag.dialogue.actions import PlannedCall
from rag.dialogue.forecast import Climate, Window, asked_span, climate, fit, later_note, params_span
from rag.dialogue.plan_types import Request, ToolSpecs
from rag.dialogue.trip import ToolRequest, TripState, complete_params
from rag.i18n import message
from rag.routing.config import ToolRoute
from rag.routing.extracted import Slots
from rag.routing.slot_kinds import (
    DATE_SLOTS,
    FREE_PLACE_SLOTS,
    ONE_PLACE_SLOTS,
    PLACE_SLOTS,
    SlotKind,
)
from rag.tools.spec import ToolSpec


@dataclass(frozen=True, slots=True)
class Refusal:
    """What a tool's own check refuses in a call: the parameter to ask for again (None: its first
    required one) and the check's code ("stay_too_long")."""

    param: str | None
    code: str


# A tool's own check of a call's parameters, before it is made.
Check = Callable[[str, dict[str, Any]], list[Refusal]]


@dataclass
class Settled:
    """Each request called or left waiting: the calls, what waits and for which parameters, the tools
    whose dates have passed, and what is said about them."""

    calls: list[PlannedCall] = field(default_factory=list)
    waiting: dict[str, list[str]] = field(default_factory=dict)  # tool -> parameters to ask for
    pending: list[ToolRequest] = field(default_factory=list)  # the waiting searches, for the trip
    passed: dict[str, str] = field(default_factory=dict)  # tool -> a date of it that has passed
    questions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    climate: Climate | None = None


@dataclass(frozen=True, slots=True)
class Time:
    """What the plan knows of the time asked about: the message, the trip (with its dates even when
    begun), whether the trip's time is the message's, today and the language to speak."""

    slots: Slots
    trip: TripState
    about_trip: bool
    today: dt.date
    lang: str
    crowded: bool = False  # more places named than one search takes ("to Paris, Rome, Berlin, ...")


def settle(
    requests: list[Request],
    specs: ToolSpecs,
    unknown: list[str],
    unread: bool,
    time: Time,
    trip: TripState,
    check: Check | None = None,
) -> Settled:
    """Each request completed from ``trip``, then either a call or waiting for what it lacks.
    ``check``: the tool's own validation of a call's parameters; what it refuses is asked about."""
    out = Settled()
    pending, passed = out.pending, out.passed
    slots, today = time.slots, time.today
    # "la semana pasada" alone: a day that has passed, which no tool receives (the extractor kept it apart).
    said_past = slots.past_dates[0].first if slots.past_dates and not slots.dates else None
    kind = trip.trip_kind
    flags = {f for f, on in (("round_trip", kind == "round_trip"), ("one_way", kind == "one_way")) if on}
    for name, params, assumed, confidence, via in requests:
        route = specs.routes.get(name)
        if route is None or name in out.waiting or any(c.name == name for c in out.calls):
            continue
        # "a round trip": its return date is needed too; "one way": a return date is left out.
        required = [*route.required]
        required += [p for f in flags for p in route.required_if.get(f, []) if p not in required]
        excluded = {p for f in flags for p in route.excluded_if.get(f, [])}
        keep_out = frozenset(
            p
            for p, s in route.params.items()
            if (unknown and s in PLACE_SLOTS - FREE_PLACE_SLOTS)
            or ((unread or said_past) and s in DATE_SLOTS)
            or p in excluded
        )
        params = {p: v for p, v in params.items() if p not in excluded}
        spec = specs.declared.get(name)
        from_trip = {*required, *(spec.from_trip if spec else ())}
        completed, taken = complete_params(params, route.params, from_trip, trip, keep_out=keep_out)
        gaps = [p for p in required if completed.get(p) in (None, "")]
        dates = [p for p, s in route.params.items() if s in DATE_SLOTS]
        past = [p for p in _date_params(route, completed) if _before(completed[p], today)]
        if past:
            # Asked again, never sent: the tool would refuse it, and the trip's dates are not the answer.
            passed[name] = str(completed[past[0]])
            gaps += [p for p in _start_params(route) if p not in gaps] or past
            for p in _date_params(route, completed):
                completed.pop(p, None)
        elif dates and (said_past or unread) and not any(p in completed for p in dates):
            # A date the traveller gave that cannot be used: asked about, never replaced by "today".
            if said_past:
                passed[name] = said_past.isoformat()
            gaps += [p for p in _start_params(route) or dates[:1] if p not in gaps]
        window = _window(spec, route)
        if not gaps and window is not None:
            timed = _forecast(completed, time, out, window, route)
            if out.climate is not None and out.climate.tool is None:
                out.climate = dataclasses.replace(out.climate, tool=name)
            if timed is None:
                continue  # beyond the horizon: the note and the guides' climate answer instead
            if isinstance(timed, str):
                passed[name] = timed
                gaps.append(window.start)
                completed.pop(window.start, None)
            else:
                if _from_trip(completed, time, window) and window.start in timed:
                    taken.append(window.start)
                completed = timed
        for p, low, high in _out_of_range(spec, completed):
            # "45 nights": the tool would refuse it; said, and asked for again.
            value = completed.pop(p)
            out.questions.append(
                message(
                    time.lang,
                    "out_of_range",
                    param=p.replace("_", " ").capitalize(),
                    low=low,
                    high=high,
                    value=value,
                )
            )
            gaps += [p] if p not in gaps else []
        if time.crowded:
            for p, s in route.params.items():
                if s in ONE_PLACE_SLOTS and p in params:
                    completed.pop(p, None)  # one of many places named: which one is the traveller's to say
                    gaps += [p] if p not in gaps else []
        if not gaps and check is not None:
            for refusal in check(name, completed):
                # Refused by the tool ("a stay can be at most 30 nights"): said and asked, never sent.
                why = message(time.lang, f"refused.{refusal.code}")
                what = specs.declared.label(name, time.lang)
                out.questions.append(message(time.lang, "refused_dates", what=what, why=why))
                param = refusal.param or next((p for p in route.required if p in completed), None)
                if param is not None:
                    completed.pop(param, None)
                    if route.params.get(param) == SlotKind.END_DATE:
                        for p, s in route.params.items():
                            if s == SlotKind.NIGHTS:
                                completed.pop(p, None)
                    gaps += [param] if param not in gaps else []
        if gaps:
            out.waiting[name] = gaps
            pending.append(ToolRequest(name=name, params=completed))
        elif _repeats(name, params, completed, via, trip):
            continue  # "What's the address of that hotel?": a question about the results shown, not a search
        else:
            out.calls.append(PlannedCall(name, completed, [*assumed, *taken], confidence, via))
    return out


def _out_of_range(spec: ToolSpec | None, params: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """The whole-number parameters outside the bounds the tool's parameter model declares, with them."""
    out: list[tuple[str, Any, Any]] = []
    if spec is None:
        return out
    for p, value in params.items():
        field = spec.params.model_fields.get(p)
        if field is None or not isinstance(value, int) or isinstance(value, bool):
            continue
        low = next((m.ge for m in field.metadata if hasattr(m, "ge")), None)
        high = next((m.le for m in field.metadata if hasattr(m, "le")), None)
        if (low is not None and value < low) or (high is not None and value > high):
            out.append((p, low, high))
    return out


def _repeats(name: str, said: dict[str, Any], completed: dict[str, Any], via: str, trip: TripState) -> bool:
    """Whether a tool the router picked from the message's words would only repeat the last call: the
    message names nothing new for it and the conversation completes it to the very same parameters."""
    if via not in ("semantic", "keyword", "llm", "conversation") or said:
        return False  # a message that says the search itself again wants its results again
    last = next((c.params for c in trip.last_calls or [] if c.name == name), None)
    if last is None or set(last) != set(completed):
        return False
    # A place may be written as its code once and its name the next time: the trip knows both.
    same = [{trip.destination, trip.destination_name}, {trip.origin, trip.origin_name}]

    def equal(a: Any, b: Any) -> bool:
        return a == b or any(a in s and b in s for s in same if None not in s)

    return all(equal(last[p], completed[p]) for p in last) and all(
        equal(last.get(p), v) for p, v in said.items()
    )


def _window(spec: ToolSpec | None, route: ToolRoute) -> Window | None:
    """A tool whose results reach only so far ahead (a forecast), with its first-day and count
    parameters as its slots name them; None for any other tool."""
    if spec is None or spec.horizon_days is None:
        return None
    start = next((p for p, s in route.params.items() if s == SlotKind.START_DATE), None)
    days = next((p for p, s in route.params.items() if s == SlotKind.FORECAST_DAYS), None)
    return Window(spec.horizon_days, start, days) if start else None


def _from_trip(params: dict[str, Any], time: Time, window: Window) -> bool:
    """Whether the forecast's days are the trip's, not the message's (then they are said as assumed)."""
    slots = time.slots
    return window.start not in params and slots.start_date is None and slots.month is None


def _forecast(
    params: dict[str, Any], time: Time, out: Settled, window: Window, route: ToolRoute
) -> dict[str, Any] | str | None:
    """The forecast's parameters for the days asked about; the days as said when they have passed; or
    None when they are beyond the horizon (then ``out`` gets the note and the climate to search)."""
    span = params_span(params, time.slots, window) or asked_span(
        time.slots, time.trip, trip_applies=time.about_trip, today=time.today
    )
    timed = fit(params, span, time.today, time.lang, window)
    if timed.later is not None:
        out.notes.append(later_note(timed.later, time.lang, window.horizon))
        place = next((params[p] for p, s in route.params.items() if s in PLACE_SLOTS and p in params), "")
        out.climate = climate(timed.later, str(place))
        return None
    if timed.passed is not None:
        return timed.passed
    return timed.params


def _date_params(route: ToolRoute, params: Mapping[str, Any]) -> list[str]:
    dated = {p for p, s in route.params.items() if s in DATE_SLOTS}
    return [p for p in params if p in dated]


def _start_params(route: ToolRoute) -> list[str]:
    return [p for p, s in route.params.items() if s == SlotKind.START_DATE and p in route.required]


def _before(value: Any, today: dt.date) -> bool:
    if isinstance(value, str):
        try:
            value = dt.date.fromisoformat(value)
        except ValueError:
            return False
    return isinstance(value, dt.date) and value < today
