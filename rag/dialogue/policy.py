"""The one place that decides what a message does: ``decide`` takes the trip and what was understood of
the message and returns one action (rag.dialogue.actions) with the events that change the trip
(rag.dialogue.events). Pure. The chat, the WebSocket and /v1/route all call it.

The rules, in order (each decision's ``why`` names the one that chose it):

1. ``command``: a slash command searches, whatever else the message says.
2. ``social``: thanks, a goodbye or a hello, with nothing else asked, is answered in kind; an "okay"
   while a search waits for details asks for them again; a "yes" to nothing asked says so.
3. ``recall``: a question about results already shown ("which was cheapest?", "the first one you
   showed", "what did the flights cost again?") reads back the latest search of the tool it names (else
   the latest search), if there was one and the message names no other place or days.
4. ``plan``: a day-by-day plan ("plan 2 days there", "3 days in Berlin, day by day") of the place it
   names, else the trip's; never a booking search.
5. ``guide``: a question on a guide's topic ("which part of town is quiet to stay in?", "how do I get
   there from the airport?") with no days, no outright request and no booking tool named is answered
   from the guide of the place it names, else the trip's; never a booking search. A request for what a
   search finds ("can you find me a museum in London?", "are there any attractions?") is that search.
   A guide question naming no place in a conversation without one is answered from whichever guide
   says it ("Can I visit the Vatican Museums for free?"), no city asked for.
6. ``search`` / ``ask``: the searches the message asks for, answers or changes (rag.dialogue.booking):
   called when complete, else asked about. An open question yields to a new request of another kind.
7. ``guide`` again for a message that asks no search: about the place it names or the trip's; ``compare``
   for places weighed against each other; ``no_guide`` for a place without a guide (with things to
   do there looked up, when that is what it asks); ``general`` about no place.

A new destination replaces the trip's place and what depended on it; a guide question without a place
means the trip's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from connectors.places import PlaceMention, fold
from rag.dialogue import phrasing
from rag.dialogue.actions import (
    Action,
    Ask,
    Compare,
    General,
    Guide,
    NoGuide,
    Plan,
    PlannedCall,
    Recall,
    Reply,
    Said,
    Search,
)
from rag.dialogue.booking import Booking, book
from rag.dialogue.events import Event, TripSet, TurnTaken, latest_search, reduce
from rag.dialogue.plan_types import ToolSpecs
from rag.dialogue.settle import Check
from rag.dialogue.told import told
from rag.dialogue.trip import ToolRequest, TripState
from rag.dialogue.understand import Understood, recalled_tool
from rag.ingest.documents import norm
from rag.routing.slot_kinds import PLACE_SLOTS, SlotKind

# Guide topics a tool answers better than a guide when its days are near (a forecast): such a
# question goes to the searches, and to the guide's climate when the days are beyond the forecast.
_TOOL_TOPICS = frozenset({"weather"})
# A plan asked for without its days ("plan it for me") covers the trip's, else this many; at most a week.
DEFAULT_PLAN_DAYS = 3
MOST_PLAN_DAYS = 7
# Topics that make "the cheapest ..." a guide question ("the cheapest way from the airport", "the
# cheapest time to go") rather than one about the results shown.
_NOT_RECALL = frozenset({"transport", "nightlife", "when"})


@dataclass(frozen=True, slots=True)
class Known:
    """What the policy is told besides the trip and the message: the tools, the traveller's date, the
    places that have a guide (as ``norm`` names them), each tool's own check of its parameters, and the
    guided city next to a place without a guide."""

    specs: ToolSpecs
    today: dt.date
    guides: frozenset[str] = frozenset()
    check: Check | None = None
    near: Mapping[str, str] = field(default_factory=dict)  # ``norm`` place -> a guided city next to it


@dataclass(frozen=True, slots=True)
class Decision:
    action: Action
    events: tuple[Event, ...]

    @property
    def why(self) -> str:
        return self.action.said.why


def decide(state: TripState, u: Understood, known: Known) -> Decision:
    """The one action for message ``u`` in the conversation whose trip is ``state``."""
    events: list[Event] = [TurnTaken(), TripSet("lang", u.lang)]
    now = reduce(state, events)
    lang = u.lang
    if u.commands:
        return _searched(
            book(u.decision, now, known.specs, known.today, lang, check=known.check), events, "command"
        )
    if u.social in ("thanks", "bye", "hello"):
        return Decision(Reply(u.social, Said(why="social")), tuple(events))
    if u.social == "yes" and now.pending:
        # "Okay." while a search waits for details: what it still needs, asked again.
        waiting = {p.name for p in now.pending}
        again = book(u.decision, now, known.specs, known.today, lang, named=waiting, asked_for=waiting)
        if not again.empty:
            return _searched(again, events, "social: asked again")
    if u.social in ("yes", "no"):
        # "yes" to nothing asked; an "ok" after an answer, or a "no", is taken as said.
        first = u.social == "yes" and not (now.searches or now.pending or (now.turn or 0) > 1)
        return Decision(Reply("nothing_pending" if first else "no", Said(why="social")), tuple(events))
    recall = _recall(now, u, known)
    if recall is not None:
        return Decision(recall, tuple(events))
    place = _place(u, now)
    moved = _destination(now, u)  # the message's own place, as the trip's new destination
    # A plan is asked of a place, not of flights ("where can I fly for a weekend?").
    wants_plan = (u.plan_cue or u.topics or u.slots.places) and not set(u.nouns) & _booking(known)
    days = u.days or (_trip_days(now) if u.plan_asked else None)
    if (
        days
        and (u.days is None or wants_plan)
        and u.topics[:1] != ("weather",)
        and not _books(u, known)
        and not _answers_booking(u, now, known)
        and not (u.compare and len(_places(u)) >= 2)  # "Lisbon or Porto for a weekend?"
    ):
        city = place or now.destination_name
        if city:
            return _about(city, Plan(city, days, Said(why="plan")), known, u, [*events, *moved])
    guide_question = _guide_question(u, now, known)
    if guide_question and not (place or now.destination_name) and not (u.find or u.request):
        # "Can I visit the Vatican Museums for free?": whichever guide says it, no city asked for.
        return Decision(General(Said(why="guide question: no place")), tuple(events))
    if guide_question and (place or now.destination_name):
        city = place or now.destination_name or ""
        if "daytrips" in u.topics:
            # "Is Sintra doable as a day trip (from Lisbon)?": the guide of the city it is made from.
            # Only from a city next to it (or next to a place no catalogue knows): Porto is no day trip
            # in Lisbon's guide.
            bases = [p.place.city_name for p in u.slots.places if p.role == "origin"]
            bases += [now.destination_name] if now.destination_name else []
            near = known.near.get(norm(city))
            unplaced = city in u.decision.unknown_places
            city = next(
                (b for b in bases if norm(b) in known.guides and (norm(b) == norm(near or "") or unplaced)),
                city,
            )
        if u.compare and len(_places(u)) >= 2:
            return Decision(Compare(tuple(_places(u)), Said(why="compare")), tuple(events))
        return _about(
            city, Guide(city, u.topics, said=Said(why="guide question")), known, u, [*events, *moved]
        )
    booked = book(
        u.decision,
        now,
        known.specs,
        known.today,
        lang,
        named=set(u.nouns) | u.decision.keywords,
        asked_for=_asked_for(u, known),
        check=known.check,
    )
    if not booked.empty:
        return _searched(booked, events, "search")
    events += [e for e in booked.events if isinstance(e, TripSet)] or moved
    if u.compare and len(_places(u)) >= 2:
        return Decision(Compare(tuple(_places(u)), Said(why="compare")), tuple(events))
    city = place or now.destination_name
    if city and (u.topics or u.question or place):
        return _about(city, Guide(city, u.topics, said=Said(why="about a place")), known, u, events)
    return Decision(General(Said(notes=tuple(booked.notes), why="general")), tuple(events))


def _trip_days(trip: TripState) -> int:
    """The days of a plan asked for without them ("plan it for me"): the trip's, else three."""
    if trip.start_date is not None and trip.end_date is not None:
        return max(1, min(MOST_PLAN_DAYS, (trip.end_date - trip.start_date).days + 1))
    if trip.nights:
        return max(1, min(MOST_PLAN_DAYS, trip.nights + 1))
    return DEFAULT_PLAN_DAYS


def _searched(booked: Booking, events: list[Event], why: str) -> Decision:
    """The searches of a message as its action: calls made, or only questions asked."""
    said = Said(tuple(booked.questions), tuple(booked.notes), booked.assumed, why)
    everything = (*events, *booked.events)
    if booked.calls:
        action: Action = Search(tuple(booked.calls), booked.waiting, booked.followup, booked.climate, said)
    elif booked.climate is not None:
        # A forecast beyond its horizon: the guides' climate for that month answers instead.
        city = booked.climate.place
        action = Guide(city, ("weather",), booked.climate, replace(said, why="climate"))
    else:
        action = Ask(booked.waiting, booked.followup, booked.climate, replace(said, why=f"{why}: ask"))
    return Decision(action, everything)


def _about(city: str, action: Guide | Plan, known: Known, u: Understood, events: list[Event]) -> Decision:
    """A guide answer or a plan for ``city``, or, without its guide, that said and what the tools offer."""
    if norm(city) in known.guides:
        return Decision(action, tuple(events))
    topics = () if isinstance(action, Plan) or u.about_place else u.topics[:1]
    # Things to do looked up only where the tools can find the place (not "my rock party"), and not for
    # whether it is worth a visit.
    # Looked up only for what is asked ("anything for kids in Dallas?", not "add Dallas to my playlist").
    asked = u.question or u.find or u.some or u.request or phrasing.changes_asked(u.text)
    offer = _things_to_do(city, topics, known) if asked and _named_as_itself(city, u) else ()
    near = known.near.get(norm(city))
    return Decision(NoGuide(city, offer, near, Said(why=f"{action.said.why}: no guide")), tuple(events))


def _named_as_itself(city: str, u: Understood) -> bool:
    """Whether the message names ``city`` as a place the tools can find: not a name no catalogue knows
    ("my rock party"), nor a lower-case word that only resembles one ("add ian gillan": Gjilan)."""
    if city in u.decision.unknown_places:
        return False
    said = [m.text for m in u.slots.places if m.place.city_name == city]
    return not said or any(t[:1].isupper() or fold(t) in fold(city).split() + [fold(city)] for t in said)


def _things_to_do(city: str, topics: tuple[str, ...], known: Known) -> tuple[PlannedCall, ...]:
    """A search that answers ``topics`` about ``city`` (things to do there), by a tool declared to
    answer them that needs nothing but a place."""
    for name, route in known.specs.routes.items():
        spec = known.specs.declared.get(name)
        if spec is None or spec.books or not set(topics) & spec.topics:
            continue
        param = next((p for p, s in route.params.items() if s in ("place", "place_name")), None)
        if param is not None and set(route.required) <= {param}:
            return (PlannedCall(name, {param: city}, [], 1.0, "policy"),)
    return ()


def _recall(now: TripState, u: Understood, known: Known) -> Recall | None:
    """A question about results already shown: the latest search of the tool it names (else the latest
    priced one for "the cheapest"), or, when it names places or days that search was not about, the
    results of any search about them ("which hotels did you find in Lisbon?")."""
    found_before = phrasing.found_before(u.text)
    if u.books:
        return None  # "reserve the hotel you found": a booking search, with the days it needs
    if not u.recall or u.days or (set(u.topics) & _NOT_RECALL and not found_before):
        return None  # "the cheapest way from the airport": a guide question about getting around
    if u.dated and not found_before:
        return None  # "the cheapest flights on May 5": a new search
    named = recalled_tool(u.text, known.specs.declared)
    if named is None and u.pick in ("cheapest", "dearest"):
        # "Which was cheapest?": the latest search whose results have a price.
        priced = [s for s in now.searches or [] if _priced(s.name, known)]
        made = max(priced, key=lambda s: s.turn, default=None)
    else:
        made = latest_search(now, named)
    # Places written as names ("the Hamburg hotels"), not words that are also places ("riverside").
    places = [p for p in u.slots.places if p.text[:1].isupper()]
    about_it = made is not None and all(_searched_at(made, p, known) for p in places)
    if made is not None and about_it and not u.dated:
        return Recall(made.name, u.pick, tuple(made.shown or ()), dict(made.params), said=Said(why="recall"))
    if found_before and (named or made or places or u.dated):
        # "What hotels did you find in Lisbon?", "the flights for next Friday", or nothing found yet.
        tool = named or (made.name if made is not None else None)
        return Recall(tool, u.pick, (), {}, named=True, said=Said(why="recall: the places and days asked"))
    return None


def _priced(tool: str, known: Known) -> bool:
    spec = known.specs.declared.get(tool)
    return spec is not None and "price" in spec.result.model_fields


def _asked_for(u: Understood, known: Known) -> set[str]:
    """Booking tools the message asks for by their words ("a flat from the 2nd", "a hotel for those
    dates", "Hotel for the whole stay, please"), whether or not the router chose them."""
    named = (set(u.nouns) | u.decision.keywords) & _booking(known)
    if _asks_search(u, known):
        named |= {n for n in u.nouns if not known.specs.declared[n].books}  # "find me some activities"
    if u.question and not (u.dated or u.trip_days) and not _asks_search(u, known):
        return set()  # "is it better to book a hotel directly?": a question about booking, no search
    if u.decision.intended & _booking(known):
        return set()  # the router chose a booking search already ("cheap destinations flying out of X")
    return named if (u.request or u.dated or u.trip_days or u.short or _asks_search(u, known)) else set()


def _searched_at(made: ToolRequest, mention: PlaceMention, known: Known) -> bool:
    """Whether a search was about a place the message names, at the end it names ("flights from
    Lisbon": its origin; "the Lisbon hotels": its place)."""
    route = known.specs.routes.get(made.name)
    codes = {mention.place.code, mention.place.city_code}
    ends = [
        p
        for p, kind in (route.params.items() if route else ())
        if kind in PLACE_SLOTS
        and (mention.role != "origin") != (kind in (SlotKind.ORIGIN, SlotKind.ORIGIN_OR_PLACE))
    ]
    said = [str(made.params.get(p, "")) for p in ends]
    return any(v.upper() in codes or norm(v) == norm(mention.place.city_name) for v in said)


def _books(u: Understood, known: Known) -> bool:
    """Whether the message asks outright for a booking search (then it is no plan or guide question)."""
    named = (set(u.nouns) | u.decision.keywords) & _booking(known)
    return bool(named) and (u.request or u.dated or u.trip_days)


def _answers_booking(u: Understood, now: TripState, known: Known) -> bool:
    """Whether the message's days are for a booking search ("reserve it for four days from the 7th", "1
    day starting the 2nd" while a hotel waits for its dates), not for a plan."""
    if u.plan_asked or u.plan_cue and not u.books:
        return False
    waiting = any(p.name in _booking(known) for p in now.pending or [])
    return u.books or waiting


def _guide_question(u: Understood, now: TripState, known: Known) -> bool:
    """A question on a guide's topic, or on what a place is like, that asks for no booking search: no
    days, and no booking tool named by its nouns ("flights", "a hotel", "fly"). A question whose first
    topic a tool answers (the weather) goes to the searches, and so do a request for what a search finds
    ("can you find me museums in London?", "are there any attractions?") and one for other results of
    the last search ("Anything else? Another museum?")."""
    if not (u.topics or u.about_place) or u.dated or u.trip_days:
        return False
    if _asks_search(u, known) or (u.again and u.short and now.searches):
        return False
    if u.topics and u.topics[0] in _TOOL_TOPICS and ("when" not in u.topics or phrasing.foretold(u.text)):
        return False  # "what's the weather like there?" is the forecast's; "best month for dry weather", the guide's
    # A tool the router chose that the message names, and that no guide answers ("the airport code
    # for Lisbon", "which airports serve London"): the message is its search.
    specs = known.specs.declared
    named = set(u.nouns) & u.decision.intended
    getting_there = phrasing.getting_there(u.text)  # "how do I get from the airport to the centre?"
    if any(n in specs and not specs[n].books and not specs[n].topics for n in named) and not getting_there:
        return False
    if not (u.question or u.compare):
        return False
    return not set(u.nouns) & _booking(known)


def _asks_search(u: Understood, known: Known) -> bool:
    """Whether the message asks for what a search beside the guides finds, by that tool's nouns, outright
    or as "are there any ...": the activities for "can you find me a museum?"."""
    specs = known.specs.declared
    named = [n for n in u.nouns if n in specs and not specs[n].books and specs[n].topics]
    return bool(named) and (u.find or u.some)


def _booking(known: Known) -> set[str]:
    return {name for name, spec in known.specs.declared.items() if spec.books}


def _places(u: Understood) -> list[str]:
    names = [p.place.city_name for p in u.slots.places if p.place.city_name]
    return list(dict.fromkeys([*names, *u.decision.unknown_places]))


def _place(u: Understood, now: TripState) -> str | None:
    """The place the message asks about: the one it names (not where it leaves from, unless it names
    only that), a name no catalogue knows, else None (the trip's, said by the caller)."""
    named = [p for p in u.slots.places if p.role != "origin"] or list(u.slots.places)
    if named:
        return (
            named[-1].place.city_name if u.slots.destination is None else u.slots.destination.place.city_name
        )
    return u.decision.unknown_places[0] if u.decision.unknown_places else None


def _destination(now: TripState, u: Understood) -> list[Event]:
    """A place the message names as where the trip goes now ("Then I want to go on to New York")."""
    return [e for e in told(now, u.slots) if isinstance(e, TripSet) and e.field.startswith("destination")]
