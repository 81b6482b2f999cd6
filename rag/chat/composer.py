"""The extractive composer: the answer to the action the dialogue's policy chose, with no LLM. Pure.

One dispatcher over small answerers: a reply in kind; the results of the searches made (rag.chat.results)
or results shown before; a guide's section or a day-by-day plan, places compared, a place without a
guide, or a question about no one place (rag.chat.knowledge). Each answers the question rather than
pasting passages: a lead that names the place and what was asked, then the few guide sentences that
answer it, the tool results as a cited list, notices for sandbox and indicative data, the questions the
assistant asks, and one Sources line. When the guides have nothing relevant it says so and offers what
it can do instead of quoting loosely related text.

Citations: each cited item (a guide section, a tool result, an earlier result) gets one number, 1..N
in order of first appearance in the text; ``Answer.citations[k]`` is [k+1], and the Sources line lists
exactly those. Fixed phrases come from the phrases (rag/i18n/messages.yaml) in ``lang``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.chat.knowledge import knowledge_answer, no_guide_answer
from rag.chat.quoting import (
    Answer,
    Citation,
    Passage,
    Ref,
    ToolAnswer,
    chunks,
    passage_from_payload,
)
from rag.chat.results import recalled_answer, results_answer
from rag.chat.selection import is_comparison
from rag.chat.sentences import escape_markdown, markdown_to_text
from rag.dialogue.actions import Action, Ask, Compare, Guide, NoGuide, Plan, Recall, Reply, Search
from rag.i18n import message
from rag.tools.catalog import ToolCatalogue

__all__ = [
    "Answer",
    "Citation",
    "Passage",
    "Ref",
    "ToolAnswer",
    "chunks",
    "compose",
    "escape_markdown",
    "is_comparison",
    "markdown_to_text",
    "passage_from_payload",
]


def compose(
    action: Action,
    question: str,
    passages: Sequence[Passage],
    tools: Sequence[ToolAnswer],
    recalled: Sequence[str] | None,
    lang: str = "en",
    *,
    declared: ToolCatalogue,
) -> Answer:
    """The answer to ``action`` (rag.dialogue.policy's decision) in ``lang``: its fixed phrases from
    the catalogue; quotes and results stay in the language they were written in. ``passages``: what
    the guides say; ``tools``: the calls made; ``recalled``: earlier results asked about again;
    ``declared``: the tools' declarations (their labels, and which to offer)."""
    clarify = " ".join(action.said.questions) or None
    notes = action.said.notes
    if isinstance(action, Reply):
        key = action.social if action.social == "nothing_pending" else f"reply_{action.social}"
        return Answer(message(lang, key), [])
    if isinstance(action, Recall):
        return recalled_answer(lang, action, recalled or [], declared, clarify)
    if isinstance(action, Search | Ask):
        return results_answer(lang, tools, notes, clarify, declared)
    if isinstance(action, NoGuide):
        return no_guide_answer(lang, question, action.city, passages, tools, notes, clarify, declared)
    places: list[str] = []
    days = None
    if isinstance(action, Guide | Plan):
        places = [action.city]
        days = action.days if isinstance(action, Plan) else None
    elif isinstance(action, Compare):
        places = list(action.places)
    return knowledge_answer(
        question,
        passages,
        tools,
        clarify,
        lang,
        places=places,
        compare=isinstance(action, Compare),
        notes=notes,
        declared=declared,
        days=days,
        fallback=isinstance(action, Guide),
        topics=action.topics if isinstance(action, Guide) else (),
    )
