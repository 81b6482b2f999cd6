"""Duffel's shapes for the sandbox, pure: places, passengers and offers built from the Amadeus-shaped offers.

Follows https://duffel.com/docs/api/offers (offer: total_amount/total_currency, base and tax amounts, owner,
slices of segments with marketing_carrier, marketing_carrier_flight_number, departing_at/arriving_at in the
airports' local time, per-passenger cabin_class) and the places of
https://duffel.com/docs/api/v2/offer-requests/create-offer-request (airport and city objects). Ids are
derived from a per-search key, so they change with every search as Duffel's do.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from connectors.sandbox import money
from connectors.sandbox.airlines import AIRCRAFT, CARRIERS
from connectors.sandbox.data import Catalogue
from connectors.sandbox.rng import token


def passenger_json(raw: list[dict[str, Any]], key: tuple[object, ...]) -> list[dict[str, Any]]:
    out = []
    for n, p in enumerate(raw):
        entry: dict[str, Any] = {"id": "pas_" + token(*key, "passenger", n, length=22)}
        if "age" in p:
            entry["age"] = p["age"]
            entry["type"] = "infant_without_seat" if p["age"] < 2 else "child"
        else:
            entry["type"] = "adult"
        out.append(entry)
    return out


def place_json(cat: Catalogue, code: str) -> dict[str, Any]:
    airport = cat.airports.get(code)
    if airport is not None:
        city = cat.resolve(code)
        return {
            "type": "airport",
            "id": f"arp_{code.lower()}_{airport.country_code.lower()}",
            "iata_code": code,
            "icao_code": None,
            "name": airport.name,
            "city_name": airport.city_name,
            "iata_city_code": city.city_code if city else code,
            "iata_country_code": airport.country_code,
            "latitude": airport.latitude,
            "longitude": airport.longitude,
            "time_zone": airport.timezone,
        }
    place = cat.resolve(code)
    name, cc = (place.city_name, place.country_code) if place else (code, "")
    return {
        "type": "city",
        "id": f"cit_{code.lower()}_{cc.lower()}",
        "iata_code": code,
        "name": name,
        "iata_country_code": cc,
        "airports": [place_json(cat, a) for a in (place.airports if place else ())],
    }


def _carrier(code: str) -> dict[str, Any]:
    """Duffel writes an airline's name as the airline does: 'KLM', 'easyJet', 'TAP Air Portugal'."""
    return {"id": f"arl_{code.lower()}", "iata_code": code, "name": CARRIERS.get(code, code)}


def offer_json(
    cat: Catalogue, amadeus: dict[str, Any], passengers: list[dict[str, Any]], key: tuple[object, ...], n: int
) -> dict[str, Any]:
    """One Amadeus-shaped sandbox offer in Duffel's offer shape, with per-search ids."""
    price = amadeus["price"]
    total, base = float(price["grandTotal"]), float(price["base"])
    fare = amadeus["travelerPricings"][0]["fareDetailsBySegment"]
    details = {d["segmentId"]: d for d in fare}
    seated = [p for p in passengers if p["type"] != "infant_without_seat"]
    slices = []
    for i, itinerary in enumerate(amadeus["itineraries"]):
        segments = []
        for s in itinerary["segments"]:
            d = details.get(s["id"], {})
            bags = int(d.get("includedCheckedBags", {}).get("quantity", 0))
            segments.append(
                {
                    "id": "seg_" + token(*key, n, "segment", s["id"], length=22),
                    "origin": place_json(cat, s["departure"]["iataCode"]),
                    "destination": place_json(cat, s["arrival"]["iataCode"]),
                    "origin_terminal": s["departure"].get("terminal"),
                    "destination_terminal": s["arrival"].get("terminal"),
                    "departing_at": s["departure"]["at"],
                    "arriving_at": s["arrival"]["at"],
                    "duration": s["duration"],
                    "marketing_carrier": _carrier(s["carrierCode"]),
                    "marketing_carrier_flight_number": s["number"],
                    "operating_carrier": _carrier(s["operating"]["carrierCode"]),
                    "operating_carrier_flight_number": s["number"],
                    "aircraft": {
                        "id": f"arc_{s['aircraft']['code'].lower()}",
                        "iata_code": s["aircraft"]["code"],
                        "name": AIRCRAFT.get(s["aircraft"]["code"], s["aircraft"]["code"]),
                    },
                    "stops": [],
                    "passengers": [
                        {
                            "passenger_id": p["id"],
                            "cabin_class": str(d.get("cabin", "ECONOMY")).lower(),
                            "cabin_class_marketing_name": str(d.get("cabin", "ECONOMY"))
                            .replace("_", " ")
                            .title(),
                            "fare_basis_code": d.get("fareBasis"),
                            "baggages": [{"type": "checked", "quantity": bags}],
                        }
                        for p in seated
                    ],
                }
            )
        first, last = itinerary["segments"][0], itinerary["segments"][-1]
        slices.append(
            {
                "id": "sli_" + token(*key, n, "slice", i, length=22),
                "origin": place_json(cat, first["departure"]["iataCode"]),
                "destination": place_json(cat, last["arrival"]["iataCode"]),
                "origin_type": "airport",
                "destination_type": "airport",
                "duration": itinerary["duration"],
                "fare_brand_name": "Basic" if not fare or fare[0].get("cabin") == "ECONOMY" else "Flex",
                "segments": segments,
            }
        )
    now = dt.datetime.now(dt.UTC)
    return {
        "id": "off_" + token(*key, n, "offer", length=22),
        "live_mode": False,
        "created_at": now.isoformat().replace("+00:00", "Z"),
        "expires_at": (now + dt.timedelta(minutes=30)).isoformat().replace("+00:00", "Z"),
        "total_amount": price["grandTotal"],
        "total_currency": price["currency"],
        "base_amount": price["base"],
        "base_currency": price["currency"],
        "tax_amount": money.fmt(total - base, price["currency"]),
        "tax_currency": price["currency"],
        "owner": _carrier(amadeus["validatingAirlineCodes"][0]),
        "slices": slices,
        "passengers": passengers,
        "passenger_identity_documents_required": False,
        "payment_requirements": {
            "requires_instant_payment": False,
            "payment_required_by": None,
            "price_guarantee_expires_at": None,
        },
        "conditions": {"refund_before_departure": None, "change_before_departure": None},
    }
