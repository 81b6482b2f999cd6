"""From extractor slots to tool parameters: which slot a parameter reads, and its value. Pure."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from connectors.places import PlaceMention
from rag.routing.config import ToolRoute
from rag.routing.extract import Slots
from rag.routing.slot_kinds import DATE_SLOTS, FREE_PLACE_SLOTS, PLACE_SLOTS

__all__ = ["DATE_SLOTS", "FREE_PLACE_SLOTS", "PLACE_SLOTS", "build_params", "place_mention", "slot_value"]

_LOOKUP = re.compile(
    r"\b(?:code|codes|airports?)\s+(?:for|of|in|at)\s+([^\W\d][\w' -]{1,40}?)(?:'s\b.*)?\s*\??$", re.I
)


def place_mention(slots: Slots, slot: str) -> PlaceMention | None:
    """The place mention a place slot takes its value from, if any."""
    if slot == "origin":
        return slots.origin
    if slot == "destination":
        return slots.destination
    if slot == "route_destination":
        return slots.destination if slots.origin else None
    if slot == "origin_or_place":
        return slots.origin or (slots.places[0] if len(slots.places) == 1 else None)
    if slot in ("place", "place_name", "place_text"):
        return slots.place
    return None


def slot_value(slots: Slots, name: str) -> Any:
    """The value of an extractor slot as a tool parameter (codes and ISO dates)."""
    if name == "origin":
        return slots.origin.place.code if slots.origin else None
    if name == "destination":
        return slots.destination.place.code if slots.destination else None
    if name == "route_destination":
        return slots.destination.place.code if slots.destination and slots.origin else None
    if name == "origin_or_place":
        only = slots.places[0] if len(slots.places) == 1 else None
        p = slots.origin or only
        return p.place.code if p else None
    if name == "place":
        return slots.place.place.code if slots.place else None
    if name == "place_name":
        if slots.place:
            return slots.place.place.city_name
        # The forecast takes any place its provider can geocode, known to our catalogue or not.
        return slots.unknown_places[0] if slots.unknown_places else None
    if name == "place_text":
        if slots.place:
            return slots.place.text
        # "IATA code of Narita": a name the catalogue does not know is still worth looking up.
        m = _LOOKUP.search(slots.text)
        return m.group(1).strip() if m else None
    if name == "start_date":
        return slots.start_date.isoformat() if slots.start_date else None
    if name == "end_date":
        return slots.end_date.isoformat() if slots.end_date else None
    if name == "start_or_month":  # an earliest day: the day said, else the month's first
        day = slots.start_date or slots.month
        return day.isoformat() if day else None
    if name == "nonstop":
        return True if slots.nonstop else None
    if name == "route_pair":
        return True if slots.route_pair else None
    return getattr(slots, name)


def build_params(route: ToolRoute, slots: Slots, llm_args: Mapping[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for param, slot in route.params.items():
        value = slot_value(slots, slot)
        if value is None and llm_args.get(param) not in (None, ""):
            value = llm_args[param]
        if value is not None:
            params[param] = value
    if "check_out" in params and "nights" in params:
        params.pop("nights")  # the explicit date wins over a count
    return params


# Slots the extractor fills from the message's structure (places, dates, counts): free text never does.
_STRUCTURED = frozenset(
    {"origin", "destination", "origin_or_place", "place", "place_name", "start_date", "end_date"}
    | {"route_destination", "route_pair", "nights", "adults", "children", "infants", "max_price"}
)


def positional(route: ToolRoute, rest: str, slots: Slots, params: dict[str, Any]) -> None:
    """Command arguments the extractor could not place: numbers in order, then free text for a name
    (a city, a keyword, or an argument no structured slot fills, such as a declared tool's code)."""
    numbers = [int(t) for t in rest.split() if t.isdigit()]
    for arg in route.args:
        if arg in params:
            continue
        if arg in ("nights", "max_price", "adults", "days") and numbers:
            params[arg] = numbers.pop(0)
        elif (arg in ("city", "keyword") or route.params.get(arg) not in _STRUCTURED) and rest:
            words = [w for w in rest.split() if not w.isdigit() and not re.match(r"\d{4}-\d{2}-\d{2}", w)]
            if words:
                params[arg] = " ".join(words)
