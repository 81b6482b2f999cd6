"""Which of the places found in a text count, as a slot tagger's spans settle it, pure: a name that is an
everyday word ("make", "date", "okay", "Delta") counts only where the tagger marked a place; a piece of
a longer name ("Bay" of "Bodega Bay") is not that place, the whole name is an unknown one; a state or
province after a city ("Toronto, Ontario") only says which; places the tagger found that the catalogue
lacks ("El Sobrante") are unknown places, asked about. Spans are (label, start, end) triples with the
tagger's labels ("origin", "destination", "place", ...)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from wordfreq import zipf_frequency

from connectors.places.catalogue import LocationCatalogue
from connectors.places.gazetteer import fold
from connectors.places.lodging import lodging
from connectors.places.model import Mentions, PlaceMention
from connectors.places.words import last_char, needs_anchor, sentence_start

PLACE_LABELS = frozenset({"origin", "destination", "place"})
# Words so common that a capital letter says nothing of them being a name ("Can you ...").
COMMON_WORD_ZIPF = 5.0
# What may stand beside a place name inside the tagger's span: a state or country qualifier.
_QUALIFIER = re.compile(r"[A-Z]{2,3}|[A-Z][a-z]+(?: [A-Z][a-z]+){0,2}")
# Capitalised words beside a name that do not make it part of a longer one.
_JOINERS = frozenset("and or to from in at for the i on".split())
_NAMES = re.compile(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_AIRLINE_AFTER = re.compile(r"\s*(?:air\b|airlines?\b|airways\b|express\b)", re.IGNORECASE)
_CAPITALISED_AFTER = re.compile(r"\s+([A-Z][a-z]+)")
_UNIT = re.compile(r"(?=([A-Z][a-z]+\s+))")


def keep_tagged(
    text: str, mentions: Mentions, spans: Sequence[tuple[str, int, int]], catalogue: LocationCatalogue
) -> None:
    """Keep, of ``mentions.places``, the names the tagger's ``spans`` let count: names that are everyday
    words (not a well-known city's own name, as "Porto") only where the tagger marked a place or
    written as a proper name mid-sentence. Pieces of longer names become unknown places."""
    placed = [(s, e) for label, s, e in spans if label in PLACE_LABELS]

    def tagged(p: PlaceMention) -> bool:
        return any(s < p.end and p.start < e for s, e in placed)

    def wordy(p: PlaceMention) -> bool:
        if "," in p.text:
            return False  # "Paris, Texas": a name with its state or country is meant as one
        key = fold(p.text)
        if p.district is not None:
            return needs_anchor(catalogue, key, p.place)
        return (" " not in key and len(key) <= 3) or needs_anchor(catalogue, key, p.place)

    def proper(p: PlaceMention) -> bool:
        """ "what about Porto?", not "Okay.", ", Can you" or "on Delta Airlines"."""
        before = last_char(text, p.start)
        return (
            p.text[:1].isupper()
            and bool(before)
            and before not in '.!?:;"(,'
            and not _AIRLINE_AFTER.match(text, p.end)
            and zipf_frequency(fold(p.text), "en") < COMMON_WORD_ZIPF
        )

    def fragment(p: PlaceMention) -> bool:
        """A piece of a longer name: "Bay" of "Bodega Bay", "San" of "San Anselmo" (the tagger's place
        span, or the capitalised word right next to it, goes beyond the mention)."""
        for s, e in placed:
            if s < p.end and p.start < e and (s < p.start - 1 or e > p.end + 1):
                outside = " ".join((text[s : p.start] + " " + text[p.end : e]).split()).strip(" ,")
                if _NAMES.fullmatch(outside) and not _QUALIFIER.fullmatch(outside):
                    return True
        after = _CAPITALISED_AFTER.match(text, p.end)
        before = _capitalised_before(text, p.start)
        if before is not None and sentence_start(text, before[1]):
            before = None  # "Search Philly.": a sentence's first word is capitalised anyway
        beside = [w for w in (after.group(1) if after else None, before[0] if before else None) if w]
        return wordy(p) and any(
            catalogue.resolve(w) is None
            and w.lower() not in _JOINERS
            and zipf_frequency(w.lower(), "en") < COMMON_WORD_ZIPF
            for w in beside
        )

    pieces = [p for p in mentions.places if fragment(p)]
    piece_ids = {id(p) for p in pieces}
    kept = [p for p in mentions.places if id(p) not in piece_ids and (tagged(p) or proper(p) or not wordy(p))]
    units = capitalised_units(text) if pieces else {}
    for p in pieces:  # the whole name the piece belongs to, which nobody knows: asked about, or looked up
        whole = _whole_name(text, p.text, units)
        if whole is not None and whole != p.text and whole not in mentions.unknown:
            mentions.unknown.insert(0, whole)
    # Two places in one tagged name: "Toronto, Ontario" is Toronto, its province only says which. (A
    # list of places the tagger ran together, "Paris, Rome, Berlin", is a list.)
    for s, e in placed:
        inside = [p for p in kept if s <= p.start and p.end <= e]
        if (
            len(inside) == 2
            and text[inside[0].end : inside[1].start].strip() == ","
            and (
                bool(catalogue.regions.qualifier(inside[1].text, any_case=False))
                or catalogue.qualified(fold(inside[0].text), inside[1].text) is not None
            )
        ):
            kept.remove(inside[1])
    dropped = {p.text for p in mentions.places} - {p.text for p in kept}
    mentions.places = kept
    mentions.ambiguous = {k: v for k, v in mentions.ambiguous.items() if k not in dropped}


def _capitalised_before(text: str, at: int) -> tuple[str, int] | None:
    """The capitalised word ("Bay") that the spaces before ``at`` follow, and where it starts; none at
    the text's start or right after a sentence's end. What ``(?<![.!?]\\s)(?<!^)(?<=\\S\\s)([A-Z][a-z]+)\\s+$``
    finds in ``text[:at]``, read back from ``at``: it costs the word's length, not the text's."""
    i = at
    while i > 0 and text[i - 1].isspace():
        i -= 1
    j = i
    while j > 0 and "a" <= text[j - 1] <= "z":
        j -= 1
    k = j - 1  # the capital
    if i == at or j == i or k < 2 or not "A" <= text[k] <= "Z":
        return None
    if text[k - 2].isspace() or not text[k - 1].isspace() or text[k - 2] in ".!?":
        return None
    return text[k:i], k


def _whole_name(text: str, name: str, units: dict[int, int]) -> str | None:
    """The first ``name`` in ``text`` with the capitalised words right before and after it ("Bodega
    Bay" for "Bay"): what ``(?:[A-Z][a-z]+\\s+)*NAME(?:\\s+[A-Z][a-z]+)*`` finds searching ``text``.
    The search would try that at every character, backtracking through each run of capitalised words
    (a title-case text's length squared); the match starts where the capitalised words before some
    ``name`` begin (``units``: the end of each capitalised word with its spaces -> its start), so it is
    tried there alone."""
    first = -1
    at = text.find(name)
    while at >= 0:
        start = at
        while start in units:
            start = units[start]
        first = start if first < 0 else min(first, start)
        at = text.find(name, at + 1)
    if first < 0:
        return None
    whole = re.compile(rf"(?:[A-Z][a-z]+\s+)*{re.escape(name)}(?:\s+[A-Z][a-z]+)*").match(text, first)
    return whole.group(0) if whole else None


def capitalised_units(text: str) -> dict[int, int]:
    """Where each capitalised word with the spaces after it ends -> where it starts."""
    return {m.end(1): m.start() for m in _UNIT.finditer(text)}


def tagged_unknown(text: str, mentions: Mentions, spans: Sequence[tuple[str, int, int]]) -> None:
    """Places the tagger found that the catalogue does not know ("El Sobrante", "Yountville"): unknown
    places, which the traveller is asked about, or a forecast looks up by name. Not a kind of lodging
    ("a Riad") nor a region found already ("Maine")."""
    regions = {fold(r.name) for r in mentions.regions}
    for label, s, e in spans:
        name = text[s:e].strip(" ,.")
        key = fold(name)
        if (
            label in PLACE_LABELS
            and len(name) >= 3
            and name[:1].isupper()
            and not lodging(key)
            and key not in regions
            and not any(p.start < e and s < p.end for p in mentions.places)
            and not any(key in fold(u) for u in mentions.unknown)
            and not mentions.countries
        ):
            # "Bodega Bay" replaces the "Bodega" the rules found in it.
            mentions.unknown = [u for u in mentions.unknown if fold(u) not in key]
            mentions.unknown.insert(0, name)
