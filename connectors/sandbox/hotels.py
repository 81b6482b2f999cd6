"""Hotels per city and their room offers, pure: Amadeus Hotel List v1 and Hotel Search v3 shapes."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from connectors.sandbox import money
from connectors.sandbox.data import Catalogue, City
from connectors.sandbox.geo import format_offset, haversine_km, offset_point, utc_offset
from connectors.sandbox.rng import code, rng_for, unit

BRANDS: tuple[tuple[str, str, int], ...] = (
    ("RT", "IBIS", 2), ("NO", "NOVOTEL", 3), ("SB", "SOFITEL", 5), ("MC", "MARRIOTT", 4), ("HL", "HILTON", 4),
    ("HI", "HOLIDAY INN", 3), ("BW", "BEST WESTERN", 3), ("RD", "RADISSON BLU", 4), ("HY", "HYATT REGENCY", 4),
    ("IC", "INTERCONTINENTAL", 5), ("SI", "SHERATON", 4), ("WI", "WESTIN", 4), ("MD", "LE MERIDIEN", 4),
    ("FS", "FOUR SEASONS", 5), ("CP", "CROWNE PLAZA", 4), ("MO", "MANDARIN ORIENTAL", 5),
)  # fmt: skip
DISTRICTS = ("CITY CENTRE", "OLD TOWN", "CENTRAL", "NORTH", "SOUTH", "EAST", "WEST", "RIVERSIDE", "CENTRAL STATION",
             "CONVENTION CENTRE", "DOWNTOWN", "PARK")  # fmt: skip
WORDS = ("BELLEVUE", "RIVERSIDE", "ROYAL", "PARK VIEW", "METROPOLE", "ASTORIA", "PLAZA", "OPERA", "HARBOUR",
         "GARDEN", "CONTINENTAL", "MAJESTIC", "SPLENDID", "PALACE", "EMBASSY", "VICTORIA", "REGENT", "AMBASSADOR",
         "LOTUS", "CEDAR", "SKYLINE", "PANORAMA", "ARTS", "MUSEUM", "MARKET", "CATHEDRAL", "CASTLE", "BAY", "LAKESIDE",
         "SUNSET", "ORCHID", "COMPASS", "LANTERN", "MERIDIAN", "ATLAS", "LIBRARY", "TERRACE", "CORNER", "COURTYARD")  # fmt: skip
PATTERNS = ("HOTEL {w}", "{w} HOTEL {c}", "THE {w} {c}", "GRAND HOTEL {w}", "{w} BOUTIQUE HOTEL", "{w} SUITES",
            "{c} {w} INN", "{w} RESIDENCE", "HOSTEL {w} {c}", "{w} APARTHOTEL")  # fmt: skip
INDEPENDENT_CHAINS = ("YX", "WV", "HS")

NIGHT_BASE_EUR = {1: 38.0, 2: 62.0, 3: 95.0, 4: 140.0, 5: 195.0}
STAR_FACTOR = {1: 0.45, 2: 0.7, 3: 1.0, 4: 1.5, 5: 2.7}
ROOMS: tuple[tuple[str, str, float, int], ...] = (
    ("STANDARD_ROOM", "A", 1.0, 25), ("SUPERIOR_ROOM", "B", 1.2, 30), ("DELUXE_ROOM", "C", 1.45, 35),
    ("EXECUTIVE_ROOM", "D", 1.7, 38), ("SUITE", "S", 2.4, 55),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Hotel:
    hotel_id: str
    chain_code: str
    dupe_id: int
    name: str
    city: City
    latitude: float
    longitude: float
    distance_km: float
    rating: int
    last_update: str


def hotel_count(city: City) -> int:
    size = 8 + 12 * math.log10(max(city.population, 300_000) / 300_000) + 2 * city.cost_level
    return max(10, min(40, round(size)))


@lru_cache(maxsize=256)
def hotels_for_city(city: City) -> tuple[Hotel, ...]:
    """The city's hotels, nearest to the centre first; stable for the city whatever the request."""
    rng = rng_for("hotels", city.city_code)
    hotels: list[Hotel] = []
    used: set[str] = set()
    names: set[str] = set()
    for _ in range(hotel_count(city)):
        if rng.random() < 0.55:
            chain, brand, rating = rng.choice(BRANDS)
            name = f"{brand} {city.name.upper()} {rng.choice(DISTRICTS)}"
        else:
            chain = rng.choice(INDEPENDENT_CHAINS)
            pattern = rng.choice(PATTERNS)
            name = pattern.format(w=rng.choice(WORDS), c=city.name.upper())
            rating = (
                1 if pattern.startswith("HOSTEL") else min(5, max(2, city.cost_level - 1 + rng.randint(0, 2)))
            )
        if name in names:
            name = f"{name} {rng.choice(WORDS)}"
        hotel_id = f"{chain}{city.city_code}{code(rng, 3)}"
        while hotel_id in used:
            hotel_id = f"{chain}{city.city_code}{code(rng, 3)}"
        used.add(hotel_id)
        names.add(name)
        km = 0.2 + 4.8 * math.sqrt(rng.random()) if rng.random() < 0.8 else 5 + 9 * rng.random()
        lat, lon = offset_point(city.latitude, city.longitude, km, rng.uniform(0, 360))
        updated = dt.datetime(2025, 1, 1) + dt.timedelta(minutes=rng.randrange(0, 365 * 24 * 60))
        hotels.append(
            Hotel(
                hotel_id=hotel_id,
                chain_code=chain,
                dupe_id=700_000_000 + rng.randrange(0, 99_999_999),
                name=name,
                city=city,
                latitude=round(lat, 5),
                longitude=round(lon, 5),
                distance_km=round(haversine_km(city.latitude, city.longitude, lat, lon), 2),
                rating=rating,
                last_update=updated.isoformat(timespec="seconds"),
            )
        )
    hotels.sort(key=lambda h: h.distance_km)
    return tuple(hotels)


def find_hotel(cat: Catalogue, hotel_id: str) -> Hotel | None:
    city = cat.city(hotel_id[2:5]) if len(hotel_id) == 8 else None
    if city is None:
        return None
    return next((h for h in hotels_for_city(city) if h.hotel_id == hotel_id.upper()), None)


def hotel_list_item(h: Hotel, unit_name: str) -> dict[str, Any]:
    value = h.distance_km if unit_name == "KM" else h.distance_km / 1.609344
    return {
        "chainCode": h.chain_code,
        "iataCode": h.city.city_code,
        "dupeId": h.dupe_id,
        "name": h.name,
        "hotelId": h.hotel_id,
        "geoCode": {"latitude": h.latitude, "longitude": h.longitude},
        "address": {"countryCode": h.city.country_code},
        "distance": {"value": round(value, 2), "unit": unit_name},
        "rating": h.rating,
        "lastUpdate": h.last_update,
    }


def _season(city: City, night: dt.date) -> float:
    if (night.month == 12 and night.day >= 20) or (night.month == 1 and night.day <= 2):
        return 1.25
    summer = (6, 7, 8) if city.latitude >= 0 else (12, 1, 2)
    shoulder = (5, 9) if city.latitude >= 0 else (11, 3)
    return 1.25 if night.month in summer else 1.05 if night.month in shoulder else 0.9


def night_price_eur(h: Hotel, night: dt.date, room_factor: float, adults: int) -> float:
    weekend = 1.1 if night.weekday() in (4, 5) else 1.0
    noise = 0.9 + 0.2 * unit("night", h.hotel_id, night.isoformat())
    occupancy = 1 + 0.15 * (adults - 1)
    price = NIGHT_BASE_EUR[h.city.cost_level] * STAR_FACTOR[h.rating] * room_factor * occupancy
    return price * _season(h.city, night) * weekend * noise


def _changes(nights: list[dt.date], prices: list[float], currency: str) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for night, price in zip(nights, prices, strict=True):
        end = (night + dt.timedelta(days=1)).isoformat()
        if out and out[-1]["base"] == money.fmt(price, currency):
            out[-1]["endDate"] = end
        else:
            out.append({"startDate": night.isoformat(), "endDate": end, "base": money.fmt(price, currency)})
    return out


def hotel_offers_item(
    h: Hotel,
    check_in: dt.date,
    check_out: dt.date,
    adults: int,
    rooms: int,
    currency: str | None,
    best_rate_only: bool,
    base_url: str,
) -> dict[str, Any]:
    """One element of the v3 hotel-offers data list: the hotel, its availability, and its offers."""
    key = (h.hotel_id, check_in.isoformat(), check_out.isoformat(), adults, rooms, currency or "")
    cur = currency or h.city.currency
    item: dict[str, Any] = {
        "type": "hotel-offers",
        "hotel": {
            "type": "hotel",
            "hotelId": h.hotel_id,
            "chainCode": h.chain_code,
            "dupeId": str(h.dupe_id),
            "name": h.name,
            "cityCode": h.city.city_code,
            "latitude": h.latitude,
            "longitude": h.longitude,
        },
        "available": unit("available", h.hotel_id, check_in.isoformat(), check_out.isoformat()) < 0.85,
    }
    if item["available"]:
        rng = rng_for("hotel-offers", *key)
        nights = [check_in + dt.timedelta(days=n) for n in range((check_out - check_in).days)]
        per_room = max(1, math.ceil(adults / rooms))
        tax = 0.05 + 0.1 * unit("city-tax", h.city.city_code)
        offset = format_offset(utc_offset(h.city.timezone))
        top = 2 if h.rating <= 2 else 5
        kinds = sorted(rng.sample(range(top), min(top, rng.randint(1, 4))))
        offers: list[dict[str, Any]] = []
        for n, kind in enumerate(kinds):
            category, letter, factor, sqm = ROOMS[kind]
            refundable = rng.random() < 0.65
            beds = 2 if per_room > 2 or rng.random() < 0.3 else 1
            bed_type = "TWIN" if beds == 2 and rng.random() < 0.5 else rng.choice(("KING", "QUEEN", "DOUBLE"))
            prices = [
                money.convert(
                    night_price_eur(h, night, factor * (1.0 if refundable else 0.88), per_room), cur
                )
                * rooms
                for night in nights
            ]
            prices = [money.round_minor(p, cur) for p in prices]
            base = money.round_minor(sum(prices), cur)
            offer_id = code(rng_for("offer-id", *key, n), 10)
            room_name = category.replace("_", " ").title()
            rate_text = (
                "Flexible rate, pay at the hotel" if refundable else "Prepay Non-refundable Non-changeable"
            )
            offers.append(
                {
                    "id": offer_id,
                    "checkInDate": check_in.isoformat(),
                    "checkOutDate": check_out.isoformat(),
                    "rateCode": "BAR" if refundable else "ADV",
                    "room": {
                        "type": f"{letter}{beds}{bed_type[0]}",
                        "typeEstimated": {"category": category, "beds": beds, "bedType": bed_type},
                        "description": {
                            "text": f"{rate_text}\n{room_name}, {beds} {bed_type.title()} bed{'s' if beds > 1 else ''}, "
                            f"{sqm + rng.randint(0, 8)}sqm, free Wi-Fi",
                            "lang": "EN",
                        },
                    },
                    "guests": {"adults": adults},
                    "price": {
                        "currency": cur,
                        "base": money.fmt(base, cur),
                        "total": money.fmt(base * (1 + tax), cur),
                        "variations": {
                            "average": {"base": money.fmt(base / len(nights), cur)},
                            "changes": _changes(nights, prices, cur),
                        },
                    },
                    "policies": _policies(refundable, check_in, offset),
                    "self": f"{base_url}/v3/shopping/hotel-offers/{offer_id}",
                }
            )
        offers.sort(key=lambda o: float(o["price"]["total"]))
        item["offers"] = offers[:1] if best_rate_only else offers
    item["self"] = (
        f"{base_url}/v3/shopping/hotel-offers?hotelIds={h.hotel_id}&adults={adults}"
        f"&checkInDate={check_in.isoformat()}&checkOutDate={check_out.isoformat()}"
    )
    return item


def _policies(refundable: bool, check_in: dt.date, offset: str) -> dict[str, Any]:
    if refundable:
        deadline = (check_in - dt.timedelta(days=2)).isoformat()
        return {
            "cancellations": [{"numberOfNights": 1, "deadline": f"{deadline}T18:00:00{offset}"}],
            "paymentType": "guarantee",
            "refundable": {"cancellationRefund": "REFUNDABLE_UP_TO_DEADLINE"},
        }
    return {
        "cancellation": {"type": "FULL_STAY", "description": {"text": "NON-REFUNDABLE RATE"}},
        "paymentType": "deposit",
        "refundable": {"cancellationRefund": "NON_REFUNDABLE"},
    }
