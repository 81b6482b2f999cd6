"""The activity_search tool: one declaration (see rag/tools/spec.py)."""

from connectors.models import Activity
from connectors.params import ActivitySearchParams
from rag.tools.spec import ToolSpec

SPEC = ToolSpec(
    name="activity_search",
    description="Find tours and activities to book in or around a city.",
    params=ActivitySearchParams,
    result=Activity,
    freshness=7 * 86400,
    labels={
        "en": "activities",
        "es": "actividades",
        "fr": "les activités",
        "de": "Aktivitäten",
        "pt": "atividades",
        "it": "attività",
    },
    result_labels={
        "en": "activity",
        "es": "actividad",
        "fr": "activité",
        "de": "Aktivität",
        "pt": "atividade",
        "it": "attività",
    },
    asks={
        "es": {
            "city": "en qué ciudad buscas actividades",
        },
        "fr": {
            "city": "dans quelle ville vous cherchez des activités",
        },
        "de": {
            "city": "in welcher Stadt du Aktivitäten suchst",
        },
        "pt": {
            "city": "em que cidade procura atividades",
        },
        "it": {
            "city": "in quale città cerchi attività",
        },
    },
    offered=True,
    from_trip=frozenset({"city"}),
    nouns={
        "en": ("activities", "tours"),
        "es": ("actividades",),
        "fr": ("activités",),
        "de": ("aktivitäten",),
        "pt": ("atividades",),
        "it": ("attività",),
    },
    recall=r"\bactivit|\btours?\b|excursion|\bclass",
    routing={
        "threshold": 0.72,
        "keyword_threshold": 0.2,
        "command": "/activities",
        "args": ["city"],
        "keywords": [
            r"\battractions?\b|sight-?seeing|\bsights\b|things? (fun )?to (do|see)|something (fun )?to (do|see)|stuff to do|places? (of (attraction|interest)|to (visit|see|go))|tourist (spots?|sites?)|points? of interest|view ?points?|\blandmarks?\b|\bmuseums?\b|art galler(y|ies)|\btheme parks?\b|\bamusement parks?\b|performing arts|\bzoos?\b|\baquariums?\b|\batracci(ó|o)n(es)?\b|\bsehensw(ü|u)rdigkeit(en)?\b|\batra(ç|c)(ã|a)o|\batra(ç|c)(õ|o)es\b|\battrazion(e|i)\b",
            r"\btours?\b|excursions?|day trips?|(?<!business )(?<!first )(?<!economy )\bclass(es)?\b|workshops?|activit(y|ies) (i|we) can book|book (an? )?(activit|tour|tickets?|experience)",
            r"\bactivit(y|ies)\b|lessons?|\brides?\b|boat trips?|\bshows\b|\b(a|the|broadway|magic|comedy|dance|live|flamenco) show\b|\bbillets?\b|(?<!plane )(?<!air )(?<!flight )(?<!train )(?<!bus )\btickets? (for|to)\b(?! (a |an |the |my )?(one[- ]way |round[- ]trip |return |cheap )?(flights?|planes?|trains?|bus))|skip[- ]the[- ]line|guided|cruise|tasting|scuba|diving|snorkel|safari|rafting|kayak|paraglid|tickets\b(?<!plane tickets)(?<!air tickets)(?<!class tickets)(?<!economy tickets)(?<!flight tickets)(?<!airline tickets)(?<!way tickets)(?<!trip tickets)",
            r"\bexcursi(ó|o)n(es)?\b|\bvisitas? guiadas?\b|\bactividades\b|\bactivit(é|e)s\b|\bvisites? guid(é|e)es?\b|\bausfl(ü|u)ge?\b|\bf(ü|u)hrung(en)?\b|\baktivit(ä|a)ten\b|\bpasseios?\b|\batividades\b|\bescursion(e|i)\b|\battivit(à|a)\b|\bvisit(a|e) guidat(a|e)\b",
            r"\bentradas? (para|al|a la)\b|\beintrittskarten?\b|\bingressos? (para|no|na)\b|\bbiglietti? (per|d'ingresso)\b|\bclases? de (cocina|surf|baile|flamenco)|\bcours de (cuisine|surf|danse)|\b(koch|surf|tanz)kurs|\baulas? de (culin(á|a)ria|surf|dan(ç|c)a)|\bcorsi? di (cucina|surf|ballo)|\b(paseo|tour|balade|croisi(è|e)re|bootsfahrt|passeio|giro) en (barco|bateau)\b|\bpaseos? en barco\b|\bpasseios? de barco\b|\bgiri? in barca\b|\bcata de vinos\b|\bd(é|e)gustation\b|\bweinprobe\b|\bprova de vinhos\b|\bdegustazione\b|\breservar (un|una) (tour|excursi(ó|o)n|actividad)|\br(é|e)server (une|un) (visite|excursion|activit(é|e))|\b(tour|ausflug|f(ü|u)hrung) buchen",
        ],
        "required": ["city"],
        "params": {
            "city": "place",
        },
        "ask": {
            "city": "which city you want activities in",
        },
        "examples": [
            "find me a food tour in Bangkok",
            "book a cooking class in Rome",
            "what activities can I book in Barcelona tomorrow",
            "guided tours of the Colosseum with tickets",
            "day trips from Lisbon I can book",
            "skip the line tickets for the Louvre",
            "sunset boat cruise in Istanbul",
            "any wine tasting excursions near Cape Town",
            "bookable experiences in Tokyo for kids",
            "snorkelling trips in Bali to reserve",
            "reservar una visita guiada del Museo del Prado",
            "excursiones de un día desde Lisboa",
            "clase de cocina en Roma",
            "réserver une visite guidée du Louvre",
            "excursions d'une journée au départ de Nice",
            "billets pour la tour Eiffel",
            "Führung durch das Kolosseum buchen",
            "Tagesausflüge ab München",
            "Kochkurs in Florenz",
            "passeios de barco em Lisboa",
            "excursões de um dia a partir do Porto",
            "ingressos para o Cristo Redentor",
            "visita guidata del Colosseo con biglietti",
            "escursioni in giornata da Firenze",
            "corso di cucina a Bologna",
        ],
    },
)
