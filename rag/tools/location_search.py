"""The location_search tool: one declaration (see rag/tools/spec.py)."""

from connectors.models import Location
from connectors.params import LocationSearchParams
from rag.tools.spec import ToolSpec

SPEC = ToolSpec(
    name="location_search",
    description="Look up airports and cities by name or code (IATA codes, city codes).",
    params=LocationSearchParams,
    result=Location,
    freshness=90 * 86400,
    labels={
        "en": "airports and cities",
        "es": "aeropuertos y ciudades",
        "fr": "les aéroports et villes",
        "de": "Flughäfen und Städte",
        "pt": "aeroportos e cidades",
        "it": "aeroporti e città",
    },
    result_labels={"en": "place", "es": "lugar", "fr": "lieu", "de": "Ort", "pt": "lugar", "it": "luogo"},
    asks={
        "es": {
            "keyword": "a qué ciudad o aeropuerto te refieres",
        },
        "fr": {
            "keyword": "de quelle ville ou de quel aéroport vous parlez",
        },
        "de": {
            "keyword": "welche Stadt oder welchen Flughafen du meinst",
        },
        "pt": {
            "keyword": "a que cidade ou aeroporto se refere",
        },
        "it": {
            "keyword": "quale città o aeroporto intendi",
        },
    },
    nouns={
        "en": (
            "airports",
            "iata",
            "codes",
            "airport code",
            "city code",
            "code for",
            "letter code",
            "which airport",
            "what airport",
            "airport serves",
            "one airport",
        ),
        "es": ("aeropuertos", "código"),
        "fr": ("aéroports", "code aéroport"),
        "de": ("flughäfen", "flughafencode"),
        "pt": ("aeroportos", "código"),
        "it": ("aeroporti", "codice"),
    },
    recall=r"\bairports?\b|\bcodes?\b",
    routing={
        "threshold": 0.56,
        "keyword_threshold": 0.44,
        "command": "/airports",
        "args": ["keyword"],
        "keywords": [
            r"\b(iata|airport|city) codes?\b|\bcode (for|of)\b|\biata\b|\baeropuertos?\b|\bflughafen\b",
            "(which|what|list( the)?|main) airports?|airports? (in|near|serving|that serve|does .* have)|how many airports",
            r"(qu(é|e)|cu(á|a)l(es)?) aeropuertos?|aeropuertos? (en|cerca de|que sirven?)|quels? a(é|e)roports?|a(é|e)roports? (à|de|pr(è|e)s de|qui dessert)|welche(r|n)? flugh(ä|a)fen|flugh(ä|a)fen (in|von|bei|nahe)|(que|qual|quais) aeroportos?|aeroportos? (em|perto de)|quali? aeroport(o|i)|aeroport(o|i) (a|di|vicino a)\b",
            "c(ó|o)digo (iata|del aeropuerto|do aeroporto|de aeropuerto)|code (iata|de l'a(é|e)roport|a(é|e)roport)|flughafencode|iata-code|codice (iata|dell'aeroporto|aeroporto)",
        ],
        "required": ["keyword"],
        "params": {
            "keyword": "place_text",
        },
        "ask": {
            "keyword": "which city or airport you mean",
        },
        "examples": [
            "what's the airport code for Lisbon",
            "which airports are there in London",
            "IATA code of Narita",
            "what airport serves Venice",
            "is CDG in Paris",
            "list the airports near Milan",
            "what does the code JFK stand for airport",
            "which airport should I use in New York",
        ],
    },
)
