"""What the chat hands the dialogue's policy besides the router's decision, and what it does with a
recall. Pure.

- ``read_question_of``: the chat's reading of a question with the guides' vocabulary (the topics it
  asks about, the days of a plan it asks for, places weighed against each other);
- ``ParamsCheck``: each tool's own validation of a call, run before the call is made, so that what the
  tool would refuse (a stay of 45 nights, a return before the departure) is asked about instead;
- ``recall_about`` and ``picked``: the places and days a recalled search was about, and the result a
  recall picks first (the cheapest, the n-th shown).
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pydantic

from connectors.places import LocationCatalogue, Place
from rag.chat.plans import trip_days
from rag.chat.selection import is_comparison, read_question
from rag.dialogue import phrasing
from rag.dialogue.phrasing import Pick
from rag.dialogue.settle import Refusal
from rag.ingest.documents import norm
from rag.live.recall import PlaceAsked, RecallFocus, Role
from rag.routing.config import ToolRoute
from rag.routing.extracted import Slots
from rag.routing.slot_kinds import ONE_PLACE_SLOTS, START_SLOTS
from rag.store.base import Hit
from rag.tools.catalog import ToolCatalogue

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_DAY_UNIT = re.compile(
    r"\b(?:days?|d[ií]as?|jours?|tag(?:e|en)?|giorn[oi]|week-?ends?|fin de semana|wochenende|fim de semana|"
    r"fine settimana)\b",
    re.I,
)
# A tool's refusals that are the traveller's to settle, by the parameter to ask for again.
ASKED = {
    "return_before_departure": "return_date",
    "check_out_before_check_in": "check_out",
    "stay_too_long": "check_out",
    "nights_mismatch": "check_out",
    "date_too_far": None,
}


def read_question_of(text: str, places: Sequence[str], slots: Slots | None = None) -> dict[str, Any]:
    """The topics ``text`` asks about (those of its question first: "We bring two kids. Which area is a
    good base?" asks about areas), the days of a plan it asks for, and whether it compares places.
    ``slots``: the dates the extractor read, so that "in 3 days" is a day, not a plan's length."""
    sentences = [s for s in _SENTENCE.split(text) if s.strip()]
    asked = next((s for s in reversed(sentences) if s.rstrip().endswith("?")), None)
    first = read_question(asked, places).topics if asked is not None and len(sentences) > 1 else ()
    query = read_question(text, places)
    topics = tuple(dict.fromkeys([*first, *query.topics]))
    if not topics and query.months and phrasing.is_question(text) and not phrasing.recall_cue(text):
        topics = ("when",)  # "Is August good for a safari?": a month asked about is when to go
    days = trip_days(text, topics)
    relative = slots is not None and any(_DAY_UNIT.search(text[d.start : d.end]) for d in slots.dates)
    if days and relative and not phrasing.plan_cue(text):
        days = None  # "the weather in Hanoi in 3 days": a date counted in days, not a plan's length
    return {"topics": topics, "days": days, "compare": is_comparison(text, places)}


@dataclass(frozen=True)
class ParamsCheck:
    """A call's parameters held against its tool's parameter model, with the catalogue and ``today``
    the tool itself validates with."""

    tools: ToolCatalogue
    catalogue: LocationCatalogue
    today: dt.date

    def __call__(self, tool: str, params: dict[str, Any]) -> list[Refusal]:
        spec = self.tools.get(tool)
        if spec is None:
            return []
        try:
            spec.params.model_validate(params, context={"catalogue": self.catalogue, "today": self.today})
        except pydantic.ValidationError as exc:
            refused = []
            for error in exc.errors():
                code = str(error.get("type", ""))
                if code not in ASKED:
                    continue
                loc = [str(p) for p in error.get("loc", ()) if isinstance(p, str)]
                param = ASKED[code] or (loc[0] if loc else None)
                refused.append(Refusal(param if param in spec.params.model_fields else None, code))
            return refused
        return []


def recall_about(
    params: Mapping[str, Any], route: ToolRoute | None, catalogue: LocationCatalogue
) -> RecallFocus | None:
    """The places and days a search was about, as a recall matches stored results against them."""
    if route is None:
        return None
    places = []
    days: list[tuple[dt.date, dt.date]] = []
    for param, slot in route.params.items():
        value = params.get(param)
        if value in (None, ""):
            continue
        if slot in ONE_PLACE_SLOTS:
            place = catalogue.resolve(str(value))
            codes = frozenset({place.code, place.city_code}) if place else frozenset()
            places.append(PlaceAsked(codes, norm(place.city_name if place else str(value))))
        elif slot in START_SLOTS:
            try:
                day = dt.date.fromisoformat(str(value))
            except ValueError:
                continue
            days.append((day, day))
    focus = RecallFocus(tuple(places), (), tuple(days))
    return None if focus.empty else focus


def picked(hits: list[Hit], pick: Pick | None) -> list[Hit]:
    """``hits`` (in the order shown) with the one ``pick`` asks for first: the cheapest (then by price),
    the dearest, or the n-th shown (-1: the last)."""
    if pick == "cheapest":
        return sorted(hits, key=lambda h: (h.payload.get("price") is None, h.payload.get("price") or 0.0))
    if pick == "dearest":
        return sorted(hits, key=lambda h: -(h.payload.get("price") or 0.0))
    if isinstance(pick, int) and hits:
        at = pick - 1 if pick > 0 else len(hits) + pick
        if 0 <= at < len(hits):
            return [hits[at], *hits[:at], *hits[at + 1 :]]
    return hits


# How far a guided city may be from a place without a guide for its guide to say something of it.
NEAR_KM = 150.0
BIG_CITY = 1_000_000


def nearby(
    places: Sequence[Place], guides: Mapping[str, str], catalogue: LocationCatalogue
) -> dict[str, str]:
    """For each of ``places`` without a guide, smaller than a big city, the guided city within
    ``NEAR_KM`` of it, the nearest: ``norm`` place -> that city's name (Sintra -> Lisbon, Fushimi ->
    Kyoto, Niagara Falls -> Toronto; not Osaka -> Kyoto)."""
    out: dict[str, str] = {}
    for place in places:
        key = norm(place.city_name)
        if key in guides or key in out or place.population >= BIG_CITY:
            continue  # a big city is no other city's day trip: its own guide is what is missing
        best: tuple[float, str] | None = None
        for guided in _guided_places(tuple(sorted(guides)), catalogue):
            km = _km(place, guided)
            if km <= NEAR_KM and (best is None or km < best[0]):
                best = (km, guided.city_name)
        if best is not None:
            out[key] = best[1]
    return out


@functools.lru_cache(maxsize=8)
def _guided_places(names: tuple[str, ...], catalogue: LocationCatalogue) -> tuple[Place, ...]:
    found = (catalogue.resolve(n) for n in names)
    return tuple(p for p in found if p is not None)


def _km(a: Place, b: Place) -> float:
    """Great-circle distance in km."""
    la1, lo1, la2, lo2 = map(math.radians, (a.latitude, a.longitude, b.latitude, b.longitude))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(h))


def asked_about(slots: Slots | None) -> RecallFocus | None:
    """The places, countries and days a message names ("the flights you found for next Friday", "the
    hotels you found in Lisbon"), as the recall matches results against them; None when it names none."""
    if slots is None:
        return None
    # A role is the end of a route only when the message says so: "from London", "from London to
    # Lisbon"; of several places named otherwise ("to Lisbon or Porto") any may be either end.
    roles = len(slots.places) == 1 or slots.route_pair
    places = [
        PlaceAsked(
            frozenset({m.place.code, m.place.city_code}),
            norm(m.place.city_name),
            _role(m.role) if roles else None,
        )
        for m in slots.places
    ]
    # A name no catalogue knows: only a result placed by that very name is about it.
    places += [PlaceAsked(name=norm(name)) for name in slots.unknown_places]
    days = [(d.first, d.last or d.first) for d in (*slots.dates, *slots.past_dates)]
    if slots.month is not None:
        month = slots.month
        days.append((month, month.replace(day=calendar.monthrange(month.year, month.month)[1])))
    focus = RecallFocus(tuple(places), tuple(slots.countries), tuple(days))
    return None if focus.empty else focus


def _role(role: str | None) -> Role | None:
    return "origin" if role == "origin" else "destination" if role == "destination" else None
