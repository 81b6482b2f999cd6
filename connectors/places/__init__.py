"""Places: the world's cities, airports, districts, regions and countries, what a name or a code resolves
to, and the places a message names. Pure, and the one package that recognises and resolves places for
routing, the dialogue, the tools and the sandbox alike (it imports nothing of the service).

Its modules, each importing only those above it:

- ``gazetteer``: the data (every city of 15,000 people or more with its other languages' names, every
  IATA airport, every country), loaded once per process, and ``fold``, the one normal form of a name;
- ``model``: the values (``City``, ``Place``, ``Region``, ``PlaceMention``, ``Mentions``, ``Roles``);
- ``regions``: states, provinces and regions (regions.yaml), which say which city ("Sydney, NSW") and,
  alone, are no town ("Maine");
- ``districts``: districts and neighbourhoods (districts.yaml, guide_districts.json) and their cities;
- ``airports``: airports by name ("Haneda", "Kansai airport"; airports.yaml);
- ``catalogue``: the LocationCatalogue, which resolves what a traveller writes ("Lisboa", "LHR",
  "Zurik", "Paris, Texas", "Roma Norte") to a ``Place`` with an IATA code, a city or an airport;
- ``words`` and ``lodging``: everyday words that look like places ("Nice!", "Split") and kinds of
  lodging that are none ("a riad", "uma casa");
- ``recognition``: ``find_places``, the places named in free text;
- ``tagged`` and ``roles``: which of them a slot tagger's spans let count, and each one's role (origin,
  destination) in the message;
- ``kinds``: the catalogue as a slot tagger's features see it; ``naming``: a place named back.
"""

from connectors.places.catalogue import PROMINENT_POPULATION, LocationCatalogue
from connectors.places.districts import District, DistrictChoice
from connectors.places.gazetteer import Airport, Gazetteer, GeoCity, fold
from connectors.places.kinds import CataloguePlaces
from connectors.places.lodging import LODGING, lodging
from connectors.places.model import City, Mentions, Place, PlaceMention, Region, Roles
from connectors.places.naming import place_option, where
from connectors.places.recognition import find_places
from connectors.places.roles import assign_roles
from connectors.places.tagged import PLACE_LABELS, keep_tagged, tagged_unknown
from connectors.places.words import (
    AMBIGUOUS,
    NEVER_PLACES,
    NOT_CODES,
    last_char,
    needs_anchor,
    sentence_start,
    warm,
    wordlike,
)

__all__ = [
    "AMBIGUOUS",
    "LODGING",
    "NEVER_PLACES",
    "NOT_CODES",
    "PLACE_LABELS",
    "PROMINENT_POPULATION",
    "Airport",
    "CataloguePlaces",
    "City",
    "District",
    "DistrictChoice",
    "Gazetteer",
    "GeoCity",
    "LocationCatalogue",
    "Mentions",
    "Place",
    "PlaceMention",
    "Region",
    "Roles",
    "assign_roles",
    "find_places",
    "fold",
    "keep_tagged",
    "last_char",
    "lodging",
    "needs_anchor",
    "place_option",
    "sentence_start",
    "tagged_unknown",
    "warm",
    "where",
    "wordlike",
]
