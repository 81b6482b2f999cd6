"""The text a message's guides are searched with: its own words and its places as the guides name them.
Pure."""

from __future__ import annotations

from connectors.places import fold
from rag.routing.extract import Slots


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
