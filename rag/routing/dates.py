"""Dates in free text, resolved against today. Pure: no I/O, no clock (today is an argument).

Understands ISO dates, "March 3", "3rd of March", "12/08" (month-first or day-first, a setting),
"today", "tomorrow", "day after tomorrow", "in 3 days", "in 2 weeks", "next friday", "this weekend",
"next week", and ranges such as "July 10-15", "from July 10 to July 15", "March 1st through the 5th",
"from the 2nd until the 7th of June" or "between ... and ...". A date without a year is the next one on
or after today (a range: its first day decides the year). A bare day, without its month ("the 22nd",
"on the 15th"), takes the month of the message's other date or of the anchor the caller gives (the
trip's date it changes), else it is the next such day (rag/routing/bare_days.py). Past days
("yesterday", "last week", "last friday", "3 days ago", "2025-03-01") are read as what they are, so that
they can be refused, never taken for the coming ones. Months without a day ("in April") are
rag/routing/months.py's. Spanish, French, German, Portuguese and Italian dates are rewritten in English
first (rag/routing/date_words.py). Month and weekday names are CLDR's (rag/i18n/calendar_words.py).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from typing import Literal

from rag.i18n.calendar_words import alternation, month_names, weekday_names
from rag.routing import bare_days, date_words
from rag.routing.date_mention import DateMention

DateOrder = Literal["MDY", "DMY"]

# English month and weekday names (CLDR's, with their abbreviations: "sept", "tues") -> 1..12 and 0..6.
MONTHS = dict(month_names("en"))
WEEKDAYS = dict(weekday_names("en", abbreviated=True))
NUMBER_WORDS = {
    word: n
    for n, word in enumerate(
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
        " seventeen eighteen nineteen twenty".split(),
        start=1,
    )
} | {"a": 1, "an": 1, "couple of": 2, "few": 3}
# The same small numbers in Spanish, French, German, Portuguese and Italian ("tres noches", "zwei Nächte").
NUMBER_WORDS.update(
    {
        word: n
        for n, words in enumerate(
            [
                "un una uno une ein eine einen einem einer um uma",
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

_M = rf"({alternation(MONTHS)})\.?(?!\w)"  # "2 nov", not "vol 2 novel"
_D = r"(\d{1,2})(?:st|nd|rd|th)?"
_Y = r"(?:,?\s*(\d{4}))?"
_NUM = r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|couple of|few)"
_WD = rf"({alternation(WEEKDAYS)})"
_WD_FULL = rf"({alternation(weekday_names('en'))})"
_TO = r"(?:-|–|to|until|till|through|thru)"
_NOT_RANK = (
    r"(?!\s*(?:floor|class|time|place|option|one|row|gate|terminal|person|stop|choice|result|hotel|flight))"
)

PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("month_range", re.compile(rf"\b{_M}\s+{_D}\s*{_TO}\s*(?:the\s+)?{_D}\b{_Y}")),
    ("day_range", re.compile(rf"\b{_D}\s*{_TO}\s*(?:the\s+)?{_D}\s+(?:of\s+)?{_M}{_Y}")),
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
    ("last_weekday", re.compile(rf"\b(?:last|past|previous)\s+{_WD}\b(?!\s+(?:of|in)\b)")),
    ("ago", re.compile(rf"\b{_NUM}\s+(days?|weeks?)\s+ago\b")),
    ("in_days", re.compile(rf"\bin\s+{_NUM}\s+days?\b")),
    ("in_weeks", re.compile(rf"\bin\s+{_NUM}\s+weeks?\b")),
    ("weekend", re.compile(r"\b(this|next|the)\s+(?:weekend|wkend|week-end|wknd)\b")),
    (
        "weekday_next_week",
        re.compile(
            rf"\b(?:on\s+)?{_WD_FULL}\s+(?:of\s+)?next\s+week\b|\bnext\s+week(?:'s)?\s+(?:on\s+)?{_WD_FULL}\b"
        ),
    ),
    ("next_week", re.compile(r"\bnext\s+week\b")),
    # Not "on a Tuesday", "every Monday", "Sundays": any such day, no date.
    (
        "weekday",
        re.compile(rf"(?<!\ba )(?<!\bany )(?<!\bevery )(?<!\beach )\b(?:(next|this|on|coming)\s+)?{_WD}\b"),
    ),
    (
        "this_month",
        re.compile(r"\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(this|next|the coming)\s+month\b"),
    ),
    # A bare day: a day of the month without its month ("the 22nd", "on the 3rd"), not a rank ("the 2nd
    # floor"); without "the" only after a word that makes it a day ("make it 22nd", "until 7th").
    ("ordinal", re.compile(rf"\b(?:on\s+)?the\s+(\d{{1,2}})(?:st|nd|rd|th)\b{_NOT_RANK}")),
    (
        "ordinal",
        re.compile(
            r"(?:(?<=\bon\s)|(?<=\bit\s)|(?<=\bto\s)|(?<=\bby\s)|(?<=\bfrom\s)|(?<=\buntil\s)|(?<=\btill\s))"
            rf"(\d{{1,2}})(?:st|nd|rd|th)\b{_NOT_RANK}"
        ),
    ),
]


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


def _range(today: dt.date, month: int, first: int, last: int, year: str | None) -> _Parsed | None:
    """Days ``first`` to ``last`` of ``month``: the next such range (its first day decides the year)."""
    a = _upcoming(today, month, first, int(year) if year else None)
    if a is None:
        return None
    try:
        b = a.replace(day=last)
    except ValueError:
        return None
    return (a, b, False) if b > a else None


def _weekday(today: dt.date, weekday: int, qualifier: str | None) -> dt.date:
    ahead = (weekday - today.weekday()) % 7
    if ahead == 0 and qualifier == "next":
        ahead = 7  # "next friday" said on a Friday is a week away; otherwise the coming one
    return today + dt.timedelta(days=ahead)


_Parsed = tuple[dt.date, dt.date | None, bool]


def _parse(kind: str, m: re.Match[str], today: dt.date, order: DateOrder) -> _Parsed | None:
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
        return _range(today, _month(g[0]), int(g[1]), int(g[2]), g[3])
    if kind == "day_range":
        return _range(today, _month(g[2]), int(g[0]), int(g[1]), g[3])
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
        d = bare_days.on_or_after(int(g[0]), today)
        return (d, None, False) if d else None
    return None


def _month(text: str) -> int:
    return MONTHS[text.lower().rstrip(".")]


def find_dates(
    text: str,
    today: dt.date,
    order: DateOrder = "MDY",
    lang: str = "en",
    *,
    keep_past: bool = False,
    anchor: dt.date | None = None,
) -> list[DateMention]:
    """Date mentions in ``text``, in order; spans never overlap (the earlier, longer pattern wins).

    For a message in another language (``lang``, as rag.i18n detects it) its date phrases are first
    rewritten in English ("el 12 de mayo", "am 5. Mai", "demain"), read day first, and a date before
    today is dropped unless ``keep_past`` (the extractor keeps them apart, to refuse them): an impossible
    date gives no date, never a wrong one.

    A bare day (``DateMention.bare``: "the 22nd", "el 16", "au 10") is a day of the month of the
    message's date before it, on or after that date ("April 9, back on the 13th": April 13), or of the
    month of the date after it in a range ("from the 2nd until June 7th"); otherwise, given an
    ``anchor`` (the trip's date the message changes), the day nearest the anchor in its month, the
    month before or the month after (on a tie the later); otherwise the next such day from today
    (``rolled`` when this month's has passed).
    """
    if lang == "en" or lang not in date_words.languages():
        return _find(text.lower(), today, order, anchor)
    rewritten = date_words.to_english(text, lang)
    found = []
    for d in _find(rewritten.text, today, "DMY", anchor):
        if d.first >= today or keep_past:
            start, end = rewritten.span(d.start, d.end)
            found.append(dataclasses.replace(d, start=start, end=end))
    return found


def _find(lowered: str, today: dt.date, order: DateOrder, anchor: dt.date | None) -> list[DateMention]:
    taken: list[tuple[int, int]] = []
    found: list[DateMention] = []
    year_given: set[int] = set()  # the starts of dates written with their year
    weekdays: set[int] = set()  # the starts of weekday names said alone ("(on) Friday", not "next Friday")
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
            if kind == "iso" or (kind in _WITH_YEAR and m.groups()[-1]):
                year_given.add(m.start())
            bare = kind == "ordinal"
            rolled = bare and parsed[0].month != today.month and _passed_this_month(m, today)
            found.append(DateMention(m.start(), m.end(), parsed[0], parsed[1], parsed[2], rolled, bare))
            if kind == "weekday" and m.group(1) in (None, "on"):
                weekdays.add(m.start())
    found.sort(key=lambda d: d.start)
    # "Friday June 11", "Saturday 24 April", "Tuesday the 27th": the weekday names the date beside it.
    found = [
        d
        for i, d in enumerate(found)
        if d.start not in weekdays
        or not (
            (i + 1 < len(found) and _BESIDE.fullmatch(lowered[d.end : found[i + 1].start]))
            or (i > 0 and _BESIDE.fullmatch(lowered[found[i - 1].end : d.start]))
        )
    ]
    glued = {i for i in range(len(found) - 1) if _glued(lowered, found[i], found[i + 1])}
    found = bare_days.resolve(found, glued, anchor, today)
    return _join_ranges(found, glued, year_given)


_WITH_YEAR = frozenset({"month_day", "day_month", "numeric", "month_range", "day_range"})
# What may stand between a weekday name and the date it names ("Friday, June 11", "Friday the 13th").
_BESIDE = re.compile(r"[\s,]*(?:the\s*|on\s*)?")

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


def _glued(text: str, a: DateMention, b: DateMention) -> bool:
    """Whether two single dates are joined as a range ("July 8 to July 11", "the 20th to the 23rd")."""
    return a.last is None and b.last is None and bool(_RANGE_GLUE.match(text[a.end : b.start]))


def _join_ranges(mentions: list[DateMention], glued: set[int], year_given: set[int]) -> list[DateMention]:
    """Two single dates joined by "to"/"-"/"and" become one range (first, last). A last day without
    its year before the first is next year's ("30 December to 2 January" said on 31 December)."""
    out: list[DateMention] = []
    i = 0
    while i < len(mentions):
        a = mentions[i]
        if i in glued:
            b = mentions[i + 1]
            last = b.first
            if last <= a.first and b.start not in year_given and not b.bare:
                last = _next_year(last)  # over the new year: a short range, not "6 May to 2 May"
                if (last - a.first).days > 62:
                    last = b.first
            if last > a.first:
                out.append(DateMention(a.start, b.end, a.first, last, bare=a.bare or b.bare))
                i += 2
                continue
        out.append(a)
        i += 1
    return out


def _next_year(day: dt.date) -> dt.date:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year + 1, day=28)
