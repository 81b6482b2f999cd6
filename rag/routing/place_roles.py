"""The places a message names, as the extractor keeps them: which count (the slot tagger's spans
settle names that are everyday words), the unknown names around them, and each place's role from the
words before it ("from X" origin; "to/in/at X" destination; "X to Y"). Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence

from wordfreq import zipf_frequency

from connectors.places import LocationCatalogue, PlaceMention, fold, last_char, needs_anchor, sentence_start
from rag.routing.extracted import Slots

# Words before a place that make it the origin or the destination, in our six languages.
_ORIGIN_MARK = re.compile(
    r"(?:\bfrom|\bleaving|\bdeparting|\bout of|\bex|\bdesde|\bde|\bdepuis|\bvon|\baus|\bda|\bdo|\bdal)\s*$"
)
_DEST_MARK = re.compile(
    r"(?:\bto|\binto|\btowards|\bfor|\bin|\bat|\bnear|\baround|\bvisit(?:ing)?|\bvia|->|→|\bof|"
    r"\ba|\bà|\bau|\ben|\bhacia|\bpara|\bnach|\bem|\bno|\bna|\bper|\bvers|\bpour|\bdans)\s*$"
)
_PAIR_GLUE = re.compile(r"^\s*(?:-|–|->|→|to|/|>|2|a|à|nach|para|per|pra|hasta|bis)\s*$")
# Places set side by side ("Rome or Paris?", "Lisbon vs Porto"): compared, neither is where a trip starts.
_COMPARE_GLUE = re.compile(
    r"^\s*,?\s*(?:or|vs\.?|versus|compared (?:to|with)|rather than|instead of|o|ou|oder|oppure|ovvero|y|and|et|und|e)\s*$"
)
_PLACE_LABELS = frozenset({"origin", "destination", "place"})
# Words so common that a capital letter says nothing of them being a name ("Can you ...").
COMMON_WORD_ZIPF = 5.0
# What may stand beside a place name inside the tagger's span: a state or country qualifier.
_QUALIFIER = re.compile(r"[A-Z]{2}|[A-Z][a-z]+(?: [A-Z][a-z]+)?")
# Capitalised words beside a name that do not make it part of a longer one.
_JOINERS = frozenset("and or to from in at for the i on".split())
# Provinces and states that follow a city's name to say which one (US states and countries are known
# to the catalogue already).
PROVINCES = frozenset(
    {
        "ontario", "quebec", "alberta", "manitoba", "saskatchewan", "yukon", "nunavut", "british columbia",
        "nova scotia", "new brunswick", "newfoundland", "prince edward island", "new south wales",
        "victoria", "queensland", "tasmania", "western australia", "south australia", "england",
        "scotland", "wales",
    }
)  # fmt: skip
_NAMES = re.compile(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_AIRLINE_AFTER = re.compile(r"\s*(?:air\b|airlines?\b|airways\b|express\b)", re.IGNORECASE)
_CAPITALISED_AFTER = re.compile(r"\s+([A-Z][a-z]+)")
_UNIT = re.compile(r"(?=([A-Z][a-z]+\s+))")


def keep_tagged(slots: Slots, spans: Sequence[tuple[str, int, int]], catalogue: LocationCatalogue) -> None:
    """Names that are everyday words ("make", "date", "okay", "Delta"; not a well-known city's own name,
    as "Porto") count as places only where the tagger marked a place."""
    placed = [(s, e) for label, s, e in spans if label in _PLACE_LABELS]
    # Only spans the tagger is fairly sure of mark where a longer name goes on ("Bodega Bay").

    def tagged(p: PlaceMention) -> bool:
        return any(s < p.end and p.start < e for s, e in placed)

    def wordy(p: PlaceMention) -> bool:
        if "," in p.text:
            return False  # "Paris, Texas": a name with its state or country is meant as one
        key = fold(p.text)
        return (" " not in key and len(key) <= 3) or needs_anchor(catalogue, key, p.place)

    def proper(
        p: PlaceMention,
    ) -> bool:  # "what about Porto?", not "Okay.", ", Can you" or "on Delta Airlines"
        before = last_char(slots.text, p.start)
        return (
            p.text[:1].isupper()
            and bool(before)
            and before not in '.!?:;"(,'
            and not _AIRLINE_AFTER.match(slots.text, p.end)
            and zipf_frequency(fold(p.text), "en") < COMMON_WORD_ZIPF
        )

    def fragment(p: PlaceMention) -> bool:
        """A piece of a longer name: "Bay" of "Bodega Bay", "San" of "San Anselmo" (the tagger's place
        span, or the capitalised word right next to it, goes beyond the mention)."""
        for s, e in placed:
            if s < p.end and p.start < e and (s < p.start - 1 or e > p.end + 1):
                outside = " ".join((slots.text[s : p.start] + " " + slots.text[p.end : e]).split()).strip(
                    " ,"
                )
                if _NAMES.fullmatch(outside) and not _QUALIFIER.fullmatch(outside):
                    return True
        after = _CAPITALISED_AFTER.match(slots.text, p.end)
        before = _capitalised_before(slots.text, p.start)
        if before is not None and sentence_start(slots.text, before[1]):
            before = None  # "Search Philly.": a sentence's first word is capitalised anyway
        beside = [w for w in (after.group(1) if after else None, before[0] if before else None) if w]
        return wordy(p) and any(
            catalogue.resolve(w) is None
            and w.lower() not in _JOINERS
            and zipf_frequency(w.lower(), "en") < COMMON_WORD_ZIPF
            for w in beside
        )

    pieces = [p for p in slots.places if fragment(p)]
    piece_ids = {id(p) for p in pieces}
    kept = [p for p in slots.places if id(p) not in piece_ids and (tagged(p) or proper(p) or not wordy(p))]
    units = capitalised_units(slots.text) if pieces else {}
    for p in pieces:  # the whole name the piece belongs to, which nobody knows: asked about, or looked up
        whole = _whole_name(slots.text, p.text, units)
        if whole is not None and whole != p.text and whole not in slots.unknown_places:
            slots.unknown_places.insert(0, whole)
    # Two places in one tagged name: "Toronto, Ontario" is Toronto, its province only says which. (A
    # list of places the tagger ran together, "Paris, Rome, Berlin", is a list.)
    for s, e in placed:
        inside = [p for p in kept if s <= p.start and p.end <= e]
        if (
            len(inside) == 2
            and slots.text[inside[0].end : inside[1].start].strip() == ","
            and (
                fold(inside[1].text) in PROVINCES
                or catalogue.qualified(fold(inside[0].text), fold(inside[1].text)) is not None
            )
        ):
            kept.remove(inside[1])
    dropped = {p.text for p in slots.places} - {p.text for p in kept}
    slots.places = kept
    slots.ambiguous_places = {k: v for k, v in slots.ambiguous_places.items() if k not in dropped}


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


def tagged_unknown(slots: Slots, spans: Sequence[tuple[str, int, int]], text: str) -> None:
    """Places the tagger found that the catalogue does not know ("El Sobrante", "Yountville"): unknown
    places, which the traveller is asked about, or a forecast looks up by name."""
    for label, s, e in spans:
        name = text[s:e].strip(" ,.")
        if (
            label in _PLACE_LABELS
            and len(name) >= 3
            and name[:1].isupper()
            and not any(p.start < e and s < p.end for p in slots.places)
            and not any(fold(name) in fold(u) for u in slots.unknown_places)
            and not slots.countries
        ):
            # "Bodega Bay" replaces the "Bodega" the rules found in it.
            slots.unknown_places = [u for u in slots.unknown_places if fold(u) not in fold(name)]
            slots.unknown_places.insert(0, name)


def assign_roles(text: str, slots: Slots, spans: Sequence[tuple[str, int, int]] = ()) -> None:
    """Each place's role from the words before it, the tagger's roles where no word says one, and
    the origin and the destination of ``slots``; places set side by side have none."""
    lowered = text.lower()
    roles: list[str | None] = []
    for p in slots.places:
        before = lowered[max(0, p.start - 14) : p.start]
        tagged = next(
            (
                label
                for label, s, e in spans
                if label in ("origin", "destination") and s < p.end and p.start < e
            ),
            None,
        )
        if _ORIGIN_MARK.search(before):
            roles.append("origin")
        elif _DEST_MARK.search(before):
            roles.append("destination")
        else:
            roles.append(tagged)  # "depart New York and arrive San Diego": the tagger read the roles
    if (
        len(slots.places) >= 2
        and all(r is None for r in roles)
        and all(
            _COMPARE_GLUE.match(lowered[a.end : b.start])
            for a, b in zip(slots.places, slots.places[1:], strict=False)
        )
    ):
        slots.compared = True  # "Rome or Paris in spring?": no role for either
        slots.places = [PlaceMention(p.place, p.text, p.start, p.end, None) for p in slots.places]
        return
    # "LON-PAR", "London to Paris", "lon par": the first of a pair is the origin.
    for i in range(len(slots.places) - 1):
        a, b = slots.places[i], slots.places[i + 1]
        glue = lowered[a.end : b.start]
        if (_PAIR_GLUE.match(glue) or not glue.strip()) and roles[i] != "destination":
            slots.route_pair = True
            roles[i] = roles[i] or "origin"
            roles[i + 1] = (
                "destination" if roles[i + 1] is None or roles[i + 1] == "destination" else roles[i + 1]
            )
    if len(slots.places) == 2 and roles == ["destination", "destination"]:
        # "flights in Los Angeles ... to Las Vegas": of two places, the one "to" points at is where the
        # trip goes; the other is where it starts.
        marks = [lowered[max(0, p.start - 14) : p.start] for p in slots.places]
        to = [i for i, m in enumerate(marks) if re.search(r"\b(?:to|into|towards)\s*$", m)]
        if len(to) == 1:
            roles[1 - to[0]] = "origin"
    if len(slots.places) == 2 and roles.count(None) == 1:
        missing = roles.index(None)
        roles[missing] = "destination" if "origin" in roles else "origin"
    elif len(slots.places) == 2 and roles == [None, None]:
        roles = ["origin", "destination"]
    slots.places = [
        PlaceMention(p.place, p.text, p.start, p.end, r) for p, r in zip(slots.places, roles, strict=True)
    ]
    origins = [p for p in slots.places if p.role == "origin"]
    dests = [p for p in slots.places if p.role == "destination"]
    slots.origin = origins[0] if origins else None
    slots.destination = next(
        (d for d in dests if not slots.origin or d.place.city_code != slots.origin.place.city_code), None
    )
    if slots.destination is None and len(slots.places) == 1 and slots.origin is None:
        slots.destination = slots.places[0]
