"""Day-by-day trip plans from a guide, and reading a question for them: the days a plan is asked for,
a question about the length itself, children coming along. Pure.

rag.chat.sections reads the guide into its sections; a plan takes the guide's sights in its order,
those of one neighbourhood on the same day, at most ``SIGHTS_PER_DAY`` a day, a day trip on a day of its
own, the months' season, two practical tips, and what the guide says of children when they come.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.chat.sections import Item, Quote, Section, named, of_months, whole
from rag.chat.sentences import fold, tokens

_KIDS = frozenset(
    "child children kid kids family families playground zoo aquarium oceanarium toddler".split()
)
_NUMBER_WORDS = {
    **dict.fromkeys("a an one un une uno una eins ein einen um uma".split(), 1),
    **dict.fromkeys("two deux dos zwei dois duas due".split(), 2),
    **dict.fromkeys("three trois tres drei tre".split(), 3),
    **dict.fromkeys("four quatre cuatro vier quatro quattro".split(), 4),
    **dict.fromkeys("five cinq cinco funf cinque".split(), 5),
    **dict.fromkeys("six seis sechs sei".split(), 6),
    **dict.fromkeys("seven sept siete sieben sete sette".split(), 7),
}
_DAYS = r"(?:days?|dias?|jours?|tagen?|tage|giorni|giorno)"
_N_DAYS = re.compile(rf"\b(\d{{1,2}}|[a-z]+)[ -]{_DAYS}\b(?![ -]trips?)")
_WEEKEND = re.compile(r"\b(?:long )?(?:weekend|week end|fin de semana|wochenende|fim de semana)\b")
_LONG_WEEKEND = re.compile(r"\blong weekend\b|\bverlangertes wochenende\b|\bponte\b")
# A question about the length itself ("is a weekend enough?", "how many days?") asks for the overview.
_ASKS_LENGTH = re.compile(
    r"\b(?:enough|how many|how long|cuantos|cuantas|basta|bastan|suficiente|suffit|suffisent|combien de|"
    r"wie viele|wie lange|reicht|reichen|genug|quantos|quantas|bastam|chega|quanti|quante|bastano|"
    r"sufficient[ei]?)\b"
)
MOST_DAYS = 7
# What a plan request may ask about besides its days ("what should we see with the kids?").
PLAN_TOPICS = frozenset({"sights", "children", "duration", "tips", "daytrips", "when", "weather"})
SIGHTS_PER_DAY = 3


def trip_days(question: str, topics: Sequence[str] = ()) -> int | None:
    """The length of a trip the message asks a plan for ("I have 3 days in Kyoto", "a weekend in
    Prague with kids", "Organise-moi 4 jours à Marrakech"): its days, or None. Questions about the
    length itself ("is a weekend enough?") are not plan requests, nor those on another topic ("what
    does a day in New York cost?": ``topics``, rag.chat.selection's reading of the question)."""
    text = fold(question).replace("-", " ")
    if _ASKS_LENGTH.search(text) or set(topics) - PLAN_TOPICS:
        return None
    for m in _N_DAYS.finditer(text):
        word = m.group(1)
        n = int(word) if word.isdigit() else _NUMBER_WORDS.get(word)
        if n and 1 <= n <= 31:
            return min(n, MOST_DAYS)
    if _WEEKEND.search(text):
        return 3 if _LONG_WEEKEND.search(text) else 2
    return None


_KIDS_ASKED = frozenset(
    tokens("child children kid kids family baby toddler ninos hijos enfants kinder criancas filhos bambini")
)


def asks_length(question: str) -> bool:
    """Whether the message asks how long a stay should be ("is a weekend enough for Hong Kong?",
    "Wie viele Tage braucht man für Singapur?", "Bastano due giorni per Amsterdam?")."""
    text = fold(question).replace("-", " ")
    if not _ASKS_LENGTH.search(text):
        return False
    return bool(_N_DAYS.search(text) or _WEEKEND.search(text) or re.search(rf"\b{_DAYS}\b", text))


def with_children(question: str) -> bool:
    """Whether the traveller says children come along, in any of the six languages."""
    return bool(_KIDS_ASKED & set(tokens(question)))


@dataclass
class TripPlan:
    days: list[list[Quote]]  # the sights of each day, the day trip as the last day's
    season: list[Quote]  # the season's notes for the months asked
    tips: list[Quote]
    food: list[Quote]
    children: list[Quote]
    left_out: int  # the guide's sights no day has room for


def trip_plan(
    sections: Sequence[Section], days: int, asked_months: frozenset[int], kids: bool
) -> TripPlan | None:
    """A day-by-day plan from the guide: its sights in the guide's order, those in the same
    neighbourhood on the same day, at most ``SIGHTS_PER_DAY`` a day; a day trip the guide suggests takes
    a day of its own when there are three or more; the months' season, two practical tips, and what the
    guide says of children when they come. None when the guide has no sights to plan with."""
    sights = named(sections, "sights", "things to do")
    if sights is None:
        return None
    listed = [i for i in sights.items if i.bullet]
    trips = [i for i in sights.items if not i.bullet and "day trip" in fold(i.label)]
    if not listed:
        return None
    hoods = named(sections, "neighbourhoods", "neighborhoods")
    listed = _grouped(listed, [fold(i.label) for i in hoods.items if i.label] if hoods else [])
    trip_day = bool(trips) and days >= 3
    touring = days - trip_day
    per_day = min(SIGHTS_PER_DAY, -(-len(listed) // touring))
    plan: list[list[Quote]] = []
    # A day the sights do not fill goes to a neighbourhood the guide describes (in its order).
    spare = [i for i in (hoods.items if hoods else []) if i.bullet]
    for d in range(touring):
        day = [Quote(i, tuple(i.sentences)) for i in listed[d * per_day : (d + 1) * per_day]]
        if not day and spare:
            hood = spare.pop(0)
            day = [Quote(hood, tuple(hood.sentences))]
        plan.append(day)
    if trip_day:
        plan.append([Quote(trips[0], tuple(trips[0].sentences))])
    plan = [d for d in plan if d] or plan[:1]
    shown = min(len(listed), per_day * touring)
    season: list[Quote] = []
    when = named(sections, "best time", "when to go", "seasons", "climate")
    if when is not None and asked_months:
        season = [Quote(i, tuple(i.sentences)) for i in of_months(when.items, asked_months)][:1]
    tips_sec = named(sections, "practical tips", "tips")
    tips = [Quote(i, tuple(i.sentences)) for i in tips_sec.items[:2]] if tips_sec else []
    food_sec = named(sections, "food")
    food = whole(food_sec, food_sec.candidates[:1]) if food_sec else []
    children: list[Quote] = []
    if kids:
        found = [c for s in sections for c in s.candidates if _KIDS & set(c.words)]
        children = [q for s in sections for q in whole(s, found)][:2]  # whole() keeps each section's own
    return TripPlan(plan, season, tips, food, children, max(0, len(listed) - shown))


def _grouped(items: list[Item], hoods: Sequence[str]) -> list[Item]:
    """The sights with those of one neighbourhood next to each other, in the order each first appears."""

    def where(item: Item) -> int:
        text = fold(" ".join(c.sentence.text for c in item.sentences))
        for n, hood in enumerate(hoods):
            names = [h.strip() for h in re.split(r"\band\b|,|\(", hood) if len(h.strip()) > 3]
            if any(re.search(rf"\b{re.escape(h)}\b", text) for h in names):
                return n
        return -1 - items.index(item)  # a sight of no known neighbourhood is a group of its own

    groups: dict[int, list[Item]] = {}
    for item in items:
        groups.setdefault(where(item), []).append(item)
    return [i for g in groups.values() for i in g]
