"""Places: the world's cities, airports and countries, what a name or a code resolves to, and the places a
message names. Pure, and shared by routing, the dialogue state, the tools' parameters and the sandbox.

Three layers, each importing only the one below it:

- ``gazetteer``: the data (every city of 15,000 people or more with its other languages' names, every
  IATA airport, every country), loaded once per process, and ``fold``, the one normal form of a name;
- ``catalogue``: the LocationCatalogue, which resolves what a traveller writes ("Lisboa", "LHR",
  "Zurik", "Paris, Texas") to a ``Place`` with an IATA code, a city or an airport;
- ``recognition``: ``find_places``, the cities, airports and countries named in free text, and
  whether a name that is also an everyday word needs a locative ("to Nice") to count.
"""

from connectors.places.catalogue import PROMINENT_POPULATION, City, LocationCatalogue, Place
from connectors.places.gazetteer import Airport, Gazetteer, GeoCity, fold
from connectors.places.recognition import (
    AMBIGUOUS,
    NEVER_PLACES,
    NOT_CODES,
    Mentions,
    PlaceMention,
    find_places,
    last_char,
    needs_anchor,
    sentence_start,
    wordlike,
)

__all__ = [
    "AMBIGUOUS",
    "NEVER_PLACES",
    "NOT_CODES",
    "PROMINENT_POPULATION",
    "Airport",
    "City",
    "Gazetteer",
    "GeoCity",
    "LocationCatalogue",
    "Mentions",
    "Place",
    "PlaceMention",
    "fold",
    "find_places",
    "last_char",
    "needs_anchor",
    "sentence_start",
    "wordlike",
]
