"""Copies of SGD user turns that say what SGD does not: other months, bare months and weekdays, other
cities. For scripts/fit_slots.py; deterministic.

SGD's travel dialogues date everything in March ("March 10th", "the 10th of March", "next Friday") and
name a few dozen cities, often. Fitted on them alone, the tagger learns "March" and "Seattle" and misses
"in May", "on Saturday" and "Denver". The copies keep each turn's words around the span and change
only the span, so what the tagger learns from them is the context.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol, TypeVar


class HasSpans(Protocol):
    """A frozen dataclass with a text and its (label, start, end) spans (fit_slots.Turn)."""

    @property
    def text(self) -> str: ...

    @property
    def spans(self) -> tuple[tuple[str, int, int], ...]: ...


T = TypeVar("T", bound=HasSpans)

MONTHS = "January February March April May June July August September October November December".split()
_MARCH_DATE = re.compile(
    r"(?:(\d{1,2})(?:st|nd|rd|th)? of )?march(?: (\d{1,2})(?:st|nd|rd|th)?)?(,? \d{4})?", re.I
)
_BEFORE_DATE = re.compile(r"\b(?:on|for) (?:the )?$", re.I)


def augment(turns: Sequence[T]) -> list[T]:
    """Copies of the turns whose date names a month, with another month in another format. SGD's dates
    are all in March, written "March 10th" or "10th of March": the copies rotate the twelve months over
    "May 10th", "10th of May", "May 10" and "10 May"; every third also says only the month ("on the
    10th of March" -> "in May"), which SGD never does and travellers often do. One copy per turn at
    most, deterministic."""
    out: list[T] = []
    k = 0
    for turn in turns:
        for label, start, end in turn.spans:
            m = _MARCH_DATE.fullmatch(turn.text[start:end])
            if not label.endswith("_date") or not m or not (m[1] or m[2]):
                continue
            k += 1
            day, year = int(m[1] or m[2]), m[3] or ""
            month, nth = MONTHS[(5 * k) % 12], f"{day}{_suffix(day)}"
            new = [f"{month} {nth}", f"{nth} of {month}", f"{month} {day}", f"{day} {month}"][k % 4] + year
            out.append(_splice(turn, start, end, start, new, (label, 0, len(new))))
            before = _BEFORE_DATE.search(turn.text[:start])
            if k % 3 == 0 and before:
                month = MONTHS[(7 * k) % 12]
                out.append(
                    _splice(turn, before.start(), end, start, f"in {month}", (label, 3, 3 + len(month)))
                )
            break
    return out


_WEEKDAY_DATE = re.compile(
    r"(?:(?:next|this) ((?:mon|tues|wednes|thurs|fri|satur|sun)day)|((?:mon|tues|wednes|thurs|fri|satur|sun)day),? "
    r"(?:this|next) week)",
    re.I,
)


def bare_weekdays(turns: Sequence[T]) -> list[T]:
    """Copies of every other turn whose date is "next Friday", "this Sunday" or "Saturday this week",
    saying only "on Friday": SGD never does, travellers do."""
    out: list[T] = []
    k = 0
    for turn in turns:
        for label, start, end in turn.spans:
            m = _WEEKDAY_DATE.fullmatch(turn.text[start:end])
            if not label.endswith("_date") or not m:
                continue
            k += 1
            if k % 2 == 0:
                day = (m[1] or m[2]).capitalize()
                on = "" if re.search(r"\b(?:on|for)\s*$", turn.text[:start], re.I) else "on "
                out.append(_splice(turn, start, end, start, on + day, (label, len(on), len(on) + len(day))))
            break
    return out


_PLACES = ("origin", "destination", "place")


def city_names(half: int) -> list[str]:
    """City names to put in SGD's place: "Name", "Name, ST" (a US state) or "Name, Country", of the
    gazetteer's cities of 150,000 people or more, every other one by geoname id (``half`` 0 or 1), so
    that training and the renamed dev set draw from different cities. Training's half also has the
    catalogue's destination cities (the places our travellers ask about); dev's never does."""
    from connectors.places import LocationCatalogue
    from connectors.places.gazetteer import load

    gaz = load()
    destinations = {c.name for c in LocationCatalogue.load().cities}
    out: list[str] = sorted(destinations) if half == 0 else []
    for gid in sorted(gaz.cities)[half::2]:
        c = gaz.cities[gid]
        if c.population < 150_000 or not c.name.isascii() or any(ch.isdigit() for ch in c.name):
            continue
        if c.name in destinations:
            continue
        country = gaz.countries.get(c.country_code)
        region = c.admin1_code if c.country_code == "US" else country.name if country else ""
        out.append(f"{c.name}, {region}" if region and gid % 3 == 0 else c.name)
    return out


def rename_places(turns: Sequence[T], names: Sequence[str], seed: int) -> list[T]:
    """A copy of each turn with a place span, its places renamed to random cities of ``names``. SGD
    names few cities, often: without the copies the tagger learns Seattle and misses Denver."""
    rng = random.Random(seed)
    out: list[T] = []
    for turn in turns:
        places = [sp for sp in turn.spans if sp[0] in _PLACES and not turn.text[sp[1] : sp[2]].isupper()]
        if not places:
            continue
        for label, start, end in sorted(places, key=lambda sp: -sp[1]):
            new = rng.choice(names)
            turn = _splice(turn, start, end, start, new, (label, 0, len(new)))
        out.append(turn)
    return out


def _suffix(day: int) -> str:
    return "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def _splice(turn: T, a: int, b: int, start: int, new: str, span: tuple[str, int, int]) -> T:
    """``turn`` with text[a:b] replaced by ``new``: the span that started at ``start`` becomes ``span``
    (offsets within ``new``), the spans after it move."""
    delta = len(new) - (b - a)
    spans = [
        (span[0], a + span[1], a + span[2])
        if s == start
        else (lb, s, e)
        if e <= a
        else (lb, s + delta, e + delta)
        for lb, s, e in turn.spans
    ]
    return replace(turn, text=turn.text[:a] + new + turn.text[b:], spans=tuple(spans))  # type: ignore[type-var]
