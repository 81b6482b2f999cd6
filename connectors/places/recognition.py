"""Places named in free text: cities, airports and countries through the place catalogue. Pure.

Longest names first, then IATA codes (lower-case ones only when they are not everyday words or money),
then misspellings of well-known cities. A name that is also an everyday word in one of our languages
("Nice", "Split", "Reading", "Como", "Of") counts only after a locative word ("to Nice", "à Nice") or
written as a proper noun mid-sentence, unless it is a well-known city. Place-like words after a
locative that name nothing ("hotels in Zzyzx") are reported as unknown, so the traveller can be asked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz, process
from wordfreq import zipf_frequency

from connectors.places.catalogue import PROMINENT_POPULATION, LocationCatalogue, Place, fold

# Names that are everyday words even though a well-known city bears them: a place only when anchored.
AMBIGUOUS = frozenset(
    "bath florence male march may mobile nice orange reading split victoria santiago lima porto como sale "
    "batman aurora essen".split()
)
# Words that are never a place, whatever precedes them ("Is Porto nice in spring?", "in Economy class").
NEVER_PLACES = frozenset(
    "spring summer autumn fall winter weekend today tomorrow tonight economy business premium first class "
    "airlines airline airways airport airports station downtown".split()
)
WORD_LANGUAGES = ("en", "es", "fr", "de", "pt", "it")
WORDLIKE_ZIPF = 3.3  # about once in 500,000 words: "nice" 5.4, "orlando" 4.0, "lisbon" 3.6, "zzyzx" 0
RARE_ZIPF = 2.0
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
# Words after which a name is a place ("to Nice", "en Lisboa", "nach Köln", "em Lisboa", "à Nice").
# Not "a", "de", "da": they precede everything ("12 de mayo").
_LOCATIVE = re.compile(
    r"(?:^|\s)(?:to|in|from|at|near|visit(?:ing)?|around|about|en|à|au|desde|hacia|nach|von|em|para|"
    r"vers|depuis|dans)\s+$",
    re.IGNORECASE,
)
# Everyday words of our other languages that are also airport codes ("del" is Delhi, "con" Concord).
NOT_CODES_ABROAD = frozenset(
    "del las los una con por que les des une sur aux der die das den dem und ein mit von vom zum nel dal "
    "gli sul uma dos nos tem sim mas ele até sem bei aus nur uhr ist hat wie wer wir sie ihr mir dir ces "
    "est ont mes tes ses son sus mis tus mai ora già più qui chi sei due tre par".split()
)


# A state or country after a name ("Paris, Texas", "Portland Maine").
_QUALIFIER = re.compile(r",?\s+([^\W\d_]+(?:\s[^\W\d_]+)?)")
_SENTENCE_END = frozenset('.!?¿¡:;"(')


@dataclass(frozen=True, slots=True)
class PlaceMention:
    place: Place
    text: str
    start: int
    end: int
    role: str | None  # "origin", "destination" or None


@dataclass
class Mentions:
    places: list[PlaceMention] = field(default_factory=list)
    countries: list[str] = field(default_factory=list)  # ISO alpha-2 codes, in order
    unknown: list[str] = field(default_factory=list)  # place-like text that names nothing we know
    # Names several comparable places share, with nothing to settle which ("Springfield").
    ambiguous: dict[str, list[Place]] = field(default_factory=dict)


def find_places(
    text: str,
    catalogue: LocationCatalogue,
    skip: list[tuple[int, int]],
    country: str | None = None,
) -> Mentions:
    """Cities, airports and countries named in ``text``, and unknown place names after locatives.

    ``country``: the conversation's country, which settles names several places share.
    """
    words = [(re.sub(r"['’]s$", "", m.group(0).rstrip(".'’-")), m.start()) for m in _WORD.finditer(text)]
    titled = _title_case(text)
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

    def anchored(start: int, phrase: str) -> bool:
        if fold(phrase) == whole:
            return True  # the whole message is the name: an answer to "which city?"
        proper = phrase[:1].isupper() and not titled and not sentence_start(text, start)
        return proper or bool(_LOCATIVE.search(text[max(0, start - 12) : start]))

    for size in (4, 3, 2, 1):
        for i in range(len(words) - size + 1):
            chunk = words[i : i + size]
            start = chunk[0][1]
            end = chunk[-1][1] + len(chunk[-1][0])
            if not free(start, end):
                continue
            phrase = text[start:end]
            key = fold(phrase)
            country_code = catalogue.country_code(key)
            place = None
            if size == 1 and len(phrase) == 3 and phrase.isalpha() and not country_code:
                if phrase.upper() in CURRENCIES and not _known_code(catalogue, phrase):
                    continue  # "2000 NOK" is money, not Xingu airport
                everyday = phrase.lower() in NOT_CODES or phrase.lower() in NOT_CODES_ABROAD
                if phrase.isupper() or (not everyday and _known_code(catalogue, phrase)):
                    place = catalogue.resolve(phrase)
            # A lower-case word of one or two letters is an article or a preposition ("à la journée",
            # "vale la pena"), never "LA".
            tiny = size == 1 and len(phrase) <= 2 and phrase.islower()
            if place is None and not tiny and key not in NEVER_PLACES and catalogue.is_name(key):
                candidate = catalogue.resolve(phrase, country)
                if candidate is not None and (
                    not needs_anchor(catalogue, key, candidate) or anchored(start, phrase)
                ):
                    place = candidate
                    qualified = _qualifier(text, end, catalogue, key)
                    if qualified is not None:  # "Paris, Texas", "Portland Maine"
                        place, end, phrase = qualified[0], qualified[1], text[start : qualified[1]]
                    elif options := catalogue.ambiguous(key, country):
                        out.ambiguous[phrase] = options
            if place is not None:
                found.append(PlaceMention(place, phrase, start, end, None))
                _take(taken, start, end)
                if country_code == place.country_code and country_code not in out.countries:
                    out.countries.append(country_code)  # "Singapore", "Monaco": city and country at once
            elif country_code and (not wordlike(key) or anchored(start, phrase)):
                if country_code not in out.countries:
                    out.countries.append(country_code)
                _take(taken, start, end)
    # Misspellings of well-known cities ("Barcelonna", "Amsterdm"), never of everyday words.
    for word, start in words:
        end = start + len(word)
        if len(word) < 5 or not free(start, end) or not word.isalpha() or wordlike(fold(word)):
            continue
        key = fold(word)
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


def wordlike(key: str) -> bool:
    """Whether a folded name is an everyday word in one of our languages ("nice", "como", "of"), or
    a phrase of very common words ("new town")."""
    words = key.split()
    if len(words) == 1:
        return len(key) <= 3 or _zipf(key) >= WORDLIKE_ZIPF
    return all(len(w) <= 2 or _zipf(w) >= 4.5 for w in words)


def warm() -> None:
    """Load the word frequencies now rather than on the first message."""
    _zipf("warm")


@lru_cache(maxsize=65536)
def _zipf(word: str) -> float:
    return max(zipf_frequency(word, lang) for lang in WORD_LANGUAGES)


def needs_anchor(catalogue: LocationCatalogue, key: str, place: Place) -> bool:
    """Whether a name needs a locative or a capital to count: everyday words do, unless they are a
    well-known city's own name ("Paris" yes; "para", another language's name for Belém, no)."""
    if key in AMBIGUOUS:
        return True
    own = key == fold(place.city_name) or catalogue.is_destination_name(key)
    big = place.known or place.population >= PROMINENT_POPULATION
    # Word frequencies count a city's name as a word ("denver" 4.2): only the commonest words outrank it.
    prominent = own and big and (" " in key or zipf_frequency(key, "en") < 5.6)
    return not prominent and wordlike(key)


def _qualifier(text: str, end: int, catalogue: LocationCatalogue, key: str) -> tuple[Place, int] | None:
    """A state or country right after a name ("Paris, Texas", "Portland OR"): the place and its end."""
    m = _QUALIFIER.match(text, end)
    if not m:
        return None
    words = m.group(1).split()
    for n in (len(words), 1):
        qualifier = " ".join(words[:n])
        if qualifier[:1].islower() and len(qualifier) <= 2:
            continue  # "or", "in": words, not states
        place = catalogue.qualified(key, fold(qualifier))
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
        if _LOCATIVE.search(text[max(0, start - 12) : start]) and free(start, start + len(word)):
            taken: list[str] = []
            j = i
            while j < len(words) and len(taken) < 3:
                w, s = words[j]
                if j > i and text[words[j - 1][1] + len(words[j - 1][0]) : s].strip():
                    break  # punctuation between words ends the name
                if not w.isalpha() or not free(s, s + len(w)):
                    break
                if fold(w) in NEVER_PLACES:
                    break
                proper = w[:1].isupper() and not titled and _zipf(w.lower()) < 5.0
                rare = len(w) >= 4 and _zipf(fold(w)) < RARE_ZIPF
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


def _title_case(text: str) -> bool:
    """ "Find Me A Hotel In Rome", "HOTELS IN ROME": capitals say nothing about names there."""
    letters = [w for w in re.findall(r"[^\W\d_]+", text) if len(w) > 2]
    if len(letters) < 4:
        return text.isupper() and len(text) > 3
    capitalised = sum(1 for w in letters if w[:1].isupper())
    return capitalised / len(letters) > 0.6 or text.isupper()


def sentence_start(text: str, start: int) -> bool:
    """Whether ``start`` begins a sentence: only spaces before it, or a sentence's punctuation."""
    before = last_char(text, start)
    return not before or before in _SENTENCE_END


def last_char(text: str, at: int) -> str:
    """The last character before ``at`` that is not a space ("" if there is none), found from ``at``
    backwards: a long text costs no more than a short one."""
    i = at
    while i > 0 and text[i - 1].isspace():
        i -= 1
    return text[i - 1] if i > 0 else ""


def _known_code(catalogue: LocationCatalogue, code: str) -> bool:
    up = code.upper()
    return catalogue.city(up) is not None or catalogue.city_of_airport(up) is not None
