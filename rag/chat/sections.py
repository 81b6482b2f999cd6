"""Section-first answers: a guide read back into its sections, the section that answers a topic, what of
it to quote whole, and day-by-day trip plans. Pure.

Every city guide has the same sections (Overview, Neighbourhoods, Sights, Food and drink, Getting
around, Costs, Best time to visit, Practical tips); a user's own guide may name them otherwise, so a
topic finds its section by the words of the heading (``SECTION_WORDS``), first match wins. A guide
comes back from the index as chunks that overlap; ``guide_sections`` joins them into sections of whole
items (a list item or a paragraph) again.

What is quoted is always whole: a list item with its label, or a sentence with the one before it when
it opens on a word that points back ("It", "They", "This"). A list topic ("what should I see", "where
to stay", "any tips") quotes the section's items, as many as asked ("top 3") or up to ``MOST_ITEMS``;
the others score the section's sentences against the question (rag.chat.selection) and quote the best.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from wordfreq import zipf_frequency

from rag.chat.selection import Candidate, Query, is_place_word, score
from rag.chat.sentences import fold, section, stem, tokens
from rag.chat.vocabulary import SEASON_OF_MONTH, STOPWORDS, TOPICS

# A topic's section, by words its heading holds (folded), in order of preference.
SECTION_WORDS: dict[str, tuple[str, ...]] = {
    "sights": ("sights", "things to do", "attractions", "what to see"),
    "daytrips": ("day trips", "excursions", "sights"),
    "children": ("children", "families", "sights"),
    "food": ("food", "eating", "drink", "cuisine"),
    "nightlife": ("nightlife", "neighbourhoods", "neighborhoods"),
    "transport": ("getting around", "transport", "getting there"),
    "costs": ("costs", "budget", "prices", "money"),
    "money": ("money", "costs", "practical tips", "tips"),
    "when": ("best time", "when to go", "seasons", "climate", "weather"),
    "weather": ("weather", "climate", "best time", "seasons"),
    "stay": ("where to stay", "neighbourhoods", "neighborhoods", "areas"),
    "safety": ("safety", "practical tips", "tips"),
    "tips": ("practical tips", "tips", "advice"),
    "visas": ("visas", "entry", "practical tips", "tips"),
    "packing": ("packing", "what to pack", "best time", "practical tips"),
    "duration": ("how long", "itinerary", "overview"),
}
# Topics answered by listing the section's items rather than its best sentences.
LIST_TOPICS = frozenset({"sights", "stay", "tips", "when", "weather"})
MOST_ITEMS = 10
MOST_SENTENCES = 4
KEEP_SHARE = 0.6  # of the best sentence's relevance, to be quoted beside it
# Words a sentence may not open on when quoted alone: they point back at a subject said before.
POINTING = frozenset("it its it's they their them this these those he she his her both such there".split())
_ASKED_COUNT = re.compile(r"\b(?:top|best|main)\s+(\d{1,2})\b|\b(\d{1,2})\s+(?:sights|things|places|tips)\b")
# What a section's place costs its relevance: each word fewer that the question says of its topic than
# of its main one, each topic after the first, and each place further down a topic's list of sections.
TOPIC_PREFERENCE = 0.5
PREFERENCE = 0.1
TOPIC_ORDER = 0.5
# A word rarer than this in English (wordfreq's Zipf scale: "octopus" 3.1, "tram" 3.4, "quiet" 4.6) may
# name the thing a question is about; one found in at most two sections with this score picks one.
RARE_ZIPF = 4.0
NAMING_SCORE = 0.3
NAMED_ALONE = 1.0  # a proper or hyphenated name the question asks about, in one or two sections
_TOKEN_RAW = re.compile(r"[^\W_]+")
_TRIGGERS = frozenset(stem(w) for t in TOPICS for phrase in t.triggers for w in fold(phrase).split())
_HYPHENATED = re.compile(r"\b[^\W\d_]+(?:-[^\W_]+)+\b")


@dataclass
class Item:
    """A list item or a paragraph of a section, its sentences in order."""

    sentences: list[Candidate] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.sentences[0].sentence.label if self.sentences else ""

    @property
    def bullet(self) -> bool:
        return bool(self.sentences) and self.sentences[0].sentence.bullet

    @property
    def passage(self) -> int:
        return self.sentences[0].passage


@dataclass
class Section:
    name: str  # "Sights"
    items: list[Item]

    @property
    def listing(self) -> bool:
        """Whether the section is mostly a list (Sights, Neighbourhoods), not prose (Food and drink)."""
        return sum(i.bullet for i in self.items) >= 3

    @property
    def candidates(self) -> list[Candidate]:
        return [c for i in self.items for c in i.sentences]


@dataclass(frozen=True, slots=True)
class Quote:
    """What to quote: an item's sentences (whole item or chosen ones), in the guide's order."""

    item: Item
    sentences: tuple[Candidate, ...]


def guide_sections(
    pool: Sequence[Candidate], headings: Sequence[str], chunks: Sequence[int]
) -> list[Section]:
    """The sections of one guide from its chunks' candidates. ``headings[i]`` and ``chunks[i]``: passage
    i's heading path and position in the guide; ``pool``: the candidates of that guide's passages. A
    sentence repeated by the next chunk's overlap is kept once, and the item it belongs to continues."""
    by_passage: dict[int, list[Candidate]] = {}
    for c in pool:
        by_passage.setdefault(c.passage, []).append(c)
    sections: dict[str, Section] = {}
    seen: dict[tuple[str, str], Item] = {}
    for i in sorted(by_passage, key=lambda i: chunks[i]):
        name = section(headings[i]) or headings[i]
        sec = sections.setdefault(name, Section(name, []))
        local: dict[int, Item] = {}
        said = [t for (n, t) in seen if n == name]
        for c in sorted(by_passage[i], key=lambda c: c.sentence.pos):
            known = seen.get((name, c.sentence.text))
            if known is None and any(c.sentence.text in t for t in said):
                known = sec.items[-1]  # a piece of a sentence the overlap repeats
            if known is not None:
                local.setdefault(c.sentence.item, known)
                continue
            item = local.get(c.sentence.item)
            if item is None and not local and sec.items and not c.sentence.bullet and c.sentence.pos == 0:
                item = local[c.sentence.item] = sec.items[-1]  # the chunk opens inside the item before
            if item is None:
                item = local[c.sentence.item] = Item()
                sec.items.append(item)
            item.sentences.append(c)
            seen[(name, c.sentence.text)] = item
    return [s for s in sections.values() if s.items]


def find_section(
    topics: Sequence[str], sections: Sequence[Section], query: Query | None = None
) -> tuple[str, Section] | None:
    """The section that answers the question's topics, and its topic: of the sections each topic may be
    answered by (``SECTION_WORDS``, in the topics' order and each topic's order of preference), the one
    whose sentences answer ``query`` best ("do bars take cards?" is the Costs section's, not the
    nightlife's; tipping in Tokyo is in Practical tips, in London in Costs); the first on a tie."""
    said = dict(zip(query.topics, query.hits, strict=False)) if query is not None else {}
    most = max((said.get(t, 1) for t in topics), default=1)
    options: list[tuple[str, Section, float]] = []  # topic, section, what its place in the lists costs
    for t, topic in enumerate(topics):
        for p, words in enumerate(SECTION_WORDS.get(topic, ())):
            for s in sections:
                if words in fold(s.name) and all(s is not o[1] for o in options):
                    # A topic the question says less of than its main one, or after it, and a section
                    # further down a topic's list, cost their section some relevance.
                    cost = TOPIC_PREFERENCE * (most - said.get(topic, 1)) + TOPIC_ORDER * t + PREFERENCE * p
                    options.append((topic, s, cost))
    if len(options) <= 1 or query is None:
        return options[0][:2] if options else None
    # Scored on copies, on what the sentences say: a heading's words ("Practical tips") say nothing of
    # tipping, and the sections keep their own scores. One pool: one idf for all.
    pools = [[dataclasses.replace(c, heading=frozenset()) for c in s.candidates] for _, s, _ in options]
    score(query, [c for pool in pools for c in pool])

    def value(rank: int) -> float:
        best = max((c.relevance for c in pools[rank]), default=0.0)
        return best - options[rank][2]

    topic, sec, _ = options[max(range(len(options)), key=lambda r: (value(r), -r))]
    return topic, sec


def naming_section(
    question: str,
    sections: Sequence[Section],
    skip: Sequence[str] = (),
    prefer: Section | None = None,
    lang: str = "en",
) -> Section | None:
    """The section that holds what the question names and the guide says in few places ("the Octopus
    card", "hawker centres", "the number 28 tram", "T-money"): its uncommon words (rare in English, in at
    most three sections, a topic's own words aside), and its hyphenated names, count; the best section,
    if one holds enough. ``skip``: words of the place asked about; ``prefer``: the section of the
    question's topic, which wins a tie."""
    skipped = {w for name in skip for w in tokens(name)}
    raw_words = _TOKEN_RAW.findall(question)
    # Proper names: capitalised past a sentence's first word ("the Octopus card", "the Vatican").
    proper = {fold(w) for i, w in enumerate(raw_words) if i and w[:1].isupper() and not w.isupper()}
    asked = [
        (stem(raw), raw in proper)
        for raw in _TOKEN_RAW.findall(fold(question))
        if len(raw) > 2
        and raw not in STOPWORDS
        and not is_place_word(stem(raw), sorted(skipped))
        and stem(raw) not in _TRIGGERS
        and zipf_frequency(raw, "en") < RARE_ZIPF
        and (lang == "en" or zipf_frequency(raw, lang) < RARE_ZIPF)
    ]
    names = [n for n in _HYPHENATED.findall(fold(question)) if not set(tokens(n)) <= skipped]
    if not (asked or names) or not sections:
        return None
    words = [{w for c in s.candidates for w in c.words} | set(tokens(s.name)) for s in sections]
    texts = [fold(" ".join(c.sentence.text for c in s.candidates)) for s in sections]
    scores = [0.0] * len(sections)
    named_scores = [0.0] * len(sections)  # of proper and hyphenated names only
    found: list[tuple[list[int], float, bool]] = [
        ([i for i, ws in enumerate(words) if w in ws], 2.0 if is_name else 1.0, is_name)
        for w, is_name in dict.fromkeys(asked)
    ]
    found += [([i for i, t in enumerate(texts) if n in t], 2.0, True) for n in dict.fromkeys(names)]
    for where, weight, is_name in found:
        if 1 <= len(where) <= 3:
            for i in where:
                scores[i] += weight / len(where)
                named_scores[i] += weight / len(where) if is_name else 0.0
    best = max(range(len(sections)), key=lambda i: (scores[i], sections[i] is prefer, -i))
    if prefer is not None and prefer in sections:
        # The topic's section stands unless another alone holds a name the question asks about.
        kept = scores[sections.index(prefer)]
        return sections[best] if named_scores[best] >= NAMED_ALONE and kept == 0 else None
    return sections[best] if scores[best] >= NAMING_SCORE else None


def named(sections: Sequence[Section], *words: str) -> Section | None:
    for w in words:
        for s in sections:
            if w in fold(s.name):
                return s
    return None


def asked_count(question: str) -> int | None:
    """ "top 3 sights", "5 things to do": how many items the question wants."""
    m = _ASKED_COUNT.search(fold(question))
    if not m:
        return None
    n = int(m.group(1) or m.group(2))
    return n if 1 <= n <= MOST_ITEMS else None


def quotes_for(query: Query, topic: str, sec: Section, want: int | None = None) -> list[Quote]:
    """What of ``sec`` answers ``query`` asked about ``topic``: its items for a list topic (those of the
    months asked when some say so), else its best sentences whole; never empty."""
    score(query, sec.candidates)
    if topic in LIST_TOPICS and sec.listing:
        items = [i for i in sec.items if i.bullet] or sec.items
        if query.months:
            items = of_months(items, query.months) or items
        return [Quote(i, tuple(i.sentences)) for i in items[: want or MOST_ITEMS]]
    ranked = sorted((c for c in sec.candidates if c.relevance > 0), key=lambda c: -c.relevance)
    if query.months and any(c.month for c in ranked):
        ranked = [c for c in ranked if c.month]
    if ranked:
        keep = KEEP_SHARE * ranked[0].relevance
        chosen = [c for c in ranked if c.relevance >= keep][: want or MOST_SENTENCES]
    else:  # nothing scores: the section's opening is what it says on the topic
        chosen = sec.candidates[:2]
    return whole(sec, chosen)


def whole(sec: Section, chosen: Sequence[Candidate]) -> list[Quote]:
    """The chosen sentences as quotes: a list item's whole item; a paragraph's sentence with the one
    before when it points back; in the guide's order."""
    ids = {id(c) for c in chosen}
    out = []
    for item in sec.items:
        picked = [c for c in item.sentences if id(c) in ids]
        if not picked:
            continue
        if item.bullet or item.label:
            out.append(Quote(item, tuple(item.sentences)))
            continue
        keep = set()
        for c in picked:
            at = item.sentences.index(c)
            keep.add(at)
            while at > 0 and _points_back(item.sentences[at].sentence.text):
                at -= 1
                keep.add(at)
        out.append(Quote(item, tuple(item.sentences[k] for k in sorted(keep))))
    return out


def _points_back(text: str) -> bool:
    first = fold(text.split(" ", 1)[0]).strip(",;:'\"")
    return first in POINTING


def of_months(items: Sequence[Item], asked: frozenset[int]) -> list[Item]:
    """The items that name one of the months (or a range holding it: "Winter (June–August)"); failing
    those, the ones naming its northern season."""
    named = [i for i in items if any(asked & (c.months | c.context_months) for c in i.sentences)]
    if named:
        return named
    seasons = {SEASON_OF_MONTH[m] for m in asked}
    return [i for i in items if any(seasons & (c.words | c.context) for c in i.sentences)]
