"""What the conversation waits on, as the readers of its next message need it: the state in plain
lines for an LLM (``describe_state``), the slots asked for, which the slot tagger reads the reply with
(``asked_slots``), and where a place named alone goes (``asked_place``). Pure."""

from __future__ import annotations

from rag.dialogue.plan_types import ToolSpecs
from rag.dialogue.trip import TripState
from rag.routing.slot_kinds import PLACE_SLOTS, SlotKind, traits


def describe_state(trip: TripState, specs: ToolSpecs) -> str | None:
    """The conversation's state in a few plain lines, for an LLM reading the next message: what the
    trip holds, what the assistant asked for and is waiting on, and the last search. None when empty."""
    known = trip.model_dump(
        mode="json", exclude_none=True, exclude={"last_calls", "pending", "searches", "turn", "lang"}
    )
    lines = [f"trip: {', '.join(f'{k}={v}' for k, v in known.items())}"] if known else []
    for p in trip.pending or []:
        route = specs.routes.get(p.name)
        needs = [q for q in route.required if p.params.get(q) in (None, "")] if route else []
        has = ", ".join(f"{k}={v}" for k, v in p.params.items()) or "nothing yet"
        lines.append(
            f"the assistant asked for {', '.join(needs) or 'details'} to call {p.name} (it has {has})"
        )
    for c in trip.last_calls or []:
        lines.append(f"last search: {c.name} with {', '.join(f'{k}={v}' for k, v in c.params.items())}")
    return "; ".join(lines) or None


def asked_slots(trip: TripState, specs: ToolSpecs) -> list[str]:
    """What the assistant asked for and waits on, as the slot tagger names it ("origin", "start_date"):
    the reply is read with the question."""
    asked: list[str] = []
    for p in trip.pending or []:
        route = specs.routes.get(p.name)
        for q in route.required if route else ():
            tag = traits(route.params.get(q)).tag if route else None
            if tag and p.params.get(q) in (None, "") and tag not in asked:
                asked.append(tag)
    return asked


def asked_place(trip: TripState, specs: ToolSpecs) -> str | None:
    """Where a place named alone goes when a waiting tool asked for one: "origin" when only an origin
    is missing ("Where are you leaving from?" "Vancouver."), else None (the destination, as usual)."""
    missing: set[str] = set()
    for p in trip.pending or []:
        route = specs.routes.get(p.name)
        if route is None:
            continue
        missing |= {
            route.params[q]
            for q in route.required
            if p.params.get(q) in (None, "") and route.params.get(q) in PLACE_SLOTS
        }
    return "origin" if missing and missing <= {SlotKind.ORIGIN, SlotKind.ORIGIN_OR_PLACE} else None
