"""Which places a message's passages should come from: its own places, else the trip's. Pure.

The index keeps other cities' guides out of the answer (rag.retrieval: topic documents always come),
so "where should I stay?" in a conversation about Prague reads the Prague guide, "Lisbon or
Barcelona?" reads both, and a question that names no place outside a trip searches everything.
"""

from __future__ import annotations

from collections.abc import Sequence

from connectors.places import fold
from rag.dialogue.trip import TripState
from rag.ingest.documents import norm
from rag.routing.extract import Slots


def focus(
    slots: Slots | None, trip: TripState, route: bool = False, unknown: Sequence[str] = ()
) -> tuple[list[str], list[str]]:
    """(places as guides' ``city_norm`` values, countries as ISO alpha-2 codes) to search within.

    ``route``: the message calls a tool about a route (a flight), whose origin is where the traveller
    leaves from: its guide does not answer about the trip. ``unknown``: place-like text the catalogue
    could not resolve (then the trip's place is not assumed: the traveller asks about somewhere else).
    """
    places, countries = [], []
    if slots is not None:
        mentions = slots.places
        if route and slots.origin and slots.destination:
            mentions = [p for p in mentions if p is not slots.origin]
        places = [norm(p.place.city_name) for p in mentions]
        countries = [c.upper() for c in slots.countries]
    if not places and not countries and not unknown and trip.destination_name:
        places = [norm(trip.destination_name)]
    return list(dict.fromkeys(places)), list(dict.fromkeys(countries))


def search_text(text: str, slots: Slots | None) -> str:
    """``text`` with its places also named as the guides name them ("¿Es caro viajar a Londres?" ->
    "¿Es caro viajar a Londres? (London)"), so the keyword index and the embedding meet the guide's own
    words; the traveller's words stay, for a landmark named after a place ("Victoria Peak" is in Hong
    Kong: its guide says "Victoria Peak")."""
    if slots is None:
        return text
    names = [
        p.place.city_name
        for p in slots.places
        if p.place.city_name and fold(p.text) != fold(p.place.city_name)
    ]
    names = list(dict.fromkeys(names))
    return f"{text} ({', '.join(names)})" if names else text
