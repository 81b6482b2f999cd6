"""Which searches a message asks for in its conversation (``requests_for``): an answer to what waits
for details, the message's own tools, or those a follow-up stands for (rag.dialogue.followup). Pure.

Precedence, as people assume it:

1. A tool asked for outright (a command, the LLM, or named by its words: "flights", "a flat") is the
   message's request; an open question about another tool yields to it, and waits.
2. A message that gives what a waiting search lacks ("I'd leave from Vancouver on the 3rd", "Seattle",
   "two rooms") answers the search asked about last; a place said to be the origin answers only a
   search that has one.
3. A search made since that question is what a change ("what about the 12th?") changes.
4. A message that only changes things ("make it the 22nd", "two of us, premium economy", "push the
   return back a day") changes the last searches, before a tool the classifier guessed from its words.
5. Else the tools the router found.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rag.dialogue import followup
from rag.dialogue.plan_types import Request, ToolSpecs
from rag.dialogue.trip import ToolRequest, TripState
from rag.routing.config import ToolRoute
from rag.routing.decision import RouteDecision
from rag.routing.extracted import Slots
from rag.routing.shifts import Shift
from rag.routing.slot_kinds import SlotKind
from rag.routing.slots import FREE_PLACE_SLOTS, PLACE_SLOTS, build_params

# How a tool was chosen when the traveller asked for it outright.
OUTRIGHT = frozenset({"command", "llm"})


@dataclass
class Intents:
    """The searches a message asks for, and what else it does to the conversation."""

    requests: list[Request] = field(default_factory=list)
    answered: set[str] = field(default_factory=set)  # waiting searches this message answered
    followup: bool = False  # it changes the last searches
    shift: Shift | None = None  # how the trip's dates move (a follow-up's "the day after")
    unclear: list[str] = field(default_factory=list)  # a follow-up no search takes: those to name
    unknown_place: bool = False  # a follow-up names a place nobody knows, for a tool that needs one


def requests_for(
    decision: RouteDecision,
    slots: Slots,
    unknown: list[str],
    specs: ToolSpecs,
    trip: TripState,
    named: set[str],
    asked_for: set[str] | frozenset[str] = frozenset(),
) -> Intents:
    """The searches this message asks for. ``named``: the tools it names by their words; ``asked_for``:
    those it asks for by their words ("a flat from the 2nd"), made requests even when the router did not
    choose them."""
    own: list[Request] = [(t.name, dict(t.params), [], t.confidence, t.via) for t in decision.tools]
    own += [(n, dict(decision.partial.get(n, {})), [], 1.0, "conversation") for n in decision.missing]
    own += [
        (n, build_params(specs.routes[n], slots, {}), [], 1.0, "named")
        for n in sorted(asked_for - decision.intended)
        if n in specs.routes
    ]
    named = named | set(asked_for)
    waiting = {p.name: p for p in trip.pending or []}
    outright = [r for r in own if decision.vias.get(r[0]) in OUTRIGHT or r[0] in named]
    # A new request of another kind: the open question waits, and is not what this message answers.
    elsewhere = [r for r in outright if r[0] not in waiting]
    answers: list[Request] = []
    if decision.slots is not None and not elsewhere:
        latest = max((p.turn for p in waiting.values()), default=0)
        for p in waiting.values():
            route = specs.routes.get(p.name)
            if route is None or p.turn < latest or not _takes_roles(route, slots):
                continue
            adapted = followup.adapt(p, route, slots, None, pending=True, missing=_missing(p, route, trip))
            if adapted is not None and not _unknown_in(adapted[0], p.params, route, unknown):
                answers.append((p.name, _with_own(adapted[0], p.name, own, route), [], 1.0, "answer"))
    asked_last = max((p.turn for p in waiting.values()), default=0)
    searched_last = max((c.turn for c in trip.last_calls or []), default=0)
    if answers and searched_last > asked_last and not outright:
        # A search made since the question: "What about the 12th?" changes that search, not the question.
        changed = _follow_up(decision, slots, unknown, specs, trip, trip.last_calls or [], quiet=True)
        if changed.requests:
            return changed
    if answers:
        return Intents([*answers, *(r for r in outright if r[0] not in waiting)], {a[0] for a in answers})
    moved = _moved(slots, specs, trip, {r[0] for r in outright})
    if moved.requests:
        return moved
    if outright:
        return Intents(
            _with_waiting(own, waiting)
        )  # with the router's other tools ("tickets ... and a hotel")
    if own and not _changes_only(slots, decision):
        return Intents(_with_waiting(own, waiting))
    base = trip.pending or trip.last_calls or []
    changed = _follow_up(decision, slots, unknown, specs, trip, base)
    if changed.requests or changed.unclear or changed.unknown_place or not own:
        return changed
    return Intents(_with_waiting(own, waiting))


def _moved(slots: Slots, specs: ToolSpecs, trip: TripState, named: set[str]) -> Intents:
    """A shift of the dates ("push the return back a day", "Verschieb den Rückflug um einen Tag") moves
    the last searches (those of the tools it names, when it names some), whatever else it says."""
    if slots.shift is None:
        return Intents()
    base = [c for c in trip.last_calls or [] if not named or c.name in named]
    requests: list[Request] = []
    for call in base:
        route = specs.routes.get(call.name)
        adapted = followup.adapt(call, route, slots, slots.shift) if route is not None else None
        if adapted is not None:
            requests.append((call.name, adapted[0], adapted[1], 1.0, "followup"))
    return Intents(requests, followup=True, shift=slots.shift) if requests else Intents()


def _with_own(answer: dict[str, Any], name: str, own: list[Request], route: ToolRoute) -> dict[str, Any]:
    """An answer completed by what the message's own request of that tool says: the LLM's reading wins;
    the router's fills only what the answer lacks, and never one place at both ends ("flights in
    Philadelphia" answering "where from?" is not also where to)."""
    said = next((r for r in own if r[0] == name), None)
    if said is None:
        return answer
    if said[4] == "llm":
        return {**answer, **said[1]}
    places = {v for p, v in answer.items() if route.params.get(p) in PLACE_SLOTS}
    extra = {
        p: v
        for p, v in said[1].items()
        if p not in answer and not (route.params.get(p) in PLACE_SLOTS and v in places)
    }
    return {**answer, **extra}


def _with_waiting(requests: list[Request], waiting: dict[str, ToolRequest]) -> list[Request]:
    """The same tool asked for again keeps what its waiting request already has."""
    return [
        (n, {**waiting[n].params, **params}, a, c, v) if n in waiting else (n, params, a, c, v)
        for n, params, a, c, v in requests
    ]


def _changes_only(slots: Slots, decision: RouteDecision) -> bool:
    """Whether the message is shaped as a change of the last search ("Two of us, premium economy.")
    rather than a request of its own: the router guessed its tools from its words alone."""
    guessed = all(decision.vias.get(t.name) in ("semantic", "keyword") for t in decision.tools)
    shaped = followup.shape(slots.text, slots, {}, ())
    return guessed and not decision.missing and shaped is not None and not shaped.other


def _follow_up(
    decision: RouteDecision,
    slots: Slots,
    unknown: list[str],
    specs: ToolSpecs,
    trip: TripState,
    base: list[ToolRequest],
    *,
    quiet: bool = False,
) -> Intents:
    """The calls a follow-up stands for on ``base`` (the waiting or the last requests). ``quiet``: the
    caller has another reading of the message, so nothing is asked when the follow-up does not apply."""
    nouns = specs.declared.nouns()
    shape = followup.shape(slots.text, slots, nouns, unknown) if decision.slots is not None else None
    # "Which museums are free in Lisbon?" and "What's the address of that hotel?" are questions for
    # the guides and the results shown; "Is there any other park?" asks that same search again.
    if (
        shape is not None
        and shape.named
        and followup.asks_a_question(slots.text)
        and not (shape.again and {c.name for c in base} & set(shape.named))
    ):
        return Intents()
    if shape is None or not (shape.named or (shape.changes and base)):
        return Intents()
    if shape.named and shape.other and not base:
        return Intents()  # "best seat on a long flight?": a flight named in a question of its own
    if quiet:
        f = followup.interpret(shape, slots, base, specs.routes)
        return Intents(
            [
                (r.name, r.params, f.assumed.get(r.name, []), 1.0, "followup")
                for r in f.requests
                if not f.shift
            ]
        )
    free = all(
        any(s in FREE_PLACE_SLOTS for s in specs.routes[c.name].params.values())
        for c in base
        if c.name in specs.routes
    )
    if unknown and not shape.named and not (base and free):
        # A place nobody knows, for a tool that needs a known one: which place is the traveller's to say.
        return Intents(followup=True, unknown_place=True)
    f = followup.interpret(shape, slots, base, specs.routes, pending=bool(trip.pending))
    requests = [(r.name, r.params, f.assumed.get(r.name, []), 1.0, "followup") for r in f.requests]
    unclear = [c.name for c in base] if not f.requests else []
    return Intents(requests, followup=True, shift=f.shift, unclear=unclear)


def _takes_roles(route: ToolRoute, slots: Slots) -> bool:
    """Whether a waiting search can take the message's places: a place said to be where the traveller
    leaves from ("From Boston") answers only a search with an origin."""
    if not slots.places or slots.destination is not None:
        return True
    origin_only = all(p.role == "origin" for p in slots.places)
    return not origin_only or any(
        s in (SlotKind.ORIGIN, SlotKind.ORIGIN_OR_PLACE) for s in route.params.values()
    )


def _missing(request: ToolRequest, route: ToolRoute, trip: TripState) -> list[str]:
    """What a waiting request still lacks: its required parameters, and those its trip's kind needs."""
    flags = [trip.trip_kind] if trip.trip_kind else []
    needed = [*route.required, *(p for f in flags for p in route.required_if.get(f, []))]
    return [p for p in dict.fromkeys(needed) if request.params.get(p) in (None, "")]


def _unknown_in(params: dict[str, Any], before: dict[str, Any], route: ToolRoute, unknown: list[str]) -> bool:
    """Whether an answer fills a place parameter that needs a known place while the message names a
    place nobody knows (then the traveller is asked which place, not answered with a guess)."""
    return bool(unknown) and any(
        route.params.get(p) in PLACE_SLOTS - FREE_PLACE_SLOTS and params.get(p) != before.get(p)
        for p in params
    )
