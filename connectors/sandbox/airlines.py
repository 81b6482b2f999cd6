"""Airlines, their home countries and hubs, and aircraft: enough to route flights the way real carriers do."""

from __future__ import annotations

import unicodedata

# Names as the airlines write them (and Duffel sends them): KLM, easyJet, SWISS, IndiGo, airBaltic.
# Amadeus's dictionaries spell them in capitals: amadeus_name() below.
CARRIERS: dict[str, str] = {
    "AF": "Air France", "BA": "British Airways", "U2": "easyJet", "FR": "Ryanair", "LH": "Lufthansa",
    "EW": "Eurowings", "KL": "KLM", "IB": "Iberia", "VY": "Vueling", "UX": "Air Europa",
    "TP": "TAP Air Portugal", "AZ": "ITA Airways", "LX": "SWISS", "OS": "Austrian Airlines",
    "SN": "Brussels Airlines", "SK": "SAS", "DY": "Norwegian", "AY": "Finnair", "FI": "Icelandair",
    "EI": "Aer Lingus", "A3": "Aegean Airlines", "LO": "LOT Polish Airlines", "OK": "Czech Airlines",
    "W6": "Wizz Air", "BT": "airBaltic", "TK": "Turkish Airlines", "PC": "Pegasus Airlines", "SU": "Aeroflot",
    "EK": "Emirates", "EY": "Etihad Airways", "QR": "Qatar Airways", "LY": "EL AL Israel Airlines",
    "RJ": "Royal Jordanian", "SV": "Saudia", "MS": "EgyptAir", "AT": "Royal Air Maroc",
    "ET": "Ethiopian Airlines", "KQ": "Kenya Airways", "SA": "South African Airways", "TC": "Air Tanzania",
    "P4": "Air Peace", "JL": "Japan Airlines", "NH": "ANA", "KE": "Korean Air", "OZ": "Asiana Airlines",
    "CA": "Air China", "MU": "China Eastern Airlines", "CZ": "China Southern Airlines",
    "CX": "Cathay Pacific", "CI": "China Airlines", "BR": "EVA Air", "SQ": "Singapore Airlines", "TR": "Scoot",
    "TG": "Thai Airways", "FD": "Thai AirAsia", "MH": "Malaysia Airlines", "AK": "AirAsia",
    "GA": "Garuda Indonesia", "VN": "Vietnam Airlines", "VJ": "Vietjet", "PR": "Philippine Airlines",
    "5J": "Cebu Pacific", "AI": "Air India", "6E": "IndiGo", "RA": "Nepal Airlines", "UL": "SriLankan Airlines",
    "QF": "Qantas", "VA": "Virgin Australia", "NZ": "Air New Zealand", "AA": "American Airlines",
    "DL": "Delta Air Lines", "UA": "United Airlines", "AS": "Alaska Airlines", "B6": "JetBlue",
    "HA": "Hawaiian Airlines", "AC": "Air Canada", "WS": "WestJet", "AM": "Aeroméxico", "Y4": "Volaris",
    "CM": "Copa Airlines", "AV": "Avianca", "LA": "LATAM Airlines", "G3": "GOL", "AD": "Azul",
    "AR": "Aerolíneas Argentinas",
}  # fmt: skip

HOME: dict[str, tuple[str, ...]] = {
    "FR": ("AF",), "GB": ("BA", "U2"), "DE": ("LH", "EW"), "NL": ("KL",), "ES": ("IB", "UX", "VY"),
    "PT": ("TP",), "IT": ("AZ", "FR"), "CH": ("LX",), "AT": ("OS",), "BE": ("SN",), "DK": ("SK",),
    "SE": ("SK",), "NO": ("SK", "DY"), "FI": ("AY",), "IS": ("FI",), "IE": ("EI", "FR"), "GR": ("A3",),
    "PL": ("LO", "W6"), "CZ": ("OK",), "LV": ("BT",), "HU": ("W6",), "TR": ("TK", "PC"), "RU": ("SU",),
    "AE": ("EK", "EY"), "QA": ("QR",), "IL": ("LY",), "JO": ("RJ",), "SA": ("SV",), "EG": ("MS",),
    "MA": ("AT",), "ET": ("ET",), "KE": ("KQ",), "ZA": ("SA",), "TZ": ("TC",), "NG": ("P4",),
    "JP": ("JL", "NH"), "KR": ("KE", "OZ"), "CN": ("CA", "MU", "CZ"), "HK": ("CX",), "TW": ("CI", "BR"),
    "SG": ("SQ", "TR"), "TH": ("TG", "FD"), "MY": ("MH", "AK"), "ID": ("GA",), "VN": ("VN", "VJ"),
    "PH": ("PR", "5J"), "IN": ("AI", "6E"), "NP": ("RA",), "LK": ("UL",), "AU": ("QF", "VA"), "NZ": ("NZ",),
    "US": ("AA", "DL", "UA", "AS", "B6"), "CA": ("AC", "WS"), "MX": ("AM", "Y4"), "CO": ("AV",), "PE": ("LA",),
    "CL": ("LA",), "BR": ("LA", "G3", "AD"), "AR": ("AR",), "PA": ("CM",),
}  # fmt: skip

REGION_CARRIERS: dict[str, tuple[str, ...]] = {
    "EU": ("LH", "AF", "KL", "BA"), "ME": ("EK", "QR"), "AF": ("ET", "KQ", "AT"), "AS": ("SQ", "CX", "TG"),
    "OC": ("QF", "NZ"), "NA": ("AA", "DL", "UA"), "LA": ("AV", "CM", "LA", "IB"),
}  # fmt: skip

# Carriers that connect the world through their hubs, offered on long routes between regions.
GLOBAL_CONNECTORS = ("EK", "QR", "TK", "EY")

HUBS: dict[str, tuple[str, ...]] = {
    "AF": ("CDG",), "BA": ("LHR",), "LH": ("FRA", "MUC"), "KL": ("AMS",), "IB": ("MAD",), "UX": ("MAD",),
    "TP": ("LIS",), "AZ": ("FCO",), "LX": ("ZRH",), "OS": ("VIE",), "SN": ("BRU",), "SK": ("CPH", "ARN", "OSL"),
    "AY": ("HEL",), "FI": ("KEF",), "EI": ("DUB",), "A3": ("ATH",), "LO": ("WAW",), "OK": ("PRG",), "BT": ("RIX",), "TK": ("IST",),
    "SU": ("SVO",), "EK": ("DXB",), "EY": ("AUH",), "QR": ("DOH",), "LY": ("TLV",), "RJ": ("AMM",), "SV": ("JED",),
    "MS": ("CAI",), "AT": ("CMN",), "ET": ("ADD",), "KQ": ("NBO",), "SA": ("JNB",), "TC": ("DAR",), "P4": ("LOS",),
    "JL": ("HND", "NRT"), "NH": ("HND", "NRT"), "KE": ("ICN",), "OZ": ("ICN",), "CA": ("PEK",), "MU": ("PVG",),
    "CZ": ("CAN",), "CX": ("HKG",), "CI": ("TPE",), "BR": ("TPE",), "SQ": ("SIN",), "TG": ("BKK",), "MH": ("KUL",),
    "GA": ("CGK",), "VN": ("HAN", "SGN"), "PR": ("MNL",), "AI": ("DEL", "BOM"), "RA": ("KTM",), "UL": ("CMB",),
    "QF": ("SYD", "MEL"), "VA": ("BNE", "SYD"), "NZ": ("AKL",), "AA": ("DFW", "MIA", "JFK", "ORD", "LAX"),
    "DL": ("ATL", "JFK", "LAX", "SEA"), "UA": ("ORD", "EWR", "SFO", "IAD"), "AS": ("SEA",), "HA": ("HNL",),
    "AC": ("YYZ", "YVR", "YUL"), "AM": ("MEX",), "CM": ("PTY",), "AV": ("BOG",), "LA": ("SCL", "LIM", "GRU"),
    "AR": ("EZE",),
}  # fmt: skip

LOW_COST = frozenset(
    {"U2", "FR", "VY", "W6", "PC", "DY", "EW", "AK", "FD", "TR", "5J", "VJ", "6E", "Y4", "G3", "AD", "B6"}
)
PREMIUM = frozenset({"SQ", "EK", "QR", "CX", "LX", "QF", "EY", "JL", "NH"})
FIRST_CLASS = frozenset(
    {"AF", "BA", "LH", "LX", "EK", "QR", "EY", "SQ", "CX", "JL", "NH", "KE", "TG", "AI", "QF", "AA", "UA"}
)

# Airports that (almost) only serve domestic flights: not used for international routes.
DOMESTIC_ONLY = frozenset(
    {"ITM", "LGA", "DCA", "CGH", "SDU", "MDW", "TSA", "GMP", "HLP", "BUR", "OAK", "RKV", "AVV", "WIL"}
)

AIRCRAFT: dict[str, str] = {
    "320": "Airbus A320", "321": "Airbus A321", "32N": "Airbus A320neo", "32Q": "Airbus A321neo",
    "223": "Airbus A220-300", "73H": "Boeing 737-800", "7M8": "Boeing 737 MAX 8", "E90": "Embraer 190",
    "333": "Airbus A330-300", "339": "Airbus A330-900", "359": "Airbus A350-900", "351": "Airbus A350-1000",
    "388": "Airbus A380-800", "789": "Boeing 787-9", "788": "Boeing 787-8", "77W": "Boeing 777-300ER",
}  # fmt: skip

SHORT_HAUL_AIRCRAFT = ("320", "321", "32N", "32Q", "223", "73H", "7M8", "E90")
LONG_HAUL_AIRCRAFT = ("333", "339", "359", "351", "789", "788", "77W")


def amadeus_name(name: str) -> str:
    """How Amadeus's dictionaries write a name: capitals without accents ('AEROMEXICO', 'EASYJET')."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return plain.upper()


def home_carriers(country_code: str, region: str) -> tuple[str, ...]:
    return HOME.get(country_code) or REGION_CARRIERS[region]


def aircraft_for(carrier: str, distance_km: float, pick: float) -> str:
    """A plausible aircraft type for the sector length (pick: a uniform draw in [0, 1))."""
    fleet: tuple[str, ...]
    if distance_km < 4500:
        fleet = ("320", "32N", "321", "73H", "7M8") if carrier in LOW_COST else SHORT_HAUL_AIRCRAFT
        if distance_km > 2500:
            fleet = ("321", "32Q", "7M8", "73H")
    else:
        fleet = LONG_HAUL_AIRCRAFT + (
            ("388",) if carrier in {"EK", "QR", "SQ", "BA", "QF", "LH", "KE"} else ()
        )
    return fleet[int(pick * len(fleet))]
