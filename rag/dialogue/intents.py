"""Which tools a message asks for in its conversation (``requests_for``): an answer to what waits for
details, the message's own tools, or those a follow-up stands for (rag.dialogue.followup). Pure."""

from __future__ import annotations

from typing import Any

from rag.dialogue import followup
from rag.dialogue.plan_types import Plan, Request, ToolSpecs
from rag.dialogue.questions import unclear
from rag.dialogue.trip import ToolRequest, TripState, shift_trip
from rag.i18n import message
from rag.routing.config import ToolRoute
from rag.routing.decision import RouteDecision
from rag.routing.extracted import Slots
from rag.routing.slots import FREE_PLACE_SLOTS, PLACE_SLOTS


def requests_for(
    decision: RouteDecision, slots: Slots, unknown: list[str], specs: ToolSpecs, lang: str, out: Plan
) -> tuple[list[Request], set[str]]:
    """The tools this message asks for, and the waiting ones it answered.

    A message that gives what a waiting tool lacks ("I'd leave from Vancouver on the 3rd", "Seattle",
    "two rooms") answers it, whatever else it says; a tool the router picked from its words alone (not
    a command or a keyword) is then the answer misread, and is left out. Otherwise the message's own
    tools, else those a follow-up stands for (then ``out`` is marked a follow-up, its trip shifted, or
    a question asked when the follow-up does not apply)."""
    own: list[Request] = [(t.name, dict(t.params), [], t.confidence, t.via) for t in decision.tools]
    own += [(n, dict(decision.partial.get(n, {})), [], 1.0, "conversation") for n in decision.missing]
    waiting = {p.name: p for p in out.trip.pending or []}
    # A tool asked for outright (a command, the LLM, or the classifier sure of it) takes the message's
    # values; one found from a keyword alone ("anywhere in New York" is no inspiration search) yields to
    # an answer to what the assistant asked, as a tool scored lower does.
    named = [r for r in own if decision.vias.get(r[0]) in ("command", "llm", "semantic")]
    answers: list[Request] = []
    if decision.slots is not None and not named:
        for p in waiting.values():
            route = specs.routes.get(p.name)
            if route is None:
                continue
            adapted = followup.adapt(
                p, route, slots, None, pending=True, missing=_missing(p, route, out.trip)
            )
            if adapted is not None and not _unknown_in(adapted[0], p.params, route, unknown):
                answers.append((p.name, adapted[0], [], 1.0, "answer"))
    asked_last = max((p.turn for p in waiting.values()), default=0)
    searched_last = max((c.turn for c in out.trip.last_calls or []), default=0)
    if answers and searched_last > asked_last and not own:
        # A search made since the question: "What about the 12th?" changes that search, not the question.
        changed = _follow_up(
            decision, slots, unknown, specs, lang, out, out.trip.last_calls or [], quiet=True
        )
        if changed:
            return changed, set()
    if answers:
        return answers, {a[0] for a in answers}
    if own:
        # The same tool asked for again keeps what its waiting request already has.
        return [
            (n, {**waiting[n].params, **params}, a, c, v) if n in waiting else (n, params, a, c, v)
            for n, params, a, c, v in own
        ], set()
    return _follow_up(
        decision, slots, unknown, specs, lang, out, out.trip.pending or out.trip.last_calls or []
    ), set()


def _follow_up(
    decision: RouteDecision,
    slots: Slots,
    unknown: list[str],
    specs: ToolSpecs,
    lang: str,
    out: Plan,
    base: list[ToolRequest],
    *,
    quiet: bool = False,
) -> list[Request]:
    """The calls a follow-up stands for on ``base`` (the waiting or the last requests), with ``out``
    marked a follow-up, its trip shifted, or a question asked when it does not apply (none when
    ``quiet``: the caller has another reading of the message)."""
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
        return []
    if shape is None or not (shape.named or (shape.changes and base)):
        return []
    if quiet:
        f = followup.interpret(shape, slots, base, specs.routes)
        return [
            (r.name, r.params, f.assumed.get(r.name, []), 1.0, "followup") for r in f.requests if not f.shift
        ]
    out.followup = True
    free = all(
        any(s in FREE_PLACE_SLOTS for s in specs.routes[c.name].params.values())
        for c in base
        if c.name in specs.routes
    )
    if unknown and not shape.named and not (base and free):
        # A place nobody knows, for a tool that needs a known one: which place is the traveller's to say.
        out.questions.append(message(lang, "unknown_place", name=unknown[0]))
        return []
    f = followup.interpret(shape, slots, base, specs.routes, pending=bool(out.trip.pending))
    if f.shift:
        out.trip = shift_trip(out.trip, f.shift)
    if not f.requests:
        out.questions.append(unclear(lang, [c.name for c in base], specs.declared))
    return [(r.name, r.params, f.assumed.get(r.name, []), 1.0, "followup") for r in f.requests]


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
