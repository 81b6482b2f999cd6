"""The cheapest_dates tool: one declaration (see rag/tools/spec.py)."""

from connectors.models import CheapestDate
from connectors.params import CheapestDatesParams
from rag.tools.spec import ToolSpec

SPEC = ToolSpec(
    name="cheapest_dates",
    description="Find the cheapest dates to fly between two cities.",
    params=CheapestDatesParams,
    result=CheapestDate,
    freshness=6 * 3600,
    labels={
        "en": "cheapest dates",
        "es": "fechas más baratas",
        "fr": "les dates les moins chères",
        "de": "die günstigsten Reisedaten",
        "pt": "datas mais baratas",
        "it": "date più economiche",
    },
    result_labels={
        "en": "cheapest dates",
        "es": "fechas más baratas",
        "fr": "dates les moins chères",
        "de": "günstigste Reisedaten",
        "pt": "datas mais baratas",
        "it": "date più economiche",
    },
    asks={
        "es": {
            "origin": "desde dónde sales",
            "destination": "adónde quieres volar",
        },
        "fr": {
            "origin": "d'où vous partez",
            "destination": "où vous voulez aller en avion",
        },
        "de": {
            "origin": "von wo du abfliegst",
            "destination": "wohin du fliegen möchtest",
        },
        "pt": {
            "origin": "de onde parte",
            "destination": "para onde quer voar",
        },
        "it": {
            "origin": "da dove parti",
            "destination": "dove vuoi volare",
        },
    },
    about="route",
    books=True,
    from_trip=frozenset({"origin", "destination"}),
    recall=r"\bdates?\b|\bwhen\b",
    routing={
        "threshold": 0.56,
        "keyword_threshold": 0.3,
        "command": "/dates",
        "args": ["origin", "destination"],
        "keywords": [
            r"che?a?pe?st (date|day|time|week|month)s?|(date|day|week|month|time)s? .{0,25}(cheapest|price-?wise)|when is it cheap|when('s| is| are)? .{0,30}cheapest|pay (the )?least|cheaper to fly .* or|lowest fares?\b|when (is|are) (it|flights?|fares?) (cheap|lowest)|best (dates?|day) to (fly|book)|lowest fares? (in|over|for)",
            "(fechas?|d(í|i)as?) m(á|a)s barat(a|o)s?|cu(á|a)ndo (es|sale|est(á|a)) m(á|a)s barato|(dates?|jours?) les moins ch(è|e)re?s?|quand (est-ce|est-il) (le )?moins cher|quand .{0,20}moins cher|g(ü|u)nstigsten? (tage?|termine?|daten|reisedaten|reisezeit|zeitpunkt|flugtage)|wann .{0,25}am g(ü|u)nstigsten|(datas?|dias?) mais barat(a|o)s?|quando (é|e|fica) mais barato|(date|giorni) pi(ù|u) economic(he|i)|quando (costa|conviene) (di )?meno",
        ],
        "required": ["origin", "destination"],
        "suppresses": ["flight_search", "flight_inspiration"],
        "params": {
            "origin": "origin",
            "destination": "destination",
            "departure_date": "start_or_month",
        },
        "ask": {
            "origin": "where you are flying from",
            "destination": "where you want to fly to",
        },
        "examples": [
            "cheapest dates to fly Paris to Rome",
            "when is it cheapest to fly from London to New York",
            "which week in June is cheapest from Madrid to Lisbon",
            "best day to fly Tokyo to Seoul for a low fare",
            "what dates have the lowest fares from Berlin to Athens",
            "when should I book NYC to LAX to pay least",
        ],
    },
)
