"""Which sentences of the passages answer the question: read it, score every sentence, pick a few. Pure.

A question becomes *groups*: one per topic it asks about ("weather": the topic's English words, and
at full weight the question's own word) and one per other content word, plus the months it names.
A sentence scores, per group, its best matching word (and half its second best) weighted by an IDF
taken within the candidate pool, so a word every sentence shares counts little; a word of the section
heading counts as if the sentence said it ("Food and drink" makes its sentences about food), one of
the list item's label or intro half. A sentence is relevant when it matches enough of the groups
(``MIN_COVERAGE``: "a casino on the moon base" does not fetch a sentence about a convenient base) with
enough weight (``MIN_RELEVANCE``: one topic word alone is not an answer). Its final score adds a prior
for its passage's rank (the retriever's judgement) and a bonus when it is about one of the asked-for
places (from that place's guide, or naming it); another city's guide is not used at all. The places'
own sentences are chosen first, general ones only when those are too few; near-duplicates (word-set
Jaccard above ``DUPLICATE``) are dropped and a month in the question is a condition, not a hint.
"""

from __future__ import annotations

import difflib
import functools
import heapq
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from rag.chat.sentences import Sentence, fold, months, section, split_passage, stem, tokens
from rag.chat.vocabulary import (
    COMPARE_WORDS,
    MONTHS,
    OR_WORDS,
    OR_WORDS_BETWEEN,
    SEASON_OF_MONTH,
    SEASON_WORDS,
    STOPWORDS,
    TOPICS,
    Topic,
)

_MONTH_STEMS = frozenset(stem(name) for name in MONTHS)
_COMPARE = frozenset(stem(w) for w in COMPARE_WORDS)
_OR = frozenset(stem(w) for w in OR_WORDS)
_OR_BETWEEN = frozenset(stem(w) for w in OR_WORDS_BETWEEN)
_STOP = STOPWORDS | frozenset(stem(w) for w in STOPWORDS)  # "does" reads as "doe" once stemmed
_PHRASES = sorted(
    (
        (" " + " ".join(stem(w) for w in fold(phrase).split()) + " ", topic)
        for topic in TOPICS
        for phrase in topic.triggers
        if " " in phrase
    ),
    key=lambda p: -len(p[0]),
)
_SINGLES = {stem(fold(w)): t for t in TOPICS for w in t.triggers if " " not in w}
_WORD = re.compile(r"[^\W_]+")
_CAPITAL_MAY = re.compile(r"(?<![.!?¿¡]\s)(?<!^)\bMay\b")

SYNONYM = 0.6  # a topic word the question did not use itself
CONTEXT = 0.5  # a word of the item's label or list intro, not of the sentence
HEADING = 1.0  # a word of the section heading: the section is about it, the sentence may not be
MIN_COVERAGE = 0.4  # share of the question's groups a relevant sentence must match
MIN_RELEVANCE = 0.6  # a word the question used, or one of its topic's words
SECOND = 0.5  # of a group's second-best word: two of a topic's words say more than one
PLACE_BONUS = 1.0
RANK_PRIOR = 0.4
KEEP_SHARE = 0.6  # of the best relevance, to be kept beside it
DUPLICATE = 0.6


class Source(Protocol):
    """What selection reads of a passage (rag.chat.composer.Passage)."""

    @property
    def text(self) -> str: ...
    @property
    def heading(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def place(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Query:
    """A question as the scorer reads it."""

    groups: tuple[dict[str, float], ...]  # stemmed word -> weight
    topics: tuple[str, ...]  # the topics asked about, in the question's order
    group_topics: tuple[str, ...]  # each group's topic, "" for a word of the question
    months: frozenset[int]
    hits: tuple[int, ...] = ()  # how many of each topic's words the question says, parallel to topics

    @property
    def empty(self) -> bool:
        """Nothing asked beyond the place ("Tell me about Tokyo")."""
        return not self.groups and not self.months


@dataclass(slots=True)
class Candidate:
    """A sentence of passage ``passage``, with what scoring needs."""

    passage: int
    sentence: Sentence
    words: frozenset[str]
    context: frozenset[str]  # words of the item's label and list intro
    heading: frozenset[str]  # words of the section heading
    months: frozenset[int]
    context_months: frozenset[int]
    local: bool  # about one of the asked-for places
    relevance: float = 0.0
    score: float = 0.0
    matched: float = 0.0  # the weight of the groups it matches
    topics: frozenset[str] = frozenset()  # the question's topics it answers
    month: bool = False  # matches the months asked about


def place_words(names: Sequence[str]) -> list[frozenset[str]]:
    """Each place name as its set of folded words ("New York" -> {"new", "york"})."""
    return [frozenset(tokens(n)) for n in names if tokens(n)]


def is_comparison(question: str, places: Sequence[str]) -> bool:
    """Whether ``question`` weighs its places against each other ("Lisbon or Porto?", "Paris vs
    Rome", "compare Kyoto and Osaka"); never with fewer than two places."""
    if len(places) < 2:
        return False
    words = tokens(question)
    if _COMPARE & set(words) or _OR & set(words):
        return True
    # "Lisboa o Porto": a one-letter "or" counts only right between two places ("para o Porto" is "to").
    known = [w for p in places for w in tokens(p)]
    at = {i for i, w in enumerate(words) if is_place_word(w, known)}
    return any(w in _OR_BETWEEN and i - 1 in at and i + 1 in at for i, w in enumerate(words))


def read_question(question: str, places: Sequence[str]) -> Query:
    """The question's groups, topics and months; words naming ``places`` (or close to their names,
    "Lisboa" for Lisbon, "Tokio" for Tokyo) are left out: the place bonus handles them."""
    text = " " + " ".join(tokens(question)) + " "
    found: list[tuple[int, Topic, str]] = []  # (where, topic, the question's word or "")
    for key, topic in _PHRASES:  # longest first: "best time to visit" is "when", not "sights"
        at = text.find(key)
        if at >= 0:
            found.append((at, topic, ""))
            text = text.replace(key, " " * len(key))
    known = [w for p in place_words(places) for w in p]
    groups: list[dict[str, float]] = []
    asked_months = {  # not the "Janeiro" of Rio de Janeiro
        MONTHS[w]
        for w in _WORD.findall(fold(question))
        if w in MONTHS and w != "may" and stem(w) not in known
    }
    if _CAPITAL_MAY.search(question):
        asked_months.add(5)
    for at, word in _positions(text):
        if word in _MONTH_STEMS:
            continue
        single = _SINGLES.get(word)
        if single is not None:
            found.append((at, single, word))
            continue
        if word in _STOP or len(word) < 2 or word.isdigit() or is_place_word(word, known):
            continue
        groups.append({SEASON_WORDS.get(word, word): 1.0})
    # The topics the question says most first ("are buses or the subway better for getting to the
    # temples?" is about getting around), then in the order it names them.
    hits: dict[Topic, int] = {}
    for _, topic, _ in found:
        hits[topic] = hits.get(topic, 0) + 1
    ordered: list[Topic] = []
    for _, topic, _ in sorted(found, key=lambda f: (-hits[f[1]], f[0])):
        if topic not in ordered:
            ordered.append(topic)
    for topic in ordered:  # the topic's words, and at full weight the ones the question used
        group = {stem(fold(w)): SYNONYM for w in topic.words}
        group.update({word: 1.0 for _, t, word in found if t is topic and word})
        groups.append(group)
    names = tuple(t.name for t in ordered)
    of_groups = ("",) * (len(groups) - len(names)) + names
    return Query(tuple(groups), names, of_groups, frozenset(asked_months), tuple(hits[t] for t in ordered))


def candidates(passages: Sequence[Source], places: Sequence[str]) -> list[Candidate]:
    """The sentences of ``passages`` a place-focused answer may quote:
    with ``places``, another city's guide gives only its sentences that name one of them (the Lisbon
    guide on Sintra, the Kyoto guide on Fushimi Inari); a topic document stays, and its sentences that
    name one of the places count as local."""
    wanted = place_words(places)
    folded = {fold(p) for p in places}
    out: list[Candidate] = []
    for i, p in enumerate(passages):
        own = bool(p.place) and fold(p.place) in folded
        elsewhere = bool(wanted) and bool(p.place) and not own
        for s, words, context, heading, said, implied in _prepared(p.text, p.heading, p.title):
            named = any(w <= words or w <= context for w in wanted)  # its item's label counts
            if elsewhere and not named:
                continue
            out.append(Candidate(i, s, words, context, heading, said, implied, own or named))
    return out


Prepared = tuple[Sentence, frozenset[str], frozenset[str], frozenset[str], frozenset[int], frozenset[int]]


@functools.lru_cache(maxsize=1024)
def _prepared(text: str, heading: str, title: str) -> tuple[Prepared, ...]:
    """A chunk's sentences with their words and months; cached, as the same chunks come back often."""
    head = frozenset(w for w in tokens(section(heading, title)) if w not in _STOP)
    return tuple(
        (
            s,
            frozenset(w for w in tokens(s.text) if w not in _STOP),
            frozenset(w for w in tokens(s.context) if w not in _STOP),
            head,
            months(s.text),
            months(s.context),
        )
        for s in split_passage(text, heading)
    )


def score(query: Query, pool: list[Candidate]) -> None:
    """Set each candidate's relevance (0 when not relevant) and final score."""
    n = len(pool)
    df: dict[str, int] = {}
    for c in pool:
        for w in c.words:
            df[w] = df.get(w, 0) + 1
    norm = math.log(n + 1) if n > 1 else 1.0

    def idf(w: str) -> float:
        return 1.0 if n <= 1 else 0.5 + 0.5 * min(1.0, math.log((n + 1) / df.get(w, 1)) / norm)

    seasons = {SEASON_OF_MONTH[m] for m in query.months}
    # A topic counts double: "safe to walk at night" asks about safety first.
    weights = [2.0 if t else 1.0 for t in query.group_topics]
    parts = sum(weights) + (1 if query.months else 0)
    keys = [frozenset(g) for g in query.groups]
    for c in pool:
        total, hit, extra = 0.0, 0.0, 0
        answered: set[str] = set()
        for group, words, topic, weight in zip(query.groups, keys, query.group_topics, weights, strict=True):
            got: dict[str, float] = {}
            for w in c.words & words:
                got[w] = group[w] * idf(w)
            extra += len(got)
            for where, factor in ((c.heading, HEADING), (c.context, CONTEXT)):
                for w in where & words:
                    got.setdefault(w, factor * group[w] * idf(w))
            if got:
                best, second = heapq.nlargest(2, [*got.values(), 0.0])
                total += best + SECOND * second
                hit += weight
                if topic:
                    answered.add(topic)
        month = 0.0
        if query.months & c.months:
            month = 1.0
        elif query.months & c.context_months or seasons & (c.words | c.context | c.heading):
            month = CONTEXT
        total += month
        hit += month > 0
        c.matched = hit
        c.topics = frozenset(answered)
        c.month = month > 0
        relevant = parts and hit / parts >= MIN_COVERAGE and total >= MIN_RELEVANCE
        c.relevance = total + 0.1 * min(extra, 4) if relevant else 0.0
        c.score = c.relevance + RANK_PRIOR / (1 + c.passage) + (PLACE_BONUS if c.local else 0.0)


def select(query: Query, pool: list[Candidate], most: int = 4, general: bool = True) -> list[Candidate]:
    """The best relevant, distinct candidates (at most ``most``), in passage then guide order.
    ``general``: whether sentences not about the places asked about may answer (topic documents'
    general advice); without it, a place whose guide says nothing relevant gets nothing."""
    score(query, pool)
    ranked = sorted((c for c in pool if c.relevance > 0), key=lambda c: (-c.score, c.passage, c.sentence.pos))
    if query.months and any(c.month for c in ranked):  # "in April" is a condition, not a hint
        ranked = [c for c in ranked if c.month]
    if not ranked:
        return []
    chosen: list[Candidate] = []
    # The places' own sentences first; general ones only when those are too few to answer.
    for pick in (True, False):
        group = [c for c in ranked if c.local == pick]
        if not group or (not pick and (len(chosen) >= 2 or not general)):
            continue
        relevant = KEEP_SHARE * max(c.relevance for c in group)
        for c in group:
            if len(chosen) >= most or c.relevance < relevant:
                continue
            if all(_jaccard(c.words, k.words) <= DUPLICATE for k in chosen):
                chosen.append(c)
    return sorted(chosen, key=lambda c: (c.passage, c.sentence.pos))


def overview(pool: list[Candidate], passages: Sequence[Source], most: int = 2) -> list[Candidate]:
    """For a question that asks nothing but its place: the first sentences of the place's overview
    (its "Overview" section, else its best-ranked passage)."""
    local = [c for c in pool if c.local and c.sentence.pos < most]
    if not local:
        return []
    over = [c for c in local if section(passages[c.passage].heading).casefold() == "overview"]
    first = min(c.passage for c in (over or local))
    return [c for c in (over or local) if c.passage == first][:most]


def _positions(text: str) -> list[tuple[int, str]]:
    out, at = [], 0
    for word in text.split(" "):
        if word:
            out.append((at, word))
        at += len(word) + 1
    return out


def is_place_word(word: str, known: Sequence[str]) -> bool:
    """Whether a folded, stemmed ``word`` names one of the ``known`` place words, or nearly ("lisboa",
    "tokio", "londre"), so a question's own spelling of its place is not read as a topic."""
    for k in known:
        if word == k:
            return True
        if len(k) < 5 or len(word) < 5:
            continue
        if word[:4] == k[:4] and abs(len(word) - len(k)) <= 3:
            return True
        if difflib.SequenceMatcher(None, word, k).ratio() >= 0.8:
            return True
    return False


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0
