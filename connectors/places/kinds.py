"""The place catalogue as a slot tagger's features see it: folded name -> kind of place. Pure look-ups.

Built once from the gazetteer (cities of 15,000 people or more with their other languages' names,
airports, countries, US states) and the catalogue's destination cities with their aliases ("chi-town",
"bkk"). It is what rag.tagging.features calls ``PlaceNames``; the tagger was fitted with these kinds, so
they stay as they were when it was (districts and regions beyond the US states are not among them). A city's kind carries its size ("city:xl" a million people or more,
"city:big" 100,000, "city:small"), because a small town named "March" or "Reading" is a word first.
Other languages' names count as the city's own ("München" is "city:xl"); the everyday words among
them ("para", "solo") are left to the features, which read no lower-case everyday word as a place.
"""

from __future__ import annotations

import re

from connectors.places.catalogue import LocationCatalogue
from connectors.places.gazetteer import Gazetteer, fold

_AIRPORT_WORDS = re.compile(r"\b(?:international|intl|regional|municipal|airport|airfield)\b")


class CataloguePlaces:
    """The kinds of place names (``PlaceNames`` of rag.tagging.features) over the place catalogue."""

    def __init__(self, kinds: dict[str, str], iata: frozenset[str], states: frozenset[str]) -> None:
        self._kinds = kinds
        self._iata = iata
        self._states = states

    @classmethod
    def from_catalogue(cls, catalogue: LocationCatalogue) -> CataloguePlaces:
        gaz = catalogue.gazetteer
        kinds: dict[str, str] = {}
        for name, a in gaz.airports.items():
            if a.commercial and not name.isdigit():
                bare = " ".join(_AIRPORT_WORDS.sub(" ", fold(a.name)).split())
                if len(bare) >= 4:
                    kinds.setdefault(bare, "airport")
                city = fold(a.city_name)
                if city:
                    kinds[city] = "city:small"
        kinds.update({name: _city_kind(gaz, ids) for name, ids in gaz.names.items()})
        kinds.update({name: "state" for name in gaz.us_states if len(name) > 2})
        kinds.update({name: "country" for name in gaz.country_names})
        for c in catalogue.cities:
            for n in (c.name, *c.aliases):
                kinds[fold(n)] = "dest"
        commercial = frozenset(code for code, a in gaz.airports.items() if a.commercial)
        states = frozenset(code.upper() for code in gaz.us_states if len(code) == 2)
        return cls(kinds, commercial, states)

    def kind(self, name: str) -> str | None:
        return self._kinds.get(fold(name))

    def code(self, token: str) -> str | None:
        if len(token) == 3 and token.isupper() and token in self._iata:
            return "iata"
        if len(token) == 2 and token.isupper() and token in self._states:
            return "state"
        return None


def _city_kind(gaz: Gazetteer, ids: tuple[int, ...]) -> str:
    """ "city:SIZE" by the biggest city of that name ("München" is Munich's too)."""
    population = max(gaz.cities[i].population for i in ids)
    return "city:xl" if population >= 1_000_000 else "city:big" if population >= 100_000 else "city:small"
