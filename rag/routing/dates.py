"""Dates in free text, resolved against today. Pure: no I/O, no clock (today is an argument).

Understands ISO dates, "March 3", "3rd of March", "12/08" (month-first or day-first, a setting),
"today", "tomorrow", "day after tomorrow", "in 3 days", "in 2 weeks", "next friday", "this weekend",
"next week", "on the 15th", and ranges such as "July 10-15", "from July 10 to July 15" or "between ... and ...".
A date without a year is the next one on or after today. Past days ("yesterday", "last week", "last friday",
"3 days ago", "2025-03-01") are read as what they are, so that they can be refused, never taken for the
coming ones. Months without a day ("in April") are rag/routing/months.py's. Spanish, French, German, Portuguese and Italian
dates are rewritten in English first (rag/routing/date_words.py).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Literal

from rag.routing import date_words

DateOrder = Literal["MDY", "DMY"]

MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
WEEKDAYS = {
    d: i for i, d in enumerate(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
}
WEEKDAYS.update(
    {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5, "sun": 6}
)
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "couple of": 2,
    "few": 3,
}
# The same small numbers in Spanish, French, German, Portuguese and Italian ("tres noches", "zwei Nächte").
NUMBER_WORDS.update(
    {
        word: n
        for n, words in enumerate(
            [
                "un una uno une ein eine einen einem einer um",
                "dos deux zwei dois duas due",
                "tres trois drei três tre",
                "cuatro quatre vier quatro quattro",
                "cinco cinq fünf cinque",
                "seis six sechs sei",
                "siete sept sieben sete sette",
                "ocho huit acht oito otto",
                "nueve neuf neun nove",
                "diez dix zehn dez dieci",
            ],
            start=1,
        )
        for word in words.split()
    }
)

_M = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_D = r"(\d{1,2})(?:st|nd|rd|th)?"
_Y = r"(?:,?\s*(\d{4}))?"
_NUM = r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|couple of|few)"

PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("month_range", re.compile(rf"\b{_M}\s+{_D}\s*(?:-|–|to|until|till)\s*{_D}\b{_Y}")),
    ("day_range", re.compile(rf"\b{_D}\s*(?:-|–|to|until|till)\s*{_D}\s+(?:of\s+)?{_M}{_Y}")),
    ("month_day", re.compile(rf"\b{_M}\s+{_D}\b{_Y}")),
    ("day_month", re.compile(rf"\b{_D}\s+(?:of\s+)?{_M}{_Y}")),
    ("numeric", re.compile(r"(?<![\d/.])(\d{1,2})[/.](\d{1,2})(?:[/.](\d{2}|\d{4}))?(?![\d/.])")),
    ("day_after_tomorrow", re.compile(r"\bday after tomorrow\b")),
    ("tomorrow", re.compile(r"\b(?:tomorrow|tomorow|tommorow|tommorrow|tmrw|tmr)\b")),
    ("today", re.compile(r"\b(?:today|tonight|this evening)\b")),
    # Past days, so that they are refused rather than read as the coming ones ("last friday").
    ("yesterday", re.compile(r"\b(?:yesterday|last night)\b")),
    (
        "last_weekend",
        re.compile(r"\b(?:last|past|previous)\s+(?:weekend|wkend|week-end|wknd)\b(?!\s+(?:of|in)\b)"),
    ),
    ("last_week", re.compile(r"\b(?:last|past|previous)\s+week\b(?!\s+(?:of|in)\b)")),
    (
        "last_weekday",
        re.compile(
            r"\b(?:last|past|previous)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday|tues|thurs|thur|mon|tue|wed|thu|fri|sat|sun)\b(?!\s+(?:of|in)\b)"
        ),
    ),
    ("ago", re.compile(rf"\b{_NUM}\s+(days?|weeks?)\s+ago\b")),
    ("in_days", re.compile(rf"\bin\s+{_NUM}\s+days?\b")),
    ("in_weeks", re.compile(rf"\bin\s+{_NUM}\s+weeks?\b")),
    ("weekend", re.compile(r"\b(this|next|the)\s+(?:weekend|wkend|week-end|wknd)\b")),
    (
        "weekday_next_week",
        re.compile(
            r"\b(?:on\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\s+(?:of\s+)?next\s+week\b"
            r"|\bnext\s+week(?:'s)?\s+(?:on\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
        ),
    ),
    ("next_week", re.compile(r"\bnext\s+week\b")),
    (
        "weekday",
        re.compile(
            r"\b(?:(next|this|on|coming)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday|tues|thurs|thur|mon|tue|wed|thu|fri|sat|sun)\b"
        ),
    ),
    (
        "this_month",
        re.compile(r"\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(this|next|the coming)\s+month\b"),
    ),
    ("ordinal", re.compile(r"\b(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\b")),
]


@dataclass(frozen=True, slots=True)
class DateMention:
    start: int
    end: int
    first: dt.date
    last: dt.date | None = None  # set for a range
    weekend: bool = False
    # "the 5th" said on the 21st: read as next month's 5th, though the traveller may mean this month's
    # (which has passed). The chat asks rather than assume.
    rolled: bool = False


# Relative dates further ahead than this are not read as dates.
MAX_DAYS_AHEAD = 5 * 366


def number(word: str) -> int | None:
    word = word.strip().lower()
    if word.isdigit():
        return int(word)
    return NUMBER_WORDS.get(word)


def _upcoming(today: dt.date, month: int, day: int, year: int | None) -> dt.date | None:
    try:
        if year is not None:
            return dt.date(year if year > 99 else 2000 + year, month, day)
        candidate = dt.date(today.year, month, day)
        return candidate if candidate >= today else dt.date(today.year + 1, month, day)
    except ValueError:
        return None


def _weekday(today: dt.date, weekday: int, qualifier: str | None) -> dt.date:
    ahead = (weekday - today.weekday()) % 7
    if ahead == 0 and qualifier == "next":
        ahead = 7  # "next friday" said on a Friday is a week away; otherwise the coming one
    return today + dt.timedelta(days=ahead)


def _parse(
    kind: str, m: re.Match[str], today: dt.date, order: DateOrder
) -> tuple[dt.date, dt.date | None, bool] | None:
    g = m.groups()
    if kind == "iso":
        try:
            return dt.date(int(g[0]), int(g[1]), int(g[2])), None, False
        except ValueError:
            return None
    if kind == "month_day":
        d = _upcoming(today, _month(g[0]), int(g[1]), int(g[2]) if g[2] else None)
        return (d, None, False) if d else None
    if kind == "day_month":
        d = _upcoming(today, _month(g[1]), int(g[0]), int(g[2]) if g[2] else None)
        return (d, None, False) if d else None
    if kind == "month_range":
        month, year = _month(g[0]), int(g[3]) if g[3] else None
        a, b = _upcoming(today, month, int(g[1]), year), _upcoming(today, month, int(g[2]), year)
        return (a, b, False) if a and b and b > a else None
    if kind == "day_range":
        month, year = _month(g[2]), int(g[3]) if g[3] else None
        a, b = _upcoming(today, month, int(g[0]), year), _upcoming(today, month, int(g[1]), year)
        return (a, b, False) if a and b and b > a else None
    if kind == "numeric":
        x, y = int(g[0]), int(g[1])
        month, day = (x, y) if order == "MDY" else (y, x)
        d = _upcoming(today, month, day, int(g[2]) if g[2] else None)
        return (d, None, False) if d else None
    if kind == "today":
        return today, None, False
    if kind == "tomorrow":
        return today + dt.timedelta(days=1), None, False
    if kind == "day_after_tomorrow":
        return today + dt.timedelta(days=2), None, False
    if kind in ("in_days", "in_weeks"):
        n = number(g[0])
        days = None if n is None else n * (7 if kind == "in_weeks" else 1)
        if days is None or days > MAX_DAYS_AHEAD:
            return None  # "in 3000000 days" is no travel date (and past the calendar's end)
        return today + dt.timedelta(days=days), None, False
    if kind == "weekend":
        saturday = today + dt.timedelta(days=(5 - today.weekday()) % 7)
        if today.weekday() == 6:  # on a Sunday, "this weekend" is today
            saturday = today - dt.timedelta(days=1) if g[0] != "next" else today + dt.timedelta(days=6)
        elif g[0] == "next":
            saturday += dt.timedelta(days=7)
        start = max(saturday, today)
        return start, saturday + dt.timedelta(days=2), True
    if kind == "yesterday":
        return today - dt.timedelta(days=1), None, False
    if kind == "last_weekend":
        saturday = today - dt.timedelta(days=(today.weekday() - 5) % 7 or 7)
        return saturday, saturday + dt.timedelta(days=1), True
    if kind == "last_week":
        monday = today - dt.timedelta(days=today.weekday() + 7)
        return monday, monday + dt.timedelta(days=6), False
    if kind == "last_weekday":
        return today - dt.timedelta(days=(today.weekday() - WEEKDAYS[g[0]]) % 7 or 7), None, False
    if kind == "ago":
        n = number(g[0])
        if n is None or n * 7 > MAX_DAYS_AHEAD:
            return None
        return today - dt.timedelta(days=n * (7 if g[1].startswith("week") else 1)), None, False
    if kind == "next_week":
        monday = today + dt.timedelta(days=7 - today.weekday())
        return monday, None, False
    if kind == "weekday_next_week":  # "Friday next week": that day of the coming Monday's week
        monday = today + dt.timedelta(days=7 - today.weekday())
        return monday + dt.timedelta(days=WEEKDAYS[g[0] or g[1]]), None, False
    if kind == "weekday":
        return _weekday(today, WEEKDAYS[g[1]], g[0]), None, False
    if kind == "this_month":  # "the 8th of this month": this month's, even once it has passed
        month = today.month + (0 if g[1] == "this" else 1)
        year = today.year + (month - 1) // 12
        try:
            return dt.date(year, (month - 1) % 12 + 1, int(g[0])), None, False
        except ValueError:
            return None
    if kind == "ordinal":
        day = int(g[0])
        for offset in range(0, 3):
            month = (today.month - 1 + offset) % 12 + 1
            year = today.year + (today.month - 1 + offset) // 12
            try:
                candidate = dt.date(year, month, day)
            except ValueError:
                continue
            if candidate >= today:
                return candidate, None, False
        return None
    return None


def _month(text: str) -> int:
    key = text.lower().rstrip(".")
    return MONTHS.get(key) or MONTHS[key[:3]]


def find_dates(
    text: str, today: dt.date, order: DateOrder = "MDY", lang: str = "en", *, keep_past: bool = False
) -> list[DateMention]:
    """Date mentions in ``text``, in order; spans never overlap (the earlier, longer pattern wins).

    For a message in another language (``lang``, as rag.i18n detects it) its date phrases are first
    rewritten in English ("el 12 de mayo", "am 5. Mai", "demain"), read day first, and a date before
    today is dropped unless ``keep_past`` (the extractor keeps them apart, to refuse them): an impossible
    date gives no date, never a wrong one.
    """
    if lang == "en" or lang not in date_words.languages():
        return _find(text.lower(), today, order)
    rewritten = date_words.to_english(text, lang)
    found = []
    for d in _find(rewritten.text, today, "DMY"):
        if d.first >= today or keep_past:
            start, end = rewritten.span(d.start, d.end)
            found.append(DateMention(start, end, d.first, d.last, d.weekend, d.rolled))
    return found


def _find(lowered: str, today: dt.date, order: DateOrder) -> list[DateMention]:
    taken: list[tuple[int, int]] = []
    found: list[DateMention] = []
    for kind, pattern in PATTERNS:
        for m in pattern.finditer(lowered):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            if kind == "weekday" and m.group(1) is None and m.group(2) in ("sun", "sat", "mon", "wed"):
                continue  # bare "sun", "wed" are words more often than days
            if (
                kind == "month_day"
                and m.group(1) == "may"
                and not m.group(3)
                and _may_is_verb(lowered, m.start())
            ):
                continue
            if kind == "numeric" and _RATING.search(
                lowered[max(0, m.start() - 16) : m.start()] + "|" + lowered[m.end() : m.end() + 16]
            ):
                continue  # "rated 4.2 or higher": a score, not the 2nd of April
            parsed = _parse(kind, m, today, order)
            if parsed is None or (parsed[0] - today).days > MAX_DAYS_AHEAD:
                continue
            taken.append((m.start(), m.end()))
            rolled = kind == "ordinal" and parsed[0].month != today.month and _passed_this_month(m, today)
            found.append(DateMention(m.start(), m.end(), parsed[0], parsed[1], parsed[2], rolled))
    found.sort(key=lambda d: d.start)
    return _join_ranges(lowered, found)


# Words around a number that make it a score or a rating ("rated 4.2 or higher", "4.5 stars").
_RATING = re.compile(
    r"(?:rat(?:ed|ing)|score[ds]?|stars?|review(?:s|ed)?|grade)\s*(?:of|is|at least|above|over)?\s*\|"
    r"|\|\s*(?:or (?:higher|more|better|above|up)|\+|stars?|/\s*(?:5|10)|out of|rating|points?)"
)


def _passed_this_month(m: re.Match[str], today: dt.date) -> bool:
    """Whether "the Nth" names a day of this month that has passed (then it was read as next month's)."""
    try:
        return today.replace(day=int(m.group(1))) < today
    except ValueError:
        return False


def _may_is_verb(text: str, at: int) -> bool:
    before = text[max(0, at - 6) : at]
    return bool(re.search(r"\b(i|we|you|it|they|he|she)\s+$", before))


_RANGE_GLUE = re.compile(r"^\s*(?:-|–|to|until|till|and|through|thru|→|->)\s*$")


def _join_ranges(text: str, mentions: list[DateMention]) -> list[DateMention]:
    """Two single dates joined by "to"/"-"/"and" become one range (first, last)."""
    out: list[DateMention] = []
    i = 0
    while i < len(mentions):
        a = mentions[i]
        if i + 1 < len(mentions) and a.last is None and mentions[i + 1].last is None:
            b = mentions[i + 1]
            if _RANGE_GLUE.match(text[a.end : b.start]) and b.first > a.first:
                out.append(DateMention(a.start, b.end, a.first, b.first))
                i += 2
                continue
        out.append(a)
        i += 1
    return out
