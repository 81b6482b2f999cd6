"""The deterministic parameter extractor: places, dates, months, travellers, nights, cabin, budget, and
what a search is narrowed to (a kind of place, an airline: rag.routing.filters). Pure.

It reads a message in steps, each in its own module: dates and months (rag.routing.dates, months),
places (connectors.places: found, kept with the slot tagger's spans, given their roles), then the
trip's other details (rag.routing.details); what it read is a ``Slots`` (rag.routing.extracted).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from connectors.places import (
    PLACE_LABELS,
    LocationCatalogue,
    assign_roles,
    find_places,
    fold,
    keep_tagged,
    tagged_unknown,
)
from rag.routing import date_words
from rag.routing.dates import DateOrder, find_dates
from rag.routing.details import end_marked, read_details
from rag.routing.extracted import Slots
from rag.routing.filters import find_airline, find_category
from rag.routing.months import find_months
from rag.routing.shifts import find_shift

__all__ = ["MAX_SCAN_CHARS", "Slots", "extract"]

# How much of a message the date, month and place finders read (see extract).
MAX_SCAN_CHARS = 2000


def extract(
    text: str,
    catalogue: LocationCatalogue,
    today: dt.date,
    order: DateOrder = "MDY",
    country: str | None = None,
    lang: str = "en",
    tagged: Sequence[tuple[str, int, int]] | None = None,
    *,
    anchor: dt.date | None = None,
    near: str | None = None,
    asked: Sequence[str] | None = None,
) -> Slots:
    """``country``: the conversation's country (the trip's), which settles shared names ("Paris");
    ``lang``: the message's language, for its dates ("el 12 de mayo"); ``tagged``: the slot tagger's
    spans (label, start, end). In English, where the tagger was fitted, a name that is also an everyday
    word ("make", "date", "okay", "Delta") is a place only where the tagger found one, and the tagger's
    roles and end dates complete the rules'; other languages read places by the rules alone. ``near``:
    the IATA city code of the conversation's city ("Palermo" is Buenos Aires's on a trip there);
    ``asked``: the slots the assistant just asked for ("destination": then "Nice." alone answers it).
    ``anchor``: the trip's date a bare day ("make it the 22nd", "Plutôt le 17") is read near
    (rag.routing.bare_days); without it, a bare day is the next such day."""
    slots = Slots(text=text)
    lowered = text.lower()
    # Dates, months and places are read in the first MAX_SCAN_CHARS characters only: their cost grows
    # faster than the text, and no trip needs more (a chat message is at most 2,000 by default).
    scanned = text[:MAX_SCAN_CHARS]
    found = find_dates(scanned, today, order, lang, keep_past=True, anchor=anchor)
    slots.past_dates = [d for d in found if (d.last or d.first) < today]
    ahead = [d for d in found if (d.last or d.first) >= today]
    # "I landed yesterday; weather tomorrow?": the coming day is the one asked about. A past day alone
    # stays a date in English, as it always was (the plan refuses it); other languages never read one.
    slots.dates = ahead if ahead or lang in date_words.languages() else found
    date_spans = [(d.start, d.end) for d in found]
    months = find_months(scanned, today, date_spans)
    slots.month = months[0].first if months else None
    spans = [t for t in tagged or [] if t[1] < MAX_SCAN_CHARS] if lang == "en" else []
    # A place asked for, or the tagger marking one, lets a name sent alone answer ("Nice.").
    expecting = None if asked is None else bool(PLACE_LABELS.intersection(asked))
    if any(label in PLACE_LABELS for label, _, _ in spans):
        expecting = True
    skip = date_spans + [(m.start, m.end) for m in months]
    mentions = find_places(scanned, catalogue, skip, country, near=near, expecting=expecting)
    if tagged is not None and lang == "en":
        keep_tagged(text, mentions, spans, catalogue)
        tagged_unknown(text, mentions, spans)
    slots.places, slots.countries, slots.unknown_places = (
        mentions.places,
        mentions.countries,
        mentions.unknown,
    )
    slots.ambiguous_places = mentions.ambiguous
    slots.category = find_category(lowered)
    airline = find_airline(text)
    if airline is not None:  # an airline's name is no place ("fly with Alaska Airlines")
        slots.airline, start, end = airline
        name = fold(text[start:end])
        slots.places = [p for p in slots.places if not (p.start < end and start < p.end)]
        slots.unknown_places = [
            u for u in slots.unknown_places if fold(u) not in name and name not in fold(u)
        ]
    roles = assign_roles(text, slots.places, spans)
    slots.places, slots.origin, slots.destination = roles.places, roles.origin, roles.destination
    slots.compared, slots.route_pair = roles.compared, roles.route_pair
    slots.end_marked = end_marked(lowered, slots.dates, spans)
    slots.shift = find_shift(scanned, lang)
    read_details(text, lowered, slots)
    return slots
