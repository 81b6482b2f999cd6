"""What was understood of one message, as the policy (rag.dialogue.policy) reads it. Pure.

The router's decision (its tools, what they lack, the message's slots) and the chat's reading of the
question (the guide topics it asks about, the days of a plan, places compared: rag.chat reads them with
the guides' vocabulary) are gathered with what this module reads itself (rag.dialogue.phrasing): thanks
or a goodbye, a question about results already shown and which one it picks, a question of its own,
an outright request, and the tools the message names by their nouns ("a flat", "the flights").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from connectors.places import fold
from rag.dialogue import phrasing
from rag.dialogue.phrasing import Pick, Social
from rag.routing.decision import RouteDecision
from rag.routing.extracted import Slots
from rag.tools.catalog import ToolCatalogue

# Words of a short message, which names what it wants without asking outright.
SHORT_WORDS = 7


@dataclass(frozen=True, slots=True)
class Understood:
    decision: RouteDecision
    lang: str = "en"
    topics: tuple[str, ...] = ()  # guide topics the question asks about ("stay", "transport")
    days: int | None = None  # a day-by-day plan asked for, of so many days
    compare: bool = False  # places weighed against each other ("Prague or Budapest?")
    social: Social | None = None  # the whole message is thanks, a goodbye, a hello, "yes" or "no"
    recall: bool = False  # it asks about results already shown
    pick: Pick | None = None  # which of them: the cheapest, the n-th
    question: bool = False  # a question of its own
    request: bool = False  # an outright ask to find or book something
    nouns: tuple[str, ...] = ()  # tools the message names by a noun ("flights", "un piso")
    commands: bool = False  # a slash command decided the tools
    trip_days: bool = False  # it means the trip's days without giving them ("for those dates")
    plan_cue: bool = False  # it asks for a plan or what to do with its days
    plan_asked: bool = False  # it asks for a day-by-day plan outright, with or without its days
    about_place: bool = False  # it asks what a place is like, as a whole
    books: bool = False  # it asks to book or reserve ("reserve the hotel you found")
    again: bool = False  # it asks for other results of the same search ("anything else?")
    some: bool = False  # it asks what there is ("are there any museums?")
    find: bool = False  # it asks for things to be found or listed ("can you find me a museum?")

    @property
    def slots(self) -> Slots:
        return self.decision.slots or Slots()

    @property
    def text(self) -> str:
        return self.slots.text

    @property
    def dated(self) -> bool:
        """Whether the message gives days, a stay's length or a shift of the dates."""
        s = self.slots
        return bool(s.dates or s.nights is not None or getattr(s, "shift", None) is not None)

    @property
    def short(self) -> bool:
        """A message of a few words ("Two rooms.", "Hotel for the whole stay, please.")."""
        return len(self.text.split()) <= SHORT_WORDS


def understand(
    decision: RouteDecision,
    tools: ToolCatalogue,
    *,
    topics: tuple[str, ...] = (),
    days: int | None = None,
    compare: bool = False,
) -> Understood:
    """``decision``: the router's, for the message; ``topics``, ``days``, ``compare``: the chat's reading
    of the question (rag.chat.selection, rag.chat.sections)."""
    slots = decision.slots or Slots()
    text = slots.text
    return Understood(
        decision=decision,
        lang=decision.lang,
        topics=topics,
        days=days,
        compare=compare,
        social=phrasing.social(text),
        recall=phrasing.recall_cue(text),
        pick=phrasing.pick(text),
        question=phrasing.is_question(text),
        request=phrasing.is_request(text),
        nouns=named_tools(text, tools, decision.lang),
        commands=any(v == "command" for v in decision.vias.values()),
        trip_days=phrasing.trip_days(text),
        plan_cue=phrasing.plan_cue(text),
        plan_asked=phrasing.plan_asked(text),
        about_place=phrasing.about_place(text),
        books=phrasing.books(text),
        again=phrasing.asks_again(text),
        some=phrasing.asks_for_some(text),
        find=phrasing.asks_to_find(text),
    )


_TOKEN = re.compile(r"[^\W_]+")
# Rooms that are no lodging ("book me a meeting room") and codes that are no airport's ("the dress code for temples").
_OTHER_THINGS = re.compile(
    r"\b(?:meeting|living|conference|dining|class|chat|escape|bath|board|waiting|storage|laundry|"
    r"changing|dressing|my|your|his|her|their)\s+rooms?\b"
    r"|\b(?:dress|promo|promotional|discount|voucher|zip|postal|post|area|country|source|qr)\s+codes?\b"
)


def named_tools(text: str, tools: ToolCatalogue, lang: str | None = None) -> tuple[str, ...]:
    """The tools whose nouns the message holds, in English and ``lang`` (the message's; every declared
    language when None): "vol" is a flight in French, a volume in English."""
    folded = _OTHER_THINGS.sub(" ", fold(text))
    words = set(re.findall(r"[^\W\d_]+(?:&[^\W\d_]+)?", folded))
    spaced = " " + " ".join(_TOKEN.findall(folded)) + " "
    return tuple(
        name
        for name, nouns, phrases in _nouns(tools, lang)
        if words & nouns or any(f" {n} " in spaced for n in phrases)
    )


@lru_cache(maxsize=64)
def _nouns(tools: ToolCatalogue, lang: str | None) -> tuple[tuple[str, frozenset[str], tuple[str, ...]], ...]:
    """Each tool's nouns in English and ``lang`` (every language when None), folded, once per catalogue
    and language: (tool, nouns, those of several words)."""
    out = []
    for spec in tools.values():
        nouns = {
            fold(n) for code, ns in spec.nouns.items() if lang is None or code in ("en", lang) for n in ns
        }
        out.append((spec.name, frozenset(nouns), tuple(n for n in nouns if " " in n)))
    return tuple(out)


def recalled_tool(text: str, tools: ToolCatalogue) -> str | None:
    """The tool whose results a recall names ("the flights", "those hotels", "la riad"), if one."""
    named = [s.name for s in tools.values() if re.search(s.recall, fold(text), re.I)]
    return named[0] if len(named) == 1 else None
