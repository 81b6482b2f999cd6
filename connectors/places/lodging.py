"""Where a traveller sleeps is not where they go: "a riad", "a ryokan", "un piso", "eine Ferienwohnung",
"uma casa" name a kind of lodging, though "riad" is also Riyadh's name in Spanish and "casa" Casablanca's
nickname. Pure: a vocabulary in our six languages and the rule for the rare time such a word is a place.
"""

from __future__ import annotations

import re

from connectors.places.gazetteer import fold
from connectors.places.words import locative_before, sentence_start

# Folded, in our six languages: kinds of lodging, and their rooms.
LODGING = frozenset(
    fold(w)
    for w in (
        # English, with the lodgings travellers borrow from where they stay
        "hotel hotels motel motels hostel hostels inn inns lodge lodges resort resorts guesthouse guesthouses "
        "guest-house homestay apartment apartments flat flats condo condos loft studio penthouse house houses "
        "home villa villas cabin cabins chalet chalets cottage cottages bungalow bungalows hut huts suite "
        "suites room rooms camping campsite campground glamping houseboat treehouse airbnb bnb b&b riad "
        "riads ryokan ryokans minshuku hanok machiya pension pensions dacha casita casitas"
    ).split()
    + (
        # Spanish
        "hostal hostales albergue albergues piso pisos apartamento apartamentos departamento casa casas "
        "pensión parador posada posadas finca fincas cabaña cabañas habitación habitaciones alojamiento "
        # French
        "gîte gîtes appartement appartements maison maisons chambre chambres auberge auberges logement "
        # German
        "ferienwohnung ferienwohnungen wohnung wohnungen haus häuser ferienhaus unterkunft herberge "
        "jugendherberge gasthaus gasthof zimmer hütte "
        # Portuguese
        "pousada pousadas pensão quarto quartos chalé hospedagem "
        # Italian
        "appartamento appartamenti agriturismo pensione ostello albergo masseria trullo trulli baita "
        "camera camere alloggio"
    ).split()
) | frozenset(
    fold(p)
    for p in (
        "bed and breakfast",
        "guest house",
        "holiday home",
        "holiday let",
        "vacation rental",
        "casa rural",
        "casa particular",
        "chambre d'hôtes",
        "chambres d'hôtes",
        "auberge de jeunesse",
        "casa vacanze",
        "casa de férias",
        "love hotel",
        "capsule hotel",
    )
)
# A lodging's own name follows it ("Riad Yasmine", "Casa Batlló"), or where it is does ("Riad in Fes").
_NAME_AFTER = re.compile(r"\s+[A-Z]")
_WHERE_AFTER = re.compile(r"\s+(?:in|at|near|en|à|a|au|nach|im|in der|em|no|na|nel|nella|a)\s", re.IGNORECASE)


def lodging(key: str) -> bool:
    """Whether a folded word or phrase is a kind of lodging ("riad", "un piso" is "piso")."""
    return key in LODGING


def lodging_is_place(text: str, start: int, end: int, titled: bool) -> bool:
    """Whether a lodging word at ``text[start:end]`` is meant as a place after all: only written as a
    proper name ("Riad", not "riad"; not a sentence's first word, not in a Title Case Text) right
    after a locative ("flights to Riad"), with neither a name of its own nor a place after it."""
    word = text[start:end]
    return (
        word[:1].isupper()
        and not titled
        and not sentence_start(text, start)
        and locative_before(text, start)
        and not _NAME_AFTER.match(text, end)
        and not _WHERE_AFTER.match(text, end)
    )
