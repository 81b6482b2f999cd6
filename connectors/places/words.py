"""Words that look like places and are not, pure: everyday words that are also cities' names ("Nice",
"Split", "Reading"), three-letter words that are also airport codes ("the", "del"), money, and where a
name is anchored as a place (after a locative, "to Nice", or written as a proper name mid-sentence).
Read in our six languages with word frequencies (wordfreq)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from wordfreq import zipf_frequency

from connectors.places.gazetteer import fold

if TYPE_CHECKING:
    from connectors.places.catalogue import LocationCatalogue
    from connectors.places.model import Place

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
# An English word this common ("nice" 5.4, "great" 6.0), sent alone, is a reaction before it is a city.
REACTION_ZIPF = 5.0
# Three-letter lower-case words that are also IATA codes but mean something else in a sentence.
NOT_CODES = frozenset(
    "ago air all and any apr are art ask aud aug bag bar bay bed big bus but buy cab cad can car cat chf "
    "dad day dec den did dog dry eat end eur far feb few fly for fri fun gbp get gym had has her him his "
    "hop hot how ice inn its jan jpy jul jun kid law let lot low man mar max may met min mom mon new not "
    "nov now oct off old one our out own pax pay per pet pub rio run sat sea see sep set she sip six sky "
    "son spa sun tea ten the thu tip too top tue two usd use van via war was way wed wet who why yes yet "
    "you".split()
)
# Everyday words of our other languages that are also airport codes ("del" is Delhi, "con" Concord).
NOT_CODES_ABROAD = frozenset(
    "del las los una con por que les des une sur aux der die das den dem und ein mit von vom zum nel dal "
    "gli sul uma dos nos tem sim mas ele até sem bei aus nur uhr ist hat wie wer wir sie ihr mir dir ces "
    "est ont mes tes ses son sus mis tus mai ora già più qui chi sei due tre par".split()
)
# Currency codes, which are also airport codes ("2000 NOK" is money, not Xingu airport).
CURRENCIES = frozenset(
    "AED ARS AUD BRL CAD CHF CLP CNY COP CZK DKK EGP EUR GBP HKD HUF IDR ILS INR ISK JPY KES KRW MAD MXN "
    "MYR NOK NZD PEN PHP PLN SEK SGD THB TRY USD VND ZAR".split()
)
# Words after which a name is a place ("to Nice", "en Lisboa", "nach Köln", "em Lisboa", "à Nice").
# Not "a", "de", "da": they precede everything ("12 de mayo").
LOCATIVE = re.compile(
    r"(?:^|\s)(?:to|in|from|at|near|visit(?:ing)?|around|about|en|à|au|desde|hacia|nach|von|em|para|"
    r"vers|depuis|dans)\s+$",
    re.IGNORECASE,
)
# Articles a district's name may begin with ("Le Marais", "the Mission"): not what makes it a name.
ARTICLES = frozenset("the le la les el il lo der die das o a os as".split())
_SENTENCE_END = frozenset('.!?¿¡:;"(')


def wordlike(key: str) -> bool:
    """Whether a folded name is an everyday word in one of our languages ("nice", "como", "of"), or
    a phrase of very common words ("new town")."""
    words = key.split()
    if len(words) == 1:
        return len(key) <= 3 or zipf(key) >= WORDLIKE_ZIPF
    return all(len(w) <= 2 or zipf(w) >= 4.5 for w in words)


def warm() -> None:
    """Load the word frequencies now rather than on the first message."""
    zipf("warm")


@lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    """How common a word is in the commonest of our languages for it (Zipf scale)."""
    return max(zipf_frequency(word, lang) for lang in WORD_LANGUAGES)


def needs_anchor(catalogue: LocationCatalogue, key: str, place: Place) -> bool:
    """Whether a name needs a locative or a capital to count: everyday words do, unless they are a
    well-known city's own name ("Paris" yes; "para", another language's name for Belém, no)."""
    from connectors.places.catalogue import PROMINENT_POPULATION

    if key in AMBIGUOUS:
        return True
    own = key == fold(place.city_name) or catalogue.is_destination_name(key)
    big = place.known or place.population >= PROMINENT_POPULATION
    # Word frequencies count a city's name as a word ("denver" 4.2): only the commonest words outrank it.
    prominent = own and big and (" " in key or zipf_frequency(key, "en") < 5.6)
    return not prominent and wordlike(key)


def reaction(key: str) -> bool:
    """Whether a name sent alone reads as a reaction ("Nice!", "Great.") before it reads as a city."""
    return " " not in key and zipf_frequency(key, "en") >= REACTION_ZIPF


def locative_before(text: str, start: int) -> bool:
    """Whether a locative word ("to", "en", "nach") comes right before ``start``."""
    return bool(LOCATIVE.search(text[max(0, start - 12) : start]))


TITLE_COMMON_ZIPF = 6.0  # "the", "in", "for", "de", "el", "und": the words a title capitalises too


def title_case(text: str) -> bool:
    """ "Find Me A Hotel In Rome", "HOTELS IN ROME": capitals say nothing about names there."""
    if text.isupper() and len(text) > 3:
        return True
    words = re.findall(r"[^\W\d_]+", text)
    letters = [w for w in words if len(w) > 2]
    if len(letters) < 4:
        return False
    capitalised = sum(1 for w in letters if w[:1].isupper())
    # Names of several words ("Buenos Aires") make many capitals too: a title capitalises its small,
    # common words as well ("Find Me A Hotel In Rome"), a sentence does not ("de", "a", "el").
    common = [w for w in words[1:] if zipf(w.lower()) >= TITLE_COMMON_ZIPF]
    small = not common or sum(1 for w in common if w[:1].isupper()) / len(common) > 0.5
    return capitalised / len(letters) > 0.6 and small


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
