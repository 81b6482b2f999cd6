"""What a message narrows a search to: a kind of place ("How about a museum?") and an airline ("I'd
rather fly with United"). Pure word tables in en/es/fr/de/pt/it.

A kind of place is one of connectors.params.ActivityCategory; the first kind of CATEGORIES the message
names wins, in their order (a "theme park" is no park, a "history museum" is a museum). Words of a
general search ("attractions", "sights", "Sehenswürdigkeiten") name no kind, and neither does a place
already found ("Is this museum child-friendly?", "the address of the museum").

An airline is read from the airline table (connectors.airlines). A name that is also an everyday word or
a place ("United", "Delta", "Alaska", "Turkish", "LOT") counts only after a word that introduces a
carrier ("with United", "on Delta", "fly Alaska", "avec Swiss", "mit Condor"), or followed by
"Airlines"; the others ("KLM", "easyJet", "Lufthansa", "British Airways") count wherever they are.
"""

from __future__ import annotations

import re
from functools import lru_cache

from connectors.airlines import AIRLINES
from connectors.places import fold

# Kinds of place, the first that matches wins.
CATEGORIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(words))
    for name, words in (
        (
            "amusement",
            r"\b(?:theme|amusement|water|safari) ?parks?\b|\bzoos?\b|\baquariums?\b|\bzool[oó]gicos?\b"
            r"|\bacuarios?\b|\bparques? (?:de atracciones|tem[aá]ticos?|acu[aá]ticos?|de divers(?:õ|o)es)\b"
            r"|\bparcs? (?:d'attractions|à thème|aquatiques?|zoologiques?)\b|\bfreizeitparks?\b"
            r"|\bvergn(?:ü|u)gungsparks?\b|\btierparks?\b|\baqu[aá]rios?\b|\bacquari(?:o|um)\b"
            r"|\bparchi? (?:divertimenti|a tema|acquatic[oi])\b|\bluna ?park\b",
        ),
        (
            "museum",
            r"\bmus(?:eums?|een|eos?|ei|ées?|eus?)\b|\bgall?er(?:y|ies|ía|ías|ia|ie|ien|ias|ie)\b"
            r"|\bkunst(?:galerie|halle|museum)\w*\b|\bpinacoteca\b",
        ),
        (
            "performing_arts",
            r"\bperforming[ -]arts?\b|\btheat(?:re|er)s?\b|\bconcert(?:s| halls?)?\b|\bopera(?: houses?)?\b"
            r"|\bballet\b|\bphilharmoni\w*|\bsymphony\b|\blive music\b|\bteatros?\b|\bconciertos?\b|\b[oó]pera\b"
            r"|\bth[eé][aâ]tres?\b|\bop[eé]ra\b|\bkonzert(?:e|haus|saal|säle)?\b|\bopernhaus\b|\bconcertos?\b"
            r"|\bteatri\b|\bconcerti\b|\bartes esc[eé]nicas\b|\barts du spectacle\b",
        ),
        (
            "religious",
            r"\bplaces? of worship\b|\bchurch(?:es)?\b|\bcathedrals?\b|\bbasilicas?\b|\bmosques?\b"
            r"|\bsynagogues?\b|\btemples?\b|\bmonaster(?:y|ies)\b|\babbeys?\b|\bshrines?\b|\bchapels?\b"
            r"|\breligious (?:sites?|places?|buildings?|spots?)\b|\biglesias?\b|\bcatedral(?:es)?\b"
            r"|\bmezquitas?\b|\bsinagogas?\b|\btemplos?\b|\bmonasterios?\b|\blugar(?:es)? de culto\b"
            r"|\b[eé]glises?\b|\bcath[eé]drales?\b|\bmosqu[eé]es?\b|\blieux? de culte\b|\bkirchen?\b"
            r"|\bkathedralen?\b|\bmoscheen?\b|\bsynagogen?\b|\btempel\b|\bkl(?:ö|o)ster\b|\bgottesh(?:ä|a)user\b"
            r"|\bgotteshaus\b|\bigrejas?\b|\bmesquitas?\b|\bmosteiros?\b|\bchiesa\b|\bchiese\b"
            r"|\bcattedral[ei]\b|\bduomo\b|\bmoschea\b|\btempi?o\b|\btempli\b|\bluoghi? di culto\b",
        ),
        (
            "sports",
            r"\bsports? (?:venues?|grounds?|arenas?|complex(?:es)?|events?|games?|matche?s?)\b"
            r"|\bstadi(?:um|ums|a)\b|\barenas?\b|\bballparks?\b|\bestadios?\b|\bstades?\b|\bstadi(?:on|en)\b"
            r"|\best[aá]dios?\b|\bstadi[oi]\b|\bpartidos? de f[uú]tbol\b|\bmatch(?:es)? de foot(?:ball)?\b"
            r"|\bfu(?:ß|ss)ballspiel\w*\b|\bjogos? de futebol\b|\bpartit[ae] di calcio\b",
        ),
        (
            "park",
            r"(?<!car )(?<!to )(?<!i )(?<!we )\bparks?\b|\bgardens?\b|\bbotanic(?:al)?\b"
            r"|\bnature (?:reserves?|preserves?)\b|\bparques?\b|\bjard[ií]n(?:es)?\b|\bparcs?\b|\bjardins?\b"
            r"|\bg(?:ä|a)rten\b|\bstadtparks?\b|\bjardim\b|\bparco\b|\bparchi\b|\bgiardin[oi]\b"
            r"|\breservas? natura(?:l|is|les)\b|\br[eé]serves? naturelles?\b|\bnaturschutzgebiet\w*\b"
            r"|\briserv[ae] natural[ei]\b",
        ),
        (
            "historic",
            r"\bhistor(?:ic|ical)\b|\bmonuments?\b|\bmemorials?\b|\bcastles?\b|\bpalaces?\b|\bfortress(?:es)?\b"
            r"|\bruins\b|\bmedieval\b|\bancient\b|\bhist[oó]ric[oa]s?\b|\bmonumentos?\b|\bcastillos?\b"
            r"|\bpalacios?\b|\bruinas\b|\bhistoriques?\b|\bch[aâ]teaux?\b|\bpalais\b|\bruines\b"
            r"|\bhistorisch\w*\b|\bdenkm(?:a|ä)l(?:er)?\b|\bburg(?:en)?\b|\bschl(?:o|ö)(?:ss|ß)\w*\b"
            r"|\bcastelos?\b|\bpal[aá]cios?\b|\bru[ií]nas\b|\bstoric[oaie]\b|\bmonumenti\b|\bcastell[oi]\b"
            r"|\bpalazz[oi]\b|\brovine\b",
        ),
        (
            "landmark",
            r"\blandmarks?\b|\bview ?points?\b|\blookouts?\b|\bobservation (?:decks?|towers?)\b"
            r"|\bpanoramic views?\b|\bscenic (?:views?|spots?)\b|\bmiradou?ro?s?\b|\bmiradores\b"
            r"|\bbelv[eé]d[eè]res?\b|\bpoints? de vue\b|\baussichts(?:punkt|turm|plattform)\w*\b"
            r"|\bpunt[oi] panoramic[oi]\b",
        ),
    )
)

# Words before a kind of place that point at one place, not at a kind ("this museum", "the zoo").
_THAT_ONE = re.compile(
    r"\b(?:this|that|these|those|the|its|their|este|esta|ese|esa|aquel|aquella|ce|cet|cette|dieser|diese"
    r"|dieses|diesem|diesen|esse|essa|aquele|aquela|questo|questa|quello|quella)\s+$"
)

# Airline names that are everyday words or places: an airline only after a word that introduces one,
# or before "Airlines" or "flight"; the short ones also only written in capitals ("with LOT").
EVERYDAY = frozenset(
    "united american delta alaska southwest frontier spirit hawaiian copa latam azul condor swiss "
    "austrian norwegian aegean turkish pegasus emirates ethiopian asiana garuda indigo scoot saudia "
    "iberia allegiant".split()
    + ["sun country", "el al"]
)
ACRONYMS = frozenset("ana lot tap ita sas gol jal".split())
# Words before a name that make it an airline ("with", "on", "fly", "avec", "mit", "com", ...).
_CUE = re.compile(
    r"(?:\bwith|\bon|\bvia|\bfly(?:ing)?|\bflown|\bprefer(?:ably)?|\bairlines?|\bcarriers?|\bcon|\bavec|\bpar"
    r"|\bmit|\bcom|\bpela|\bpelo|\bcompañ[ií]a|\baerol[ií]neas?|\bcompagnies?|\bfluggesellschaft"
    r"|\bcompanhias?|\bcompagnia)\s+(?:the\s+|la\s+|le\s+|der\s+|a\s+|o\s+)?$"
)
_AIRLINE_WORD = re.compile(r"\s*(?:air ?lines?\b|airways\b|air\b|flights?\b)")
# What an everyday name is part of when it is no airline ("United States", "American Express").
_NOT_AIRLINE = re.compile(r"\s+(?:states|kingdom|nations|arab|express|airport|peninsula|sea|coast)\b")


@lru_cache(maxsize=1)
def _airline_names() -> tuple[re.Pattern[str], dict[str, str]]:
    """One pattern of every airline name (lower case as written, and folded), and each to its code."""
    codes: dict[str, str] = {}
    for code, written in AIRLINES.items():
        for name in written:
            for form in (name.lower(), fold(name)):
                codes.setdefault(form, code)
    alternatives = sorted(codes, key=len, reverse=True)
    body = "|".join(r"\s+".join(map(re.escape, a.split())) for a in alternatives)
    return re.compile(rf"(?<![\w-])(?:{body})(?![\w-])"), codes


def find_category(lowered: str) -> str | None:
    """The kind of place a lower-cased message asks for ("museum", "park", ...), if any."""
    for name, pattern in CATEGORIES:
        for m in pattern.finditer(lowered):
            said = _THAT_ONE.search(lowered[max(0, m.start() - 12) : m.start()])
            if said is None or (said.group(0).startswith("the ") and m.group(0).endswith("s")):
                return name  # "the museums" are a kind again
    return None


def find_airline(text: str) -> tuple[str, int, int] | None:
    """The airline a message names, as its IATA code, and where the name is (start, end)."""
    lowered = text.lower()
    pattern, codes = _airline_names()
    for m in pattern.finditer(lowered):
        name = " ".join(m.group(0).split())
        if name in EVERYDAY or name in ACRONYMS:
            after = lowered[m.end() :]
            named = bool(_AIRLINE_WORD.match(after))
            cued = bool(_CUE.search(lowered[max(0, m.start() - 30) : m.start()]))
            if name in ACRONYMS and not text[m.start() : m.end()].isupper():
                cued = False
            if _NOT_AIRLINE.match(after) or not (named or cued):
                continue
        return codes[name], m.start(), m.end()
    return None
