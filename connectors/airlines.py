"""Airlines by IATA carrier code, with the names travellers call them by. Pure data and look-ups.

A small public table (names as the airlines write them, IATA codes as IATA assigns them): the large
network and low-cost carriers of each region, enough to read "I'd rather fly with United" or "on KLM"
as a carrier code that flight_search filters on. A code that is not in the table is still a code
(``resolve_airline("WY")`` is "WY"): the providers know more carriers than we do; a name must be here.
"""

from __future__ import annotations

import re
from functools import lru_cache

from connectors.places import fold

# Code -> the airline's own name first, then other names it goes by.
AIRLINES: dict[str, tuple[str, ...]] = {
    # North America
    "AA": ("American Airlines", "American"),
    "DL": ("Delta Air Lines", "Delta Airlines", "Delta"),
    "UA": ("United Airlines", "United"),
    "WN": ("Southwest Airlines", "Southwest"),
    "AS": ("Alaska Airlines", "Alaska"),
    "B6": ("JetBlue", "JetBlue Airways"),
    "NK": ("Spirit Airlines", "Spirit"),
    "F9": ("Frontier Airlines", "Frontier"),
    "G4": ("Allegiant Air", "Allegiant"),
    "SY": ("Sun Country Airlines", "Sun Country"),
    "HA": ("Hawaiian Airlines", "Hawaiian"),
    "AC": ("Air Canada",),
    "WS": ("WestJet",),
    "AM": ("Aeroméxico", "Aeromexico"),
    "Y4": ("Volaris",),
    # Latin America
    "CM": ("Copa Airlines", "Copa"),
    "AV": ("Avianca",),
    "LA": ("LATAM Airlines", "LATAM"),
    "G3": ("GOL", "GOL Linhas Aéreas"),
    "AD": ("Azul", "Azul Brazilian Airlines"),
    "AR": ("Aerolíneas Argentinas", "Aerolineas Argentinas"),
    # Europe
    "AF": ("Air France",),
    "BA": ("British Airways",),
    "VS": ("Virgin Atlantic",),
    "U2": ("easyJet",),
    "FR": ("Ryanair",),
    "LH": ("Lufthansa",),
    "EW": ("Eurowings",),
    "DE": ("Condor",),
    "KL": ("KLM", "KLM Royal Dutch Airlines"),
    "HV": ("Transavia",),
    "IB": ("Iberia",),
    "VY": ("Vueling",),
    "UX": ("Air Europa",),
    "TP": ("TAP Air Portugal", "TAP Portugal", "TAP"),
    "AZ": ("ITA Airways", "ITA", "Alitalia"),
    "LX": ("SWISS", "Swiss International Air Lines", "Swiss Air Lines"),
    "OS": ("Austrian Airlines", "Austrian"),
    "SN": ("Brussels Airlines",),
    "SK": ("SAS", "Scandinavian Airlines"),
    "DY": ("Norwegian", "Norwegian Air Shuttle", "Norwegian Air"),
    "AY": ("Finnair",),
    "FI": ("Icelandair",),
    "EI": ("Aer Lingus",),
    "A3": ("Aegean Airlines", "Aegean"),
    "LO": ("LOT Polish Airlines", "LOT"),
    "OK": ("Czech Airlines",),
    "W6": ("Wizz Air", "Wizzair"),
    "BT": ("airBaltic",),
    "TK": ("Turkish Airlines", "Turkish"),
    "PC": ("Pegasus Airlines", "Pegasus"),
    "SU": ("Aeroflot",),
    # Middle East and Africa
    "EK": ("Emirates",),
    "EY": ("Etihad Airways", "Etihad"),
    "QR": ("Qatar Airways",),
    "LY": ("EL AL Israel Airlines", "El Al"),
    "RJ": ("Royal Jordanian",),
    "SV": ("Saudia", "Saudi Arabian Airlines"),
    "MS": ("EgyptAir",),
    "AT": ("Royal Air Maroc",),
    "ET": ("Ethiopian Airlines", "Ethiopian"),
    "KQ": ("Kenya Airways",),
    "SA": ("South African Airways",),
    "TC": ("Air Tanzania",),
    "P4": ("Air Peace",),
    # Asia and Oceania
    "JL": ("Japan Airlines", "JAL"),
    "NH": ("ANA", "All Nippon Airways"),
    "KE": ("Korean Air",),
    "OZ": ("Asiana Airlines", "Asiana"),
    "CA": ("Air China",),
    "MU": ("China Eastern Airlines", "China Eastern"),
    "CZ": ("China Southern Airlines", "China Southern"),
    "CX": ("Cathay Pacific",),
    "CI": ("China Airlines",),
    "BR": ("EVA Air",),
    "SQ": ("Singapore Airlines",),
    "TR": ("Scoot",),
    "TG": ("Thai Airways", "Thai Airways International"),
    "FD": ("Thai AirAsia",),
    "MH": ("Malaysia Airlines",),
    "AK": ("AirAsia",),
    "GA": ("Garuda Indonesia", "Garuda"),
    "VN": ("Vietnam Airlines",),
    "VJ": ("Vietjet", "VietJet Air"),
    "PR": ("Philippine Airlines",),
    "5J": ("Cebu Pacific",),
    "AI": ("Air India",),
    "6E": ("IndiGo",),
    "RA": ("Nepal Airlines",),
    "UL": ("SriLankan Airlines",),
    "QF": ("Qantas",),
    "VA": ("Virgin Australia",),
    "NZ": ("Air New Zealand",),
}

# An IATA carrier code: two letters or digits, at least one a letter ("UA", "U2", "6E").
_CODE = re.compile(r"^(?=[A-Z0-9]{2}$)(?:[A-Z][A-Z0-9]|[0-9][A-Z])$")
# Words after a name that do not change which airline it is ("United Airlines" is "United").
_SUFFIX = re.compile(r"\s+(?:airlines?|airways|air lines)$")


@lru_cache(maxsize=1)
def names() -> dict[str, str]:
    """Every name of every airline, folded ("delta airlines", "klm"), to its code."""
    out: dict[str, str] = {}
    for code, written in AIRLINES.items():
        for name in written:
            key = fold(name)
            out.setdefault(key, code)
            out.setdefault(_SUFFIX.sub("", key), code)
    return out


def resolve_airline(value: str) -> str | None:
    """An airline's IATA code from its name ("United Airlines", "easyjet") or a code ("UA", "u2");
    None for a name we do not know."""
    text = value.strip()
    if _CODE.match(text.upper()) and len(text) == 2:
        return text.upper()
    key = fold(text)
    return names().get(key) or names().get(_SUFFIX.sub("", key))


def airline_name(code: str) -> str:
    """The airline's own name for its code ("UA" -> "United Airlines"), or the code itself."""
    written = AIRLINES.get(code.upper())
    return written[0] if written else code.upper()
