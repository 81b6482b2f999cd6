"""What the plan says back: one question per tool waiting (``questions``), the follow-up that
cannot apply (``unclear``), what the conversation filled in (``assumed_note``), and a day as said in
a question (``ordinal``). Pure."""

from __future__ import annotations

from collections.abc import Mapping

from rag.dialogue.actions import PlannedCall
from rag.dialogue.plan_types import ToolSpecs
from rag.dialogue.trip import TripState
from rag.i18n import join_list, message
from rag.routing.clarify import ask_phrase
from rag.routing.config import ToolRoute
from rag.routing.slot_kinds import START_SLOTS, SlotKind
from rag.routing.slots import DATE_SLOTS, PLACE_SLOTS
from rag.tools.catalog import ToolCatalogue


def ordinal(day: int, lang: str) -> str:
    """ "5th" in English; the number itself in our other languages, whose phrase carries the rest."""
    if lang != "en":
        return str(day)
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def questions(
    waiting: Mapping[str, list[str]],
    specs: ToolSpecs,
    unknown: list[str],
    place_question: str,
    unread: list[str],
    passed: Mapping[str, str],
    lang: str,
) -> list[str]:
    """One question per tool waiting: an unknown place named first, then what is missing."""
    routes, declared = specs.routes, specs.declared
    questions: list[str] = []
    place_asked = False
    for name, gaps in waiting.items():
        route = routes[name]
        asks = list(gaps)
        if unknown and any(route.params.get(p) in PLACE_SLOTS for p in gaps):
            if not place_asked:
                questions.append(place_question)
                place_asked = True
            asks = [p for p in asks if route.params.get(p) not in PLACE_SLOTS]
        if name in passed:
            questions.append(message(lang, "past_date", date=passed[name]))
        elif unread and any(route.params.get(p) in DATE_SLOTS for p in asks):
            questions.append(message(lang, "unread_date", date=unread[0]))
        if asks:
            phrases = [ask_phrase(lang, declared.get(name), p, route) for p in asks]
            questions.append(
                message(lang, "clarify_tool", what=declared.label(name, lang), asks=join_list(lang, phrases))
            )
    return questions


def unclear(lang: str, tools: list[str], declared: ToolCatalogue) -> str:
    labels = join_list(lang, [declared.label(t, lang) for t in dict.fromkeys(tools)])
    return message(lang, "followup_unclear", tools=labels)


def assumed_note(
    calls: list[PlannedCall], trip: TripState, routes: Mapping[str, ToolRoute], lang: str
) -> str | None:
    """ "I assumed Lisbon, 2027-05-02 → 2027-05-05 from our conversation." for what the trip filled.
    Each parameter is said by its slot: places by name, a start date with its end, counts with their
    parameter's name ("2 adults")."""
    names = {trip.destination: trip.destination_name, trip.origin: trip.origin_name}
    items: list[str] = []
    for call in calls:
        slots = routes[call.name].params if call.name in routes else {}
        assumed = set(call.assumed)
        starts = [p for p in call.assumed if slots.get(p) in START_SLOTS]
        ends = [p for p in slots if slots[p] == SlotKind.END_DATE and p in assumed]
        for p in call.assumed:
            value = call.params.get(p)
            if value is None or p in ends:
                continue
            if p in starts:
                end = next((call.params[e] for e in ends), None)
                item = f"{value} → {end}" if end else str(value)
            elif slots.get(p) in PLACE_SLOTS:
                item = str(names.get(value) or value)
            elif isinstance(value, bool):
                item = p.replace("_", " ")
            elif isinstance(value, int):
                item = f"{value} {p.replace('_', ' ')}"  # "2 adults", "3 nights"
            else:
                item = f"{p.replace('_', ' ')} {value}"
            if item not in items:
                items.append(item)
        for e in ends:
            if not starts and call.params.get(e) is not None and str(call.params[e]) not in items:
                items.append(str(call.params[e]))
    return message(lang, "assumed", items=join_list(lang, items)) if items else None
