"""How a place is named, pure: a candidate in "which one do you mean?", and a place's name as a geocoder
needs it to find that very place ("Queenstown, New Zealand", "Portland, Maine")."""

from __future__ import annotations

import math

from connectors.places import gazetteer, regions
from connectors.places.gazetteer import GeoCity, fold
from connectors.places.model import Place


def place_option(place: Place) -> str:
    """How a candidate place is named when asking which one: "Springfield (USA, SGF)"."""
    country = gazetteer.load().countries.get(place.country_code)
    where = country.name if country else place.country_code
    return f"{place.city_name} ({where}, {place.code})"


# How far a gazetteer city may be from a place's own point to be that place.
SAME_PLACE_KM = 50.0


def where(place: Place) -> str:
    """``place``'s city name, qualified when a bigger city shares it (a geocoder takes the biggest):
    by its state in the United States ("Portland, Maine"), else by its country ("Queenstown, New
    Zealand"); the name alone when it is the biggest of that name ("Lisbon")."""
    gaz = gazetteer.load()
    ids = gaz.names.get(fold(place.city_name), ())
    cities = [gaz.cities[i] for i in ids]
    if not cities:
        return place.city_name

    def km(lat: float, lon: float) -> float:
        la1, lo1, la2, lo2 = map(math.radians, (place.latitude, place.longitude, lat, lon))
        h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
        return 2 * 6371.0 * math.asin(math.sqrt(h))

    own: GeoCity | None = min(cities, key=lambda c: km(c.latitude, c.longitude))
    assert own is not None
    if km(own.latitude, own.longitude) > SAME_PLACE_KM:
        own = None  # a town too small for the gazetteer: another place has its name
    elif all(c.population <= own.population for c in cities if c is not own):
        return place.city_name
    if own is not None and own.country_code == "US":
        state = regions.load().regions.get(f"US-{own.admin1_code}")
        if state is not None:
            return f"{place.city_name}, {state.name}"
    country = gaz.countries.get(own.country_code if own is not None else place.country_code)
    return f"{place.city_name}, {country.name}" if country else place.city_name
