"""Airlines, their home countries and hubs, and aircraft: enough to route flights the way real carriers do."""

from __future__ import annotations

CARRIERS: dict[str, str] = {
    "AF": "AIR FRANCE", "BA": "BRITISH AIRWAYS", "U2": "EASYJET", "FR": "RYANAIR", "LH": "LUFTHANSA",
    "EW": "EUROWINGS", "KL": "KLM ROYAL DUTCH AIRLINES", "IB": "IBERIA", "VY": "VUELING AIRLINES",
    "UX": "AIR EUROPA", "TP": "TAP PORTUGAL", "AZ": "ITA AIRWAYS", "LX": "SWISS INTERNATIONAL AIR LINES",
    "OS": "AUSTRIAN AIRLINES", "SN": "BRUSSELS AIRLINES", "SK": "SAS", "DY": "NORWEGIAN AIR SHUTTLE",
    "AY": "FINNAIR", "FI": "ICELANDAIR", "EI": "AER LINGUS", "A3": "AEGEAN AIRLINES", "LO": "LOT POLISH AIRLINES",
    "OK": "CZECH AIRLINES", "W6": "WIZZ AIR HUNGARY", "TK": "TURKISH AIRLINES", "PC": "PEGASUS AIRLINES",
    "SU": "AEROFLOT", "EK": "EMIRATES", "EY": "ETIHAD AIRWAYS", "QR": "QATAR AIRWAYS", "LY": "EL AL ISRAEL AIRLINES",
    "RJ": "ROYAL JORDANIAN", "SV": "SAUDIA", "MS": "EGYPTAIR", "AT": "ROYAL AIR MAROC", "ET": "ETHIOPIAN AIRLINES",
    "KQ": "KENYA AIRWAYS", "SA": "SOUTH AFRICAN AIRWAYS", "TC": "AIR TANZANIA", "P4": "AIR PEACE",
    "JL": "JAPAN AIRLINES", "NH": "ALL NIPPON AIRWAYS", "KE": "KOREAN AIR", "OZ": "ASIANA AIRLINES",
    "CA": "AIR CHINA", "MU": "CHINA EASTERN AIRLINES", "CZ": "CHINA SOUTHERN AIRLINES", "CX": "CATHAY PACIFIC",
    "CI": "CHINA AIRLINES", "BR": "EVA AIR", "SQ": "SINGAPORE AIRLINES", "TR": "SCOOT",
    "TG": "THAI AIRWAYS INTERNATIONAL", "FD": "THAI AIRASIA", "MH": "MALAYSIA AIRLINES", "AK": "AIRASIA",
    "GA": "GARUDA INDONESIA", "VN": "VIETNAM AIRLINES", "VJ": "VIETJET AIR", "PR": "PHILIPPINE AIRLINES",
    "5J": "CEBU PACIFIC", "AI": "AIR INDIA", "6E": "INDIGO", "RA": "NEPAL AIRLINES", "UL": "SRILANKAN AIRLINES",
    "QF": "QANTAS AIRWAYS", "VA": "VIRGIN AUSTRALIA", "NZ": "AIR NEW ZEALAND", "AA": "AMERICAN AIRLINES",
    "DL": "DELTA AIR LINES", "UA": "UNITED AIRLINES", "AS": "ALASKA AIRLINES", "B6": "JETBLUE AIRWAYS",
    "HA": "HAWAIIAN AIRLINES", "AC": "AIR CANADA", "WS": "WESTJET", "AM": "AEROMEXICO", "Y4": "VOLARIS",
    "CM": "COPA AIRLINES", "AV": "AVIANCA", "LA": "LATAM AIRLINES GROUP", "G3": "GOL LINHAS AEREAS",
    "AD": "AZUL BRAZILIAN AIRLINES", "AR": "AEROLINEAS ARGENTINAS",
}  # fmt: skip

HOME: dict[str, tuple[str, ...]] = {
    "FR": ("AF",), "GB": ("BA", "U2"), "DE": ("LH", "EW"), "NL": ("KL",), "ES": ("IB", "UX", "VY"),
    "PT": ("TP",), "IT": ("AZ", "FR"), "CH": ("LX",), "AT": ("OS",), "BE": ("SN",), "DK": ("SK",),
    "SE": ("SK",), "NO": ("SK", "DY"), "FI": ("AY",), "IS": ("FI",), "IE": ("EI", "FR"), "GR": ("A3",),
    "PL": ("LO", "W6"), "CZ": ("OK",), "HU": ("W6",), "TR": ("TK", "PC"), "RU": ("SU",),
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
    "AY": ("HEL",), "FI": ("KEF",), "EI": ("DUB",), "A3": ("ATH",), "LO": ("WAW",), "OK": ("PRG",), "TK": ("IST",),
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
    "320": "AIRBUS A320", "321": "AIRBUS A321", "32N": "AIRBUS A320NEO", "32Q": "AIRBUS A321NEO",
    "223": "AIRBUS A220-300", "73H": "BOEING 737-800", "7M8": "BOEING 737 MAX 8", "E90": "EMBRAER 190",
    "333": "AIRBUS A330-300", "339": "AIRBUS A330-900", "359": "AIRBUS A350-900", "351": "AIRBUS A350-1000",
    "388": "AIRBUS A380-800", "789": "BOEING 787-9", "788": "BOEING 787-8", "77W": "BOEING 777-300ER",
}  # fmt: skip

SHORT_HAUL_AIRCRAFT = ("320", "321", "32N", "32Q", "223", "73H", "7M8", "E90")
LONG_HAUL_AIRCRAFT = ("333", "339", "359", "351", "789", "788", "77W")


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
