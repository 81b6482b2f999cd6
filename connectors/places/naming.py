"""How a place is named back to the traveller, pure: a candidate in "which one do you mean?"."""

from __future__ import annotations

from connectors.places import gazetteer
from connectors.places.model import Place


def place_option(place: Place) -> str:
    """How a candidate place is named when asking which one: "Springfield (USA, SGF)"."""
    country = gazetteer.load().countries.get(place.country_code)
    where = country.name if country else place.country_code
    return f"{place.city_name} ({where}, {place.code})"
