"""How a conversation's state changes: typed events, reduced by one function (``reduce``). Pure.

A decision (rag.dialogue.policy) never rewrites the trip: it returns what happened as events, as a
dialogue tracker records them, and ``reduce`` applies them in order, each field by its own merge rule:

- ``TripSet``: one trip field said (a place, a count, a cabin); a month said drops the exact days;
- ``DatesSet``: the trip's days, the first day, the last and the nights as one value (a stay keeps its
  length when only its first day moves; an end before the start is never stored);
- ``Searched``: calls that went out, each the latest search of its tool (what "which was cheapest?"
  and "make it the 22nd" change) and, together, the last searches made;
- ``Asked``: searches waiting for what the assistant asked; they merge with those still waiting and
  leave after ``PENDING_TURNS`` messages without an answer; ``Answered`` drops them;
- ``TurnTaken``: one more message.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rag.dialogue.trip import ToolRequest, TripState

# Messages a waiting search stays for without being answered or asked again.
PENDING_TURNS = 8
# Trip fields a TripSet may set; dates, searches and questions have events of their own.
SETTABLE = frozenset(
    {
        "origin",
        "origin_name",
        "destination",
        "destination_name",
        "destination_label",
        "month",
        "adults",
        "children",
        "rooms",
        "trip_kind",
        "cabin",
        "max_price",
        "currency",
        "lang",
    }
)


@dataclass(frozen=True, slots=True)
class TripSet:
    field: str
    value: Any

    def __post_init__(self) -> None:
        if self.field not in SETTABLE:
            raise ValueError(f"TripSet: {self.field!r} is not a trip field it may set")


@dataclass(frozen=True, slots=True)
class DatesSet:
    """The trip's days: ``start`` and ``end`` (None: unknown) and ``nights``, as one value."""

    start: dt.date | None
    end: dt.date | None
    nights: int | None


@dataclass(frozen=True, slots=True)
class Searched:
    calls: tuple[ToolRequest, ...]


@dataclass(frozen=True, slots=True)
class Asked:
    waiting: tuple[ToolRequest, ...]


@dataclass(frozen=True, slots=True)
class Answered:
    tools: frozenset[str]  # searches no longer waiting: done, replaced, or given up


@dataclass(frozen=True, slots=True)
class TurnTaken:
    pass


Event = TripSet | DatesSet | Searched | Asked | Answered | TurnTaken


def reduce(state: TripState, events: Iterable[Event]) -> TripState:
    """``state`` after ``events``, in order."""
    changes: dict[str, Any] = {}

    def now(name: str) -> Any:
        return changes[name] if name in changes else getattr(state, name)

    for e in events:
        if isinstance(e, TurnTaken):
            changes["turn"] = (now("turn") or 0) + 1
        elif isinstance(e, TripSet):
            changes[e.field] = e.value
            if e.field == "month" and e.value is not None:
                changes.update(start_date=None, end_date=None)
        elif isinstance(e, DatesSet):
            start, end, nights = e.start, e.end, e.nights
            if start is not None and end is not None and end <= start:
                end = None  # never stored: the policy asks about it first
            if start is not None and end is not None:
                nights = (end - start).days
            changes.update(start_date=start, end_date=end, nights=nights)
            if start is not None:
                changes["month"] = None
        elif isinstance(e, Searched):
            turn = now("turn") or 0
            made = [c.model_copy(update={"turn": turn}) for c in e.calls]
            kept = [s for s in now("searches") or [] if s.name not in {c.name for c in made}]
            changes["last_calls"] = made or now("last_calls")
            changes["searches"] = [*kept, *made] or None
        elif isinstance(e, Asked):
            turn = now("turn") or 0
            asked = [w.model_copy(update={"turn": turn}) for w in e.waiting]
            names = {w.name for w in asked}
            kept = [p for p in now("pending") or [] if p.name not in names]
            changes["pending"] = [*kept, *asked] or None
        elif isinstance(e, Answered):
            kept = [p for p in now("pending") or [] if p.name not in e.tools]
            changes["pending"] = kept or None
    out = state.model_copy(update=changes)
    return expire_pending(out)


def expire_pending(state: TripState) -> TripState:
    """Waiting searches left unanswered for ``PENDING_TURNS`` messages are given up."""
    turn = state.turn or 0
    kept = [p for p in state.pending or [] if turn - p.turn < PENDING_TURNS]
    if len(kept) == len(state.pending or []):
        return state
    return state.model_copy(update={"pending": kept or None})


def latest_search(state: TripState, tool: str | None = None) -> ToolRequest | None:
    """The latest search of ``tool`` (any tool when None) that went out in this conversation."""
    made = [s for s in state.searches or [] if tool is None or s.name == tool]
    return max(made, key=lambda s: s.turn, default=None)


def names(events: Sequence[Event]) -> list[str]:
    """The events as one short line each, for the decision's log line."""
    out = []
    for e in events:
        if isinstance(e, TripSet):
            out.append(f"{e.field}={e.value}")
        elif isinstance(e, DatesSet):
            out.append(f"dates={e.start}..{e.end} ({e.nights} nights)")
        elif isinstance(e, Searched):
            out.append("searched " + ",".join(c.name for c in e.calls))
        elif isinstance(e, Asked):
            out.append("asked " + ",".join(w.name for w in e.waiting))
        elif isinstance(e, Answered):
            out.append("answered " + ",".join(sorted(e.tools)))
    return out
