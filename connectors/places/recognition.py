"""Places named in free text: cities, districts, airports, regions and countries through the place
catalogue. Pure.

Longest names first, then IATA codes (lower-case ones only when they are not everyday words or money),
then misspellings of well-known cities. A name that is also an everyday word in one of our languages
("Nice", "Split", "Reading", "Como", "Of") counts only after a locative word ("to Nice", "à Nice") or
written as a proper noun mid-sentence, unless it is a well-known city; sent alone it answers "which
city?" unless it reads as a reaction ("Nice!") and no place was asked for. A kind of lodging ("a riad",
"uma casa") is no place. A district ("Roma Norte") is its city's place with its own name kept; a
state or region named alone ("Maine") is a region, not the town that bears its name. Place-like words
after a locative that name nothing ("hotels in Zzyzx") are reported as unknown, so the traveller can be
asked.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rapidfuzz import fuzz, process
from wordfreq import zipf_frequency

from connectors.places.catalogue import PROMINENT_POPULATION, LocationCatalogue, Place, fold
from connectors.places.lodging import lodging, lodging_is_place
from connectors.places.model import Mentions, PlaceMention
from connectors.places.words import (
    ARTICLES,
    CURRENCIES,
    NEVER_PLACES,
    NOT_CODES,
    NOT_CODES_ABROAD,
    RARE_ZIPF,
    locative_before,
    needs_anchor,
    reaction,
    sentence_start,
    title_case,
    wordlike,
    zipf,
)

_WORD = re.compile(r"[^\W\d_][\w'’.-]*", re.UNICODE)
# A state, province or country after a name ("Paris, Texas", "Portland Maine", "Washington, D.C.").
_QUALIFIER = re.compile(r",?\s+((?:[A-Za-z]\.){2,}|[^\W\d_]+(?:\s[^\W\d_]+){0,2})")


def find_places(
    text: str,
    catalogue: LocationCatalogue,
    skip: list[tuple[int, int]],
    country: str | None = None,
    near: str | None = None,
    expecting: bool | None = None,
) -> Mentions:
    """Cities, districts, airports, regions and countries named in ``text``, and unknown place names
    after locatives.

    ``country``: the conversation's country, which settles names several places share; ``near``: the
    IATA city code of the conversation's city, which settles names a district and a city share
    ("Palermo" on a trip to Buenos Aires); ``expecting``: whether the assistant just asked for a
    place (then "Nice." alone answers it), None when the caller cannot tell.
    """
    country = country or catalogue.country_of(near)
    words = [(re.sub(r"['’]s$", "", m.group(0).rstrip(".'’-")), m.start()) for m in _WORD.finditer(text)]
    titled = title_case(text)
    out = Mentions()
    found: list[PlaceMention] = []
    # Characters already taken (by a date, a month or a place found), one byte each: whether a span is
    # free costs its own length, not the number of spans taken so far.
    taken = bytearray(len(text))
    for s, e in skip:
        _take(taken, s, e)

    def free(start: int, end: int) -> bool:
        return taken.find(1, start, end) < 0

    whole = fold(text.strip(" ?!.¿¡"))

    def anchored(start: int, phrase: str, big: bool = False) -> bool:
        key = fold(phrase)
        if key == whole:  # the whole message is the name: an answer to "which city?", or "Nice!"
            return bool(expecting) or not reaction(key)
        capital = phrase[:1].isupper() and not titled and not sentence_start(text, start)
        # A German noun's capital says nothing, unless it is a big city's name ("Kopenhagen").
        proper = capital and (big or not german_noun(key))
        return proper or locative_before(text, start)

    def named_district(start: int, phrase: str, key: str) -> bool:
        """Districts that are everyday words ("Monti", "the Mission") count written with capitals."""
        capital = any(w[:1].isupper() for w in phrase.split() if fold(w) not in ARTICLES)
        return not wordlike(key) or (capital and not titled and anchored(start, phrase))

    shared: list[tuple[int, str]] = []  # (index in found, name): names a district shares, unsettled
    for size in (4, 3, 2, 1):
        for i in range(len(words) - size + 1):
            chunk = words[i : i + size]
            start = chunk[0][1]
            end = chunk[-1][1] + len(chunk[-1][0])
            if not free(start, end):
                continue
            phrase = text[start:end]
            if size > 1 and all(w.isupper() and len(w) == 3 and _known_code(catalogue, w) for w, _ in chunk):
                continue  # "DEL RIO", "LON PAR": codes side by side, not the name they happen to spell
            key = fold(phrase)
            country_code = catalogue.country_code(key)
            place: Place | None = None
            district: str | None = None
            if size == 1 and len(phrase) == 3 and phrase.isalpha() and not country_code:
                if phrase.upper() in CURRENCIES and not _known_code(catalogue, phrase):
                    continue  # "2000 NOK" is money, not Xingu airport
                everyday = phrase.lower() in NOT_CODES or phrase.lower() in NOT_CODES_ABROAD
                if phrase.isupper() or (not everyday and _known_code(catalogue, phrase)):
                    place = catalogue.resolve(phrase)
            if place is None and lodging(key) and not lodging_is_place(text, start, end, titled):
                _take(taken, start, end)  # "a riad", "uma casa": where one sleeps, not where
                continue
            # A lower-case word of one or two letters is an article or a preposition ("à la journée",
            # "vale la pena"), never "LA".
            tiny = size == 1 and len(phrase) <= 2 and phrase.islower()
            if place is None and not tiny and key not in NEVER_PLACES and not country_code:
                choice = (
                    catalogue.districts.choose(key, country, near) if key in catalogue.districts else None
                )
                if choice is not None and named_district(start, phrase, key):
                    qualified = _qualifier(text, end, catalogue, key)
                    if qualified is not None:  # "Westminster, Colorado": the city, not London's district
                        place, end, phrase = qualified[0], qualified[1], text[start : qualified[1]]
                    else:
                        place, district = choice.place, choice.district.name
                        if choice.options:
                            out.ambiguous[phrase] = list(choice.options)
                            shared.append((len(found), key))
            region = None if place is not None or tiny else catalogue.region(key, country)
            # A country's name is the country ("Georgia"), unless the conversation is in the country of a
            # region of that name; the UK's nations stay the UK.
            local = region is not None and region.country_code == (country or "").upper()
            if region is not None and (not country_code or (local and region.country_code != country_code)):
                # A region's name is written as one ("Kalifornien im Sommer"), or follows a locative.
                if phrase[:1].isupper() or key == whole or locative_before(text, start):
                    if region not in out.regions:
                        out.regions.append(region)
                    _take(taken, start, end)
                continue
            if place is None and not tiny and key not in NEVER_PLACES and catalogue.is_name(key):
                candidate = catalogue.resolve(phrase, country, near, districts=False)
                # A small town's name written in lower case ("hawker centres") is a word until a
                # locative or a capital makes it a place.
                obscure = (
                    candidate is not None and not candidate.known and candidate.population < MIN_LOWER_CASE
                )
                big = candidate is not None and (
                    candidate.known or candidate.population >= PROMINENT_POPULATION
                )
                if candidate is not None and (
                    not (needs_anchor(catalogue, key, candidate) or (obscure and phrase.islower()))
                    or anchored(start, phrase, big)
                ):
                    place = candidate
                    qualified = _qualifier(text, end, catalogue, key)
                    if qualified is not None:  # "Paris, Texas", "Portland Maine"
                        place, end, phrase = qualified[0], qualified[1], text[start : qualified[1]]
                    elif options := catalogue.ambiguous(key, country):
                        out.ambiguous[phrase] = options
                    if key in catalogue.districts:
                        shared.append((len(found), key))
            if place is not None:
                found.append(PlaceMention(place, phrase, start, end, None, district))
                _take(taken, start, end)
                if country_code == place.country_code and country_code not in out.countries:
                    out.countries.append(country_code)  # "Singapore", "Monaco": city and country at once
            elif country_code and (not wordlike(key) or anchored(start, phrase)):
                if country_code not in out.countries:
                    out.countries.append(country_code)
                _take(taken, start, end)
    _districts_of_named_cities(catalogue, found, shared, out)
    # Misspellings of well-known cities ("Barcelonna", "Amsterdm"), never of everyday words.
    for word, start in words:
        end = start + len(word)
        key = fold(word)
        if len(word) < 5 or not free(start, end) or not word.isalpha() or wordlike(key) or lodging(key):
            continue
        choices = _fuzzy_choices(catalogue.fuzzy_names, len(key))
        match = process.extractOne(key, choices, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF)
        place = catalogue.resolve(match[0], country) if match else None
        if place is not None:
            found.append(PlaceMention(place, word, start, end, None))
            _take(taken, start, end)
    out.unknown = _unknown(text, words, free, titled)
    found.sort(key=lambda p: p.start)
    # The same place named twice ("Paris ... in Paris") counts once, at its first mention.
    seen: set[tuple[str, str]] = set()
    for p in found:
        if (p.place.city_code, p.place.code) not in seen:
            seen.add((p.place.city_code, p.place.code))
            out.places.append(p)
    return out


def german_noun(key: str) -> bool:
    """Whether a folded word is a German noun ("wetter", "reise"): capitalised in German whatever it is,
    so its capital says nothing of it being a name."""
    return " " not in key and zipf_frequency(key, "de") >= GERMAN_NOUN_ZIPF > zipf_frequency(key, "en")


GERMAN_NOUN_ZIPF = 3.5
# A place this small is a place in lower case only after a locative ("weather in zermatt").
MIN_LOWER_CASE = 15_000


def _districts_of_named_cities(
    catalogue: LocationCatalogue, found: list[PlaceMention], shared: list[tuple[int, str]], out: Mentions
) -> None:
    """ "Palermo, Buenos Aires", "a hotel in Soho in London": a name a city elsewhere or another city's
    district shares is the district of a city the message names too."""
    for index, key in shared:
        mention = found[index]
        for code in {p.place.city_code for i, p in enumerate(found) if i != index}:
            choice = catalogue.districts.choose(key, near=code)
            if choice is not None and choice.place.city_code == code:
                found[index] = PlaceMention(
                    choice.place, mention.text, mention.start, mention.end, None, choice.district.name
                )
                out.ambiguous.pop(mention.text, None)
                break


def _take(taken: bytearray, start: int, end: int) -> None:
    start, end = max(0, start), min(len(taken), end)
    if start < end:
        taken[start:end] = b"\x01" * (end - start)


# A misspelling counts when fuzz.ratio (100 × (1 - indel distance / total length)) reaches this.
FUZZY_CUTOFF = 86
_BY_LENGTH: dict[int, tuple[tuple[str, ...], dict[int, tuple[str, ...]]]] = {}


def _fuzzy_choices(names: tuple[str, ...], n: int) -> tuple[str, ...]:
    """The names (in their order) whose length lets an ``n``-letter word reach FUZZY_CUTOFF: the indel
    distance is at least the difference of the lengths, so the others cannot match, and comparing a
    word with a tenth of the names finds the same best match as comparing it with all of them."""
    known = _BY_LENGTH.get(id(names))
    if known is None or known[0] is not names:
        known = (names, {})
        _BY_LENGTH[id(names)] = known
    by_length = known[1]
    if n not in by_length:
        by_length[n] = tuple(
            name for name in names if abs(len(name) - n) * 100 <= (100 - FUZZY_CUTOFF) * (len(name) + n)
        )
    return by_length[n]


def _qualifier(text: str, end: int, catalogue: LocationCatalogue, key: str) -> tuple[Place, int] | None:
    """A state, province or country right after a name ("Paris, Texas", "Portland OR", "Sydney, NSW",
    "Washington, D.C."): the place and its end."""
    m = _QUALIFIER.match(text, end)
    if not m:
        return None
    words = m.group(1).split()
    for n in range(len(words), 0, -1):
        qualifier = " ".join(words[:n])
        if qualifier[:1].islower() and len(qualifier) <= 3:
            continue  # "or", "in", "me": words, not states
        place = catalogue.qualified(key, qualifier, any_case=False)
        if place is not None:
            return place, m.start(1) + len(qualifier)
    return None


def _unknown(
    text: str, words: list[tuple[str, int]], free: Callable[[int, int], bool], titled: bool
) -> list[str]:
    """Place-like words after a locative that name nothing: capitalised ones, or rare ones."""
    out: list[str] = []
    i = 0
    while i < len(words):
        word, start = words[i]
        if locative_before(text, start) and free(start, start + len(word)):
            taken: list[str] = []
            j = i
            while j < len(words) and len(taken) < 3:
                w, s = words[j]
                if j > i and text[words[j - 1][1] + len(words[j - 1][0]) : s].strip():
                    break  # punctuation between words ends the name
                if not w.isalpha() or not free(s, s + len(w)):
                    break
                if fold(w) in NEVER_PLACES or lodging(fold(w)):
                    break
                proper = w[:1].isupper() and not titled and zipf(w.lower()) < 5.0
                rare = len(w) >= 4 and zipf(fold(w)) < RARE_ZIPF
                if not (proper or rare):
                    break
                taken.append(w)
                j += 1
            if taken:
                out.append(" ".join(taken))
                i = j
                continue
        i += 1
    return out


def _known_code(catalogue: LocationCatalogue, code: str) -> bool:
    up = code.upper()
    return catalogue.city(up) is not None or catalogue.city_of_airport(up) is not None
