"""The flight_inspiration tool: one declaration (see rag/tools/spec.py)."""

from connectors.models import Inspiration
from connectors.params import FlightInspirationParams
from rag.tools.spec import ToolSpec

SPEC = ToolSpec(
    name="flight_inspiration",
    description="Suggest destinations reachable from an origin city within a budget.",
    params=FlightInspirationParams,
    result=Inspiration,
    freshness=6 * 3600,
    labels={
        "en": "destinations",
        "es": "destinos",
        "fr": "les destinations",
        "de": "Reiseziele",
        "pt": "destinos",
        "it": "destinazioni",
    },
    result_labels={
        "en": "destination",
        "es": "destino",
        "fr": "destination",
        "de": "Reiseziel",
        "pt": "destino",
        "it": "destinazione",
    },
    asks={
        "es": {
            "origin": "desde qué ciudad volarías",
        },
        "fr": {
            "origin": "de quelle ville vous partiriez",
        },
        "de": {
            "origin": "von welcher Stadt aus du fliegen würdest",
        },
        "pt": {
            "origin": "de que cidade partiria",
        },
        "it": {
            "origin": "da quale città partiresti",
        },
    },
    books=True,
    from_trip=frozenset({"origin"}),
    nouns={
        "en": ("getaway", "getaways", "inspiration"),
        "es": ("escapada", "escapadas"),
        "fr": ("escapade", "escapades"),
        "de": ("kurztrip", "kurztrips"),
        "pt": ("escapadinha", "escapadinhas"),
        "it": ("fuga", "fughe"),
    },
    recall=r"\bdestinations?\b|\bideas?\b",
    routing={
        "threshold": 0.74,
        "keyword_threshold": 0.5,
        "command": "/inspire",
        "args": ["origin", "max_price"],
        "keywords": [
            "wh?ere? (can|could|should) (i|we) (fly|go|travel)|anywhere|inspir|getaways?|destinations? (from|under|for|can|could|i can)|what destinations|which (places|cities|destinations)|surprise me|cheap trips? from|destinos|destination ideas?|ideas? for (a )?destinations?|ideas? (of|for) where to go",
            "(a )?d(ó|o)nde (puedo|podemos|podr(í|i)a|podr(í|i)amos) (ir|volar|viajar)|o(ù|u) (puis-je|pourrais-je|pouvons-nous|pourrions-nous|peut-on) (aller|partir|voler|voyager)|wohin (kann|k(ö|o)nnen|k(ö|o)nnte|k(ö|o)nnten) (ich|wir|man) (fliegen|reisen|fahren)|para onde (posso|podemos|poderia|poder(í|i)amos) (ir|voar|viajar)|dove (posso|possiamo|potrei|potremmo) (andare|volare|viaggiare)",
            r"\bdestinazioni\b|\bescapadas?\b|\bescapades?\b|\bkurztrips?\b|\bescapadinhas?\b|\bsorpr(é|e)ndeme\b|\bsurprends-moi\b|\b(ü|u)berrasch mich\b|\bsurpreenda-me\b|\bsurpreende-me\b|\bsorprendimi\b|\bcualquier (sitio|lugar|destino)\b|\bn'importe o(ù|u)\b|\birgendwohin\b|\bqualquer (lugar|destino)\b|\bovunque\b|\bqualsiasi (posto|destinazione)\b",
        ],
        "required": ["origin"],
        "suppresses": ["flight_search"],
        "absent": ["route_destination"],
        "params": {
            "origin": "origin_or_place",
            "max_price": "max_price",
            "departure_date": "start_or_month",
            "nonstop": "nonstop",
        },
        "ask": {
            "origin": "which city you would fly from",
        },
        "examples": [
            "where can I fly from Madrid for under 200 euros",
            "cheap getaways from New York in March",
            "inspire me with destinations from Paris under 300",
            "anywhere warm I can fly to from London on a budget",
            "what destinations can I reach from Berlin for 150",
            "weekend trip ideas from Toronto under 400 dollars",
            "surprise me with a cheap trip from Dubai",
            "where could we go from Sydney for less than 500",
            "a dónde puedo volar desde Madrid por menos de 200 euros",
            "escapadas baratas desde Barcelona",
            "où puis-je partir depuis Paris pour moins de 300 euros",
            "idées de week-end au départ de Lyon",
            "wohin kann ich von Berlin aus für 150 Euro fliegen",
            "günstige Kurztrips ab Hamburg",
            "para onde posso voar a partir de Lisboa com 200 euros",
            "dove posso volare da Roma con meno di 200 euro",
        ],
    },
)
