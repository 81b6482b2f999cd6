"""The composer as the tests ask it: a question, its passages and tools, and what the answer is about
(the places, a comparison, a plan's days, recalled results), turned into the action the dialogue's policy
would have chosen (rag.dialogue.actions), then composed."""

from __future__ import annotations

from collections.abc import Sequence

from rag.chat.composer import Answer, Passage, ToolAnswer, compose
from rag.dialogue.actions import Action, Compare, General, Guide, Plan, Recall, Said, Search
from rag.tools.catalog import ToolCatalogue


def answer(
    question: str,
    passages: Sequence[Passage],
    tools: Sequence[ToolAnswer] = (),
    clarify: str | None = None,
    recalled: Sequence[str] | None = None,
    lang: str = "en",
    *,
    places: Sequence[str] = (),
    compare: bool = False,
    notes: Sequence[str] = (),
    declared: ToolCatalogue,
    days: int | None = None,
) -> Answer:
    said = Said(questions=(clarify,) if clarify else (), notes=tuple(notes))
    action: Action
    if recalled is not None:
        action = Recall("hotel_search", None, (), said=said)
    elif compare:
        action = Compare(tuple(places), said)
    elif days:
        action = Plan(places[0], days, said)
    elif len(places) == 1:
        action = Guide(places[0], said=said)
    elif tools:
        action = Search((), said=said)
    else:
        action = General(said)
    return compose(action, question, passages, list(tools), recalled, lang, declared=declared)
