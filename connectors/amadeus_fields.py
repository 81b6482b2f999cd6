"""Amadeus fields into our values: flight offers and their segments, activities, cities and airports, ISO
durations, optional numbers, room and cancellation text, an activity's category by its words, and Amadeus
error bodies into ErrorInfo.

Pure. Each function takes what the provider sent, which may be of any JSON type; a wrong type either
yields None (optional values) or raises one of connectors.shapes.UNREADABLE (required ones).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from connectors.http import ErrorInfo
from connectors.models import Activity, FlightOffer, Itinerary, Location, Segment, is_safe_link
from connectors.shapes import obj, text

CABINS = frozenset({"ECONOMY", "PREMIUM_ECONOMY", "BUSINESS", "FIRST"})
SUB_TYPES = frozenset({"CITY", "AIRPORT"})


def flight_offer(
    item: dict[str, Any], carriers: dict[str, Any], cabin: str, adults: int, **common: Any
) -> FlightOffer:
    """One flight offer (``common``: provider, sandbox, fetched_at); an unknown cabin is the one asked for."""
    details = obj((item.get("travelerPricings") or [{}])[0]).get("fareDetailsBySegment") or []
    named = obj(details[0]).get("cabin") if details else None
    if isinstance(named, str) and named.upper() in CABINS:
        cabin = named.upper()
    itineraries = [
        Itinerary(
            segments=[segment(s, carriers) for s in it["segments"]],
            duration_minutes=iso_minutes(it.get("duration")),
        )
        for it in item["itineraries"]
    ]
    price = item["price"]
    return FlightOffer(
        **common,
        itineraries=itineraries,
        cabin=cabin,
        price=float(price.get("grandTotal") or price["total"]),
        currency=price["currency"],
        adults=adults,
        bookable_seats=item.get("numberOfBookableSeats"),
    )


def activity(a: dict[str, Any], **common: Any) -> Activity:
    """One tour or activity (``common``: provider, sandbox, fetched_at)."""
    price = obj(a.get("price"))
    geo = obj(a.get("geoCode"))
    link = a.get("bookingLink")
    return Activity(
        **common,
        activity_id=text(a["id"]),
        name=text(a["name"]),
        description=a.get("shortDescription") or a.get("description"),
        latitude=optional_float(geo.get("latitude")),
        longitude=optional_float(geo.get("longitude")),
        rating=optional_float(a.get("rating")),
        price=optional_float(price.get("amount")),
        currency=price.get("currencyCode"),
        duration=a.get("minimumDuration"),
        # A link that is not a plain http(s) URL is left out; the activity is kept.
        booking_link=link if isinstance(link, str) and is_safe_link(link) else None,
    )


def location(loc: dict[str, Any], **common: Any) -> Location:
    """One city or airport (``common``: provider, sandbox, fetched_at); a POINT_OF_INTEREST or a type not
    yet documented is refused (ValueError, which costs that location only)."""
    if loc["subType"] not in SUB_TYPES:
        raise ValueError(f"location subType {str(loc['subType'])[:40]!r} is not a city or airport")
    address = obj(loc.get("address"))
    geo = obj(loc.get("geoCode"))
    return Location(
        **common,
        location_id=str(loc.get("id") or f"{loc['subType'][0]}{loc['iataCode']}"),
        sub_type=str(loc["subType"]),
        name=str(loc["name"]),
        iata=str(loc["iataCode"]),
        city_name=address.get("cityName"),
        city_code=address.get("cityCode"),
        country_code=address.get("countryCode"),
        latitude=optional_float(geo.get("latitude")),
        longitude=optional_float(geo.get("longitude")),
    )


def segment(s: dict[str, Any], carriers: dict[str, Any]) -> Segment:
    """One flight segment; the carrier's name comes from the response's dictionaries."""
    return Segment(
        carrier=s["carrierCode"],
        carrier_name=carriers.get(s["carrierCode"]),
        number=str(s["number"]),
        origin=s["departure"]["iataCode"],
        destination=s["arrival"]["iataCode"],
        departure=dt.datetime.fromisoformat(s["departure"]["at"]),
        arrival=dt.datetime.fromisoformat(s["arrival"]["at"]),
        duration_minutes=iso_minutes(s.get("duration")),
    )


_DURATION = re.compile(r"^P(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?$")


def iso_minutes(value: Any) -> int | None:
    """Minutes in an ISO 8601 duration like PT2H10M or P1DT2H."""
    if not isinstance(value, str) or not value:
        return None
    m = _DURATION.match(value)
    if not m:
        return None
    d, h, mins = (int(x) if x else 0 for x in m.groups())
    return d * 1440 + h * 60 + mins


def optional_float(value: Any) -> float | None:
    """An optional number: None when it is missing, not a number, or not finite ("NaN")."""
    try:
        number = None if value is None else float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if number is not None and math.isfinite(number) else None


def room_text(room: dict[str, Any]) -> str | None:
    """A short room description ("deluxe room, 1 king bed"), or None."""
    est = obj(room.get("typeEstimated"))
    parts = []
    if est.get("category"):
        parts.append(str(est["category"]).replace("_", " ").lower())
    beds = est.get("beds")
    if isinstance(beds, int) and beds > 0 and est.get("bedType"):
        parts.append(f"{beds} {str(est['bedType']).lower()} bed{'s' if beds > 1 else ''}")
    if parts:
        return ", ".join(parts)
    text = obj(room.get("description")).get("text")
    return str(text)[:120] if text else None


def cancellation_text(c: dict[str, Any]) -> str | None:
    """The cancellation policy in words, or None."""
    if not c:
        return None
    text = obj(c.get("description")).get("text")
    if text:
        return str(text)[:160]
    if c.get("deadline"):
        return f"free cancellation until {c['deadline']}"
    return str(c.get("type")) if c.get("type") else None


# Amadeus's tours and activities carry no category: one is recognised by the words of its name and
# description (the provider writes them in English).
CATEGORY_WORDS: dict[str, re.Pattern[str]] = {
    name: re.compile(rf"\b(?:{words})", re.IGNORECASE)
    for name, words in {
        "museum": r"museums?\b|galler(?:y|ies)\b|exhibitions?\b",
        "park": r"(?<!theme )(?<!amusement )(?<!water )(?<!safari )(?<!car )parks?\b|gardens?\b|botanic|nature reserve",
        "religious": r"church|cathedral|basilica|mosque|temple|synagogue|monaster|abbey|shrine|chapel",
        "historic": r"histor|monument|castle|palace|fortress|ruins\b|medieval|ancient|old town",
        "performing_arts": r"theat(?:re|er)|concert|opera|ballet|(?:music|dance) show|musical\b|flamenco",
        "amusement": r"theme park|amusement park|water park|zoo\b|aquarium|safari park",
        "sports": r"stadium|arena\b|sports? (?:venue|ground)|(?:football|soccer|baseball) (?:match|game)",
        "landmark": r"landmark|viewpoint|view point|observation|lookout|skyline|tower\b|highlights",
    }.items()
}


def in_category(category: str, *texts: object) -> bool:
    """Whether an activity's name or description says it is of ``category`` (CATEGORY_WORDS)."""
    words = CATEGORY_WORDS[category]
    return any(isinstance(t, str) and words.search(t) for t in texts)


def describe_error(status: int, body: Any) -> ErrorInfo:
    """Amadeus errors: {"errors": [{status, code, title, detail}]}; token errors: {error, error_description}."""
    if isinstance(body, dict):
        errors = body.get("errors")
        if isinstance(errors, list) and errors and isinstance(errors[0], dict):
            e = errors[0]
            title, detail = str(e.get("title") or ""), str(e.get("detail") or "")
            param = (e.get("source") or {}).get("parameter") if isinstance(e.get("source"), dict) else None
            message = ": ".join(x for x in (title, detail) if x) + (f" [{param}]" if param else "")
            quota = "quota" in f"{title} {detail}".lower()
            return ErrorInfo(str(e.get("code") or ""), message or f"HTTP {status}", quota)
        if "error" in body:
            return ErrorInfo(str(body.get("code") or ""), str(body.get("error_description") or body["error"]))
    return ErrorInfo("", f"HTTP {status}")
