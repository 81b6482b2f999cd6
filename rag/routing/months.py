"""Month mentions in free text ("in April", "next April", "April 2027", "en abril", "im April"). Pure.

A month is not a date: a flight "in April" still needs its day, but a forecast "in April" is months
away, and the guides' climate for April answers it. So the extractor keeps a month apart from dates
(``Slots.month``): the first day of the month meant, resolved against today (an argument, never the
clock). Without a year it is the next such month, this one included; "next April" said in April is a
year away.

Only a month with a cue is read ("in", "during", "next", "early", a year after it; "en", "im", "ad" ...
in the other languages, date_words.yaml ``month_cues``): a bare "May" is a verb, "April" a name, and
"March" a town. Each language's cues pair only with its own month names, so every language's pairs are
read in every message (a short "Tokio en abril" may be detected as English).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass

import yaml

from connectors.text import fold
from rag.i18n.calendar_words import alternation, english_month, month_names
from rag.routing.date_words import WORDS_PATH

ENGLISH_MONTHS = tuple(english_month(n) for n in range(1, 13))
# English cues before a month; "may" takes only those that cannot precede the verb ("this may help").
_EN_CUES = (
    "in|during|for|by|until|till|around|through|throughout|over|this|early|late|mid|mid-"
    "|end of|beginning of|start of|the month of|in early|in late|in mid|from"
)
_EN_MAY_CUES = "in|during|until|till|early|late|mid|mid-|end of|beginning of|start of|the month of|in early|in late|in mid"
_B = r"(?<![\w])"
_E = r"(?![\w])"


@dataclass(frozen=True, slots=True)
class MonthMention:
    start: int
    end: int
    first: dt.date  # the month's first day
    year_given: bool = False

    @property
    def last(self) -> dt.date:
        """The month's last day."""
        return last_day(self.first)


def last_day(first: dt.date) -> dt.date:
    """The last day of ``first``'s month."""
    following = dt.date(first.year + first.month // 12, first.month % 12 + 1, 1)
    return following - dt.timedelta(days=1)


def find_months(text: str, today: dt.date, skip: list[tuple[int, int]] | None = None) -> list[MonthMention]:
    """Month mentions in ``text`` in order, none overlapping ``skip`` (the dates' spans: "April 10" is
    a date, not a month) or each other. A month with a past year is kept (it is refused, not ignored)."""
    lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)  # one character per character
    taken = list(skip or [])
    found: list[MonthMention] = []
    for pattern, months in _patterns():
        for m in pattern.finditer(lowered):
            start, end = m.span()
            if any(start < e and s < end for s, e in taken):
                continue
            groups = m.groupdict()
            year = int(groups["year"]) if groups.get("year") else None
            following = any(groups.get(g) for g in ("next", "next0", "next_after"))
            first = _resolve(today, months[fold(groups["month"])], year, following)
            if first is None:
                continue
            taken.append((start, end))
            found.append(MonthMention(start, end, first, year is not None))
    return sorted(found, key=lambda mm: mm.start)


def _resolve(today: dt.date, month: int, year: int | None, following: bool) -> dt.date | None:
    if year is not None:
        return dt.date(year, month, 1) if 1900 <= year <= today.year + 10 else None
    year = today.year if month >= today.month else today.year + 1
    if following and month == today.month:
        year = today.year + 1  # "next April" said in April
    return dt.date(year, month, 1)


@dataclass(frozen=True, slots=True)
class _Words:
    cues: str  # "in|during|..."
    next_before: str  # "next|coming"
    next_after: str  # "prochain|que viene"
    of: str  # between a month and its year
    months: dict[str, int]  # month name (and its accent-free spelling) -> number


@functools.cache
def _patterns() -> list[tuple[re.Pattern[str], dict[str, int]]]:
    """(pattern, month name -> number): per language, cue + month (+ year), and month + year."""
    english = dict(month_names("en", abbreviated=False))
    no_may = {n: i for n, i in english.items() if n != "may"}
    of_en = r",?\s*(?:of\s+)?"
    languages = [
        _Words(_EN_CUES, "next|coming", "", of_en, no_may),
        _Words(_EN_MAY_CUES, "next", "", of_en, {"may": 5}),
    ]
    raw = yaml.safe_load(WORDS_PATH.read_text(encoding="utf-8"))
    for lang, spec in raw.items():
        if not spec.get("month_cues"):
            continue
        of = rf",?\s*(?:(?:{spec['of']})\s+)?" if spec["of"] else r",?\s*"
        languages.append(
            _Words(
                str(spec["month_cues"]),
                str(spec.get("month_next") or ""),
                str(spec.get("month_next_after") or ""),
                of,
                # Full names only: an abbreviation next to a cue is too often another word ("a mar" is
                # "to the sea").
                dict(month_names(lang, abbreviated=False)),
            )
        )
    out: list[tuple[re.Pattern[str], dict[str, int]]] = []
    for w in languages:
        month = rf"(?P<month>{alternation(list(w.months))})"
        year = rf"(?:{w.of}(?P<year>\d{{4}}))"
        cue = rf"(?:{alternation(_with_plain(w.cues))})\s*(?:the\s+)?"
        if w.next_before:
            nexts = alternation(_with_plain(w.next_before))
            cue = rf"(?:{cue}(?:(?P<next>{nexts})\s+)?|(?P<next0>{nexts})\s+)"
        after = rf"(?:\s+(?P<next_after>{alternation(_with_plain(w.next_after))}))?" if w.next_after else ""
        out.append((re.compile(rf"{_B}{cue}{month}{year}?{after}{_E}"), w.months))
        out.append((re.compile(rf"{_B}{month}{year}{_E}"), w.months))
    return out


def _with_plain(words: str) -> list[str]:
    """``words`` ("próximo|que viene") split, with their accent-free spellings."""
    split = [w for w in words.split("|") if w]
    return list(dict.fromkeys(split + [fold(w) for w in split]))
