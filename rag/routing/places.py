"""Places named in free text: cities and airports through the location catalogue. Pure.

Longest names first, then IATA codes (lower-case ones only when they are not everyday words or money),
then misspellings of single-word city names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from connectors.locations import LocationCatalogue, Place, fold

# Catalogue names that are everyday words: a place only after a locative word ("to Nice").
AMBIGUOUS = frozenset("bath florence male march may mobile nice orange reading split victoria".split())
# Three-letter lower-case words that are also IATA codes but mean something else in a sentence.
NOT_CODES = frozenset(
    "ago air all and any apr are art ask aud aug bag bar bay bed big bus but buy cab cad can car cat chf "
    "dad day dec den did dog dry eat end eur far feb few fly for fri fun gbp get gym had has her him his "
    "hop hot how ice inn its jan jpy jul jun kid law let lot low man mar max may met min mom mon new not "
    "nov now oct off old one our out own pax pay per pet pub rio run sat sea see sep set she sip six sky "
    "son spa sun tea ten the thu tip too top tue two usd use van via war was way wed wet who why yes yet "
    "you".split()
)
# Currency codes, which are also airport codes ("2000 NOK" is money, not Xingu airport).
CURRENCIES = frozenset(
    "AED ARS AUD BRL CAD CHF CLP CNY COP CZK DKK EGP EUR GBP HKD HUF IDR ILS INR ISK JPY KES KRW MAD MXN "
    "MYR NOK NZD PEN PHP PLN SEK SGD THB TRY USD VND ZAR".split()
)
_WORD = re.compile(r"[^\W\d_][\w'’.-]*", re.UNICODE)


@dataclass(frozen=True, slots=True)
class PlaceMention:
    place: Place
    text: str
    start: int
    end: int
    role: str | None  # "origin", "destination" or None


def find_places(text: str, catalogue: LocationCatalogue, skip: list[tuple[int, int]]) -> list[PlaceMention]:
    """Cities and airports named in ``text``: longest names first, then codes, then misspellings."""
    words = [(re.sub(r"['’]s$", "", m.group(0).rstrip(".'’-")), m.start()) for m in _WORD.finditer(text)]
    found: list[PlaceMention] = []
    used: set[int] = set()

    def free(start: int, end: int) -> bool:
        return not any(start < e and s < end for s, e in skip) and not any(
            i in used for i in range(start, end)
        )

    for size in (4, 3, 2, 1):
        for i in range(len(words) - size + 1):
            chunk = words[i : i + size]
            start = chunk[0][1]
            end = chunk[-1][1] + len(chunk[-1][0])
            if not free(start, end):
                continue
            phrase = text[start:end]
            key = fold(phrase)
            place = None
            if size == 1 and len(phrase) == 3 and phrase.isalpha():
                if phrase.upper() in CURRENCIES and not _known_code(catalogue, phrase):
                    continue  # "2000 NOK" is money, not Xingu airport
                if phrase.isupper() or (phrase.lower() not in NOT_CODES and _known_code(catalogue, phrase)):
                    place = catalogue.resolve(phrase)
            elif catalogue.is_name(key) or (size == 1 and len(key) > 3 and catalogue.is_airport_city(key)):
                if key in AMBIGUOUS and not _locative_before(text, start):
                    continue
                place = catalogue.resolve(phrase)
            if place is not None:
                found.append(PlaceMention(place, phrase, start, end, None))
                used.update(range(start, end))
    # Misspellings of single-word city names ("Barcelonna", "Amsterdm").
    for word, start in words:
        end = start + len(word)
        if len(word) < 5 or not free(start, end) or not word.isalpha():
            continue
        match = process.extractOne(
            fold(word), catalogue.single_word_names, scorer=fuzz.ratio, score_cutoff=86
        )
        if match:
            place = catalogue.resolve(match[0])
            if place is not None:
                found.append(PlaceMention(place, word, start, end, None))
                used.update(range(start, end))
    found.sort(key=lambda p: p.start)
    # The same place named twice ("Paris ... in Paris") counts once, at its first mention.
    unique: list[PlaceMention] = []
    for p in found:
        if all(p.place.city_code != q.place.city_code or p.place.code != q.place.code for q in unique):
            unique.append(p)
    return unique


def _known_code(catalogue: LocationCatalogue, code: str) -> bool:
    up = code.upper()
    return catalogue.city(up) is not None or catalogue.city_of_airport(up) is not None


def _locative_before(text: str, start: int) -> bool:
    return bool(
        re.search(r"\b(?:to|in|from|at|near|visit|around|of)\s+$", text[max(0, start - 12) : start], re.I)
    )
