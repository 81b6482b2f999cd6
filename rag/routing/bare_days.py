"""Bare days: a day of the month said without its month ("the 22nd", "el 16", "Lieber am 8.", "de 9 a 12").
Pure: today and the anchor are arguments.

Which month a bare day is in comes from, in order:

1. the message's date before it: the first such day on or after it ("April 9, coming back on the 13th"
   is April 13; "March 28, back on the 2nd" April 2), strictly after it when the two make a range
   ("the 20th to the 23rd", "March 1st through the 5th");
2. the date after it, when the two make a range: the last such day before it ("from the 30th to June 2"
   starts on May 30);
3. the anchor, the trip's date the message changes ("make it the 22nd" after May 20): the day nearest
   the anchor in its month, the month before or the month after; on a tie the later one. It is never
   more than 31 days from the anchor;
4. otherwise today: the next such day (dates.py reads it so, and says when this month's has passed).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection, Sequence

from rag.routing.date_mention import DateMention

_DAY = dt.timedelta(days=1)


def on_or_after(day: int, start: dt.date) -> dt.date | None:
    """The first date on or after ``start`` whose day of the month is ``day`` (None for no such day)."""
    for offset in range(3):  # the 31st may skip a month, never two
        candidate = _in_month(start, offset, day)
        if candidate is not None and candidate >= start:
            return candidate
    return None


def on_or_before(day: int, end: dt.date) -> dt.date | None:
    """The last date on or before ``end`` whose day of the month is ``day``."""
    for offset in range(0, -3, -1):
        candidate = _in_month(end, offset, day)
        if candidate is not None and candidate <= end:
            return candidate
    return None


def nearest(day: int, anchor: dt.date) -> dt.date | None:
    """The date whose day of the month is ``day`` nearest ``anchor`` in its month, the month before or
    the month after; on a tie, the later."""
    candidates = [c for offset in (-1, 0, 1) if (c := _in_month(anchor, offset, day)) is not None]
    if not candidates:
        return None
    return min(candidates, key=lambda c: (abs((c - anchor).days), -c.toordinal()))


def resolve(
    mentions: Sequence[DateMention],
    glued: Collection[int],
    anchor: dt.date | None,
    today: dt.date | None = None,
) -> list[DateMention]:
    """``mentions`` (in order) with each bare day moved to its month, as the module says; ``glued``
    holds the index of each mention joined to the next as a range ("the 20th to the 23rd"). A day the
    anchor (a date ahead) puts before ``today`` is the next such day instead."""
    out = list(mentions)
    for i, mention in enumerate(out):
        if not mention.bare:
            continue
        day = mention.first.day
        before = out[i - 1] if i > 0 else None
        after = out[i + 1] if i + 1 < len(out) else None
        if before is not None:
            resolved = on_or_after(day, before.first + (_DAY if i - 1 in glued else dt.timedelta()))
        elif after is not None and i in glued and not after.bare:
            resolved = on_or_before(day, after.first - _DAY)
        elif anchor is not None:
            resolved = nearest(day, anchor)
            if resolved is not None and today is not None and resolved < today <= anchor:
                resolved = on_or_after(day, today)  # the trip is ahead: its day is too
        else:
            continue
        if resolved is not None:
            out[i] = dataclasses.replace(mention, first=resolved, rolled=False)
    return out


def _in_month(near: dt.date, offset: int, day: int) -> dt.date | None:
    index = near.year * 12 + near.month - 1 + offset
    try:
        return dt.date(index // 12, index % 12 + 1, day)
    except ValueError:
        return None
