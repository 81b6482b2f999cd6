"""What the extractor read in one message (``Slots``): its places and their roles, dates, months,
travellers, nights, cabin, budget, and what a search is narrowed to. Pure."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from connectors.places import Place, PlaceMention
from rag.routing.date_mention import DateMention
from rag.routing.shifts import Shift


@dataclass
class Slots:
    text: str = ""
    places: list[PlaceMention] = field(default_factory=list)
    countries: list[str] = field(default_factory=list)  # ISO alpha-2 codes of countries named
    unknown_places: list[str] = field(default_factory=list)  # place-like names the catalogue lacks
    ambiguous_places: dict[str, list[Place]] = field(default_factory=dict)  # "Springfield": which?
    route_pair: bool = False  # an origin and a destination written as a route ("Boston to Denver")
    origin: PlaceMention | None = None
    destination: PlaceMention | None = None
    dates: list[DateMention] = field(default_factory=list)
    past_dates: list[DateMention] = field(default_factory=list)  # days that have passed: refused, never sent
    month: dt.date | None = None  # a month without days ("in April"): its first day; not a start date
    nights: int | None = None
    adults: int | None = None
    children: int | None = None
    infants: int | None = None
    cabin: str | None = None
    nonstop: bool = False
    max_price: int | None = None
    currency: str | None = None
    forecast_days: int | None = None
    rooms: int | None = None
    compared: bool = False  # places set side by side ("Rome or Paris?"): neither an origin nor the trip's
    round_trip: bool = False  # "a round trip", "return flight": a return date is needed
    one_way: bool = False  # "one way": no return date
    category: str | None = None  # a kind of place ("museum", "park"): connectors.params.ActivityCategory
    airline: str | None = None  # an airline named ("with United"): its IATA code
    # Dates said as the end of a trip or a stay ("returning the 10th", "check out on the 12th", "Vuelta el
    # 11 de mayo", "só até dia 8"), by their index in ``dates``.
    end_marked: frozenset[int] = frozenset()
    # The trip's dates moved ("push the return back a day": end +1, "one more night": nights +1), from
    # whatever the conversation holds: rag.routing.shifts.
    shift: Shift | None = None

    @property
    def start_date(self) -> dt.date | None:
        starts = self._starts()
        return starts[0].first if starts else None

    @property
    def end_date(self) -> dt.date | None:
        starts = self._starts()
        if starts and starts[0].last is not None:
            return starts[0].last
        ends = [d for i, d in enumerate(self.dates) if i in self.end_marked]
        if ends:
            return ends[0].first if not starts or ends[0].first > starts[0].first else None
        return starts[1].first if len(starts) > 1 and starts[1].first > starts[0].first else None

    def _starts(self) -> list[DateMention]:
        return [d for i, d in enumerate(self.dates) if i not in self.end_marked]

    @property
    def place(self) -> PlaceMention | None:
        """Where a stay, activity or forecast is: the destination, or the only place named."""
        if self.destination:
            return self.destination
        return self.places[-1] if self.places else None
