"""A date a message names (``DateMention``): where it is in the text and which day or days it means. Pure."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DateMention:
    start: int
    end: int
    first: dt.date
    last: dt.date | None = None  # set for a range
    weekend: bool = False
    # "the 5th" said on the 21st without an anchor: read as next month's 5th, though the traveller may
    # mean this month's (which has passed).
    rolled: bool = False
    # A day said without its month ("the 22nd", "el 16", "Lieber am 8.", either end of "de 9 a 12"):
    # resolved from the message's other date, the anchor, or today (see find_dates).
    bare: bool = False
