"""The extractive composer: an answer from passages and tool results, with no LLM. Pure.

It answers the question rather than pasting passages: a lead that names the place and what was asked,
then the few guide sentences that answer it (rag.chat.selection picks them; Markdown stripped), the
tool results as a cited list, notices for sandbox and indicative data, a clarifying question when a
tool waits for details, and one Sources line. "A or B?" gets one block per place. When the guides
have nothing relevant it says so and offers what it can do instead of quoting loosely related text.

Citations: each cited item (a guide section, a tool result, an earlier result) gets one number, 1..N
in order of first appearance in the text; ``Answer.citations[k]`` is [k+1], and the Sources line lists
exactly those. Fixed phrases come from the phrases (rag/i18n/messages.yaml) in ``lang``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.chat.citations import live_label
from rag.chat.guided import from_guide
from rag.chat.quoting import (
    Answer,
    Citation,
    Citations,
    Passage,
    Ref,
    ToolAnswer,
    chunks,
    markdown_blocks,
    passage_from_payload,
    passage_label,
)
from rag.chat.selection import Candidate, Query, candidates, is_comparison, overview, read_question, select
from rag.chat.sentences import escape_markdown, fold, markdown_to_text, section
from rag.chat.vocabulary import GENERAL_TOPICS
from rag.dialogue.actions import Action, Ask, Compare, Guide, NoGuide, Plan, Recall, Reply, Search
from rag.i18n import join_list, message, phrases
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

MOST_FACTS = 4
MOST_PER_PLACE = 3
RELATED = 3
# What the service can look up, offered when the guides have nothing.


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
        return _recalled(lang, action, recalled or [], declared, clarify)
    if isinstance(action, Search | Ask):
        return _results(lang, tools, notes, clarify, declared)
    if isinstance(action, NoGuide):
        return _no_guide(lang, question, action.city, passages, tools, notes, clarify, declared)
    places: list[str] = []
    days = None
    if isinstance(action, Guide | Plan):
        places = [action.city]
        days = action.days if isinstance(action, Plan) else None
    elif isinstance(action, Compare):
        places = list(action.places)
    return _knowledge(
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


def _results(
    lang: str,
    tools: Sequence[ToolAnswer],
    notes: Sequence[str],
    clarify: str | None,
    declared: ToolCatalogue,
) -> Answer:
    """Searches made: their results, cited, with the notices they need; or only the questions asked."""
    cites = Citations()
    found = [t for t in tools if t.results]
    blocks: list[str] = []
    if found:
        blocks.append(
            message(lang, "lead_found", tools=", ".join(declared.label(t.name, lang) for t in found))
        )
    blocks += _tool_blocks(lang, tools, cites, declared)
    if any(t.sandbox for t in found):
        blocks.append(message(lang, "sandbox_notice"))
    if any(t.indicative for t in found):
        blocks.append(message(lang, "indicative_notice"))
    return _finish(lang, blocks, notes, clarify, cites)


def _recalled(
    lang: str, action: Recall, recalled: Sequence[str], declared: ToolCatalogue, clarify: str | None
) -> Answer:
    """Results shown before, the one the traveller picks first."""
    cites = Citations()
    if not recalled:
        what = declared.label(action.tool, lang)
        return _finish(lang, [message(lang, "no_recall", what=what)], (), clarify, cites)
    label = message(lang, "source_recalled")
    lines = []
    for i, r in enumerate(recalled):
        n = cites.cite(("recalled", i), ("recalled", i, 0), r, label)
        lines.append(f"- {escape_markdown(r)} [{n}]")
    return _finish(lang, [message(lang, "lead_recalled"), "\n".join(lines)], (), clarify, cites)


def _no_guide(
    lang: str,
    question: str,
    city: str,
    passages: Sequence[Passage],
    tools: Sequence[ToolAnswer],
    notes: Sequence[str],
    clarify: str | None,
    declared: ToolCatalogue,
) -> Answer:
    """A place without a guide: said plainly first, then what the searches found there, what the guide
    of a city next to it says of it (its sentences that name it: the Lisbon guide on Sintra), what the
    topic documents say that answers the question, and what the service can look up. The passages hold
    no other city's guide (rag.chat.search)."""
    cites = Citations()
    shown = escape_markdown(city)
    blocks = [message(lang, "no_guide", place=shown)]
    blocks += _tool_blocks(lang, tools, cites, declared)
    query = read_question(question, [city])
    pool = candidates(passages, [city])
    facts = [] if query.empty else _facts(query, pool, passages, places=[city])
    if any(c.local and passages[c.passage].place for c in facts):
        blocks[0] += " " + _lead(lang, query, facts, passages, [city])
    elif facts:
        blocks.append(message(lang, "from_guides"))
    blocks.extend(_fact_blocks(facts, passages, cites))
    offered = [s.label(lang) for s in declared.values() if s.offered]
    blocks.append(message(lang, "offer_tools", tools=join_list(lang, offered)))
    if any(t.sandbox for t in tools if t.results):
        blocks.append(message(lang, "sandbox_notice"))
    return _finish(lang, blocks, notes, clarify, cites)


def _knowledge(
    question: str,
    passages: Sequence[Passage],
    tools: Sequence[ToolAnswer],
    clarify: str | None = None,
    lang: str = "en",
    *,
    places: Sequence[str] = (),
    compare: bool = False,
    notes: Sequence[str] = (),
    declared: ToolCatalogue,
    days: int | None = None,
    fallback: bool = False,
    topics: Sequence[str] = (),
) -> Answer:
    """An answer from the guides: about one place (its section, or a day-by-day plan of ``days``),
    places compared, or no one place (the topic documents). ``fallback``: a question for the place's
    guide, answered from the section its search found first when no section is its topic's."""
    cites = Citations()
    found = [t for t in tools if t.results]
    # The passages' places too: "Lisboa" in the question is the Lisbon guide's place, not a topic.
    query = read_question(question, [*places, *{p.place for p in passages if p.place}])
    pool = candidates(passages, places)
    compare = compare and len(places) >= 2
    guide_first = not compare and len(places) == 1
    # About one place the tools' results are cited first (they answer a request), the guide after them.
    results = _tool_blocks(lang, tools, cites, declared) if guide_first else []
    if guide_first:
        answered = from_guide(lang, question, query, passages, pool, places[0], days, cites, fallback, topics)
        if answered is not None:
            guided, planned = answered
            if planned and clarify:  # asked before the days, which end the answer
                guided.insert(1, escape_markdown(clarify))
                clarify = None
            if found:
                labels = ", ".join(declared.label(t.name, lang) for t in found)
                guided = [
                    message(lang, "lead_found", tools=labels),
                    *results,
                    message(lang, "from_guides"),
                    *guided[1:],
                ]
            else:
                guided = [guided[0], *results, *guided[1:]]
            if any(t.sandbox for t in found):
                guided.append(message(lang, "sandbox_notice"))
            if any(t.indicative for t in found):
                guided.append(message(lang, "indicative_notice"))
            return _finish(lang, guided, notes, clarify, cites)
    facts = [] if compare else _facts(query, pool, passages, places=places)

    lead: str | None = None
    body: list[str] = []
    if found:
        lead = message(lang, "lead_found", tools=", ".join(declared.label(t.name, lang) for t in found))
    body.extend(results if guide_first else _tool_blocks(lang, tools, cites, declared))
    if compare or facts:
        if found:
            body.append(message(lang, "from_guides"))
        elif compare:
            lead = _compare_lead(lang, query, places)
        else:
            lead = _lead(lang, query, facts, passages, places)
            if places and any(c.local for c in facts) and not _has_guide(passages, places):
                # "What to see in Sintra?": said plainly first, then what another guide says of it.
                lead = (
                    message(lang, "no_guide", place=escape_markdown(join_list(lang, list(places))))
                    + " "
                    + lead
                )
        if compare:
            body.extend(_compare_blocks(lang, query, passages, places, cites))
        else:
            body.extend(_fact_blocks(facts, passages, cites))
    elif not found and not clarify:
        offered = [s.label(lang) for s in declared.values() if s.offered]
        lead = _nothing(lang, passages, pool, places, offered)
    blocks = [lead] if lead else []
    blocks += [escape_markdown(n) for n in notes if n] + body
    if any(t.sandbox for t in found):
        blocks.append(message(lang, "sandbox_notice"))
    if any(t.indicative for t in found):
        blocks.append(message(lang, "indicative_notice"))
    return _finish(lang, blocks, (), clarify, cites)


def _finish(
    lang: str, blocks: list[str], notes: Sequence[str], clarify: str | None, cites: Citations
) -> Answer:
    """The blocks after the lead's notes, the clarifying question and the Sources line."""
    blocks = blocks[:1] + [escape_markdown(n) for n in notes if n] + blocks[1:]
    if clarify:  # may repeat the traveller's own words ("I don't know a place called '...'")
        blocks.append(escape_markdown(clarify))
    if cites.items:
        listed = "; ".join(f"[{n}] {escape_markdown(c.label)}" for n, c in enumerate(cites.items, start=1))
        blocks.append(message(lang, "sources", sources=listed))
    return Answer("\n\n".join(b for b in blocks if b), cites.items)


def _facts(
    query: Query,
    pool: list[Candidate],
    passages: Sequence[Passage],
    most: int = MOST_FACTS,
    places: Sequence[str] = (),
) -> list[Candidate]:
    """The chosen sentences in the guide's order: by section (the best-ranked first), then by chunk
    and position within it."""
    # General advice answers for a place only on general topics (visas, packing, money...): a topic
    # document's sentence is not what the Porto or Vienna guide would say about its sights.
    general = not places or bool(GENERAL_TOPICS & set(query.topics))
    picked = overview(pool, passages) if query.empty else select(query, pool, most, general)
    first: dict[tuple[str, str], int] = {}
    for c in sorted(picked, key=lambda c: c.passage):
        p = passages[c.passage]
        first.setdefault((p.id, p.heading), c.passage)

    def order(c: Candidate) -> tuple[int, int, int]:
        p = passages[c.passage]
        return first[(p.id, p.heading)], p.chunk, c.sentence.pos

    return sorted(picked, key=order)


def _tool_blocks(lang: str, tools: Sequence[ToolAnswer], cites: Citations, known: ToolCatalogue) -> list[str]:
    blocks = []
    for ti, t in enumerate(tools):
        label = known.label(t.name, lang)
        if t.error:
            blocks.append(message(lang, "tool_failed", tool=label, error=_error(lang, t)))
        elif t.results:
            if t.from_index and t.fetched_at:
                head = message(lang, "tool_results_indexed", tool=label, fetched_at=t.fetched_at)
            else:
                head = message(lang, "tool_results", tool=label)
            lines = [_capital(head)]
            spec = known.get(t.name)
            source = live_label(
                lang,
                known.result_label(spec.kind, lang) if spec else t.name.replace("_", " "),
                t.provider,
                t.fetched_at,
                sandbox=t.sandbox,
                indicative=t.indicative,
                attribution=t.attribution,
            )
            for ri, r in enumerate(t.results):
                n = cites.cite(("result", ti, ri), ("result", ti, ri), r, source)
                lines.append(f"- {escape_markdown(r)} [{n}]")
            blocks.append("\n".join(lines))
        else:
            blocks.append(message(lang, "no_results", tool=label))
    return blocks


def _fact_blocks(facts: list[Candidate], passages: Sequence[Passage], cites: Citations) -> list[str]:
    """The chosen sentences: a list item's sentences on one "- " line, a paragraph's on plain lines,
    each run cited once at its end; list runs and prose runs are separate Markdown blocks."""
    lines: list[tuple[bool, str]] = []
    run: list[Candidate] = []

    def flush() -> None:
        if not run:
            return
        first = run[0]
        p = passages[first.passage]
        excerpt = " ".join(c.sentence.text for c in run)
        n = cites.cite((p.id, p.heading), ("passage", first.passage, 0), excerpt, passage_label(p))
        shown = escape_markdown(excerpt)
        said = first.sentence
        if not said.first and said.label:  # say what the item is about
            shown = f"{escape_markdown(said.label)}: {shown}"
        elif said.first and said.intro and said.text[:1].islower():  # "…includes: a 24-hour line"
            shown = f"{escape_markdown(said.intro)} {shown}"
        lines.append((first.sentence.bullet, f"{shown} [{n}]"))
        run.clear()

    for c in facts:
        if run and (c.passage, c.sentence.item) != (run[-1].passage, run[-1].sentence.item):
            flush()
        run.append(c)
    flush()
    return markdown_blocks(lines)


def _lead(
    lang: str, query: Query, facts: list[Candidate], passages: Sequence[Passage], places: Sequence[str]
) -> str:
    """ "Here is what the Tokyo guide says about the weather in Tokyo:" and its variants."""
    used = [passages[c.passage] for c in facts]
    place = escape_markdown(join_list(lang, list(places)) if places else _only({p.place for p in used}))
    has_guide = any(fold(p.place) in {fold(x) for x in places} for p in passages if p.place)
    counts = {t: sum(t in c.topics for c in facts) for t in query.topics}
    answered = sorted((t for t in query.topics if counts[t]), key=lambda t: -counts[t]) or list(query.topics)
    if places and not any(c.local for c in facts):  # general advice only: say so
        topic = message(lang, f"topic.{answered[0]}") if answered else _heading(used[0])
        return message(lang, "lead_general" if has_guide else "lead_no_guide", place=place, topic=topic)
    docs = {p.id for p in used}
    source = None
    if len(docs) == 1:
        p = used[0]
        source = (
            message(lang, "source_city", place=escape_markdown(p.place))
            if p.place
            else message(lang, "source_doc", title=escape_markdown(p.title or p.id))
        )
    if answered:
        t = answered[0]
        topic = message(lang, f"topic.{t}.in", place=place) if place else message(lang, f"topic.{t}")
    elif query.empty and place:
        topic = place
    else:
        head = _heading(used[0])
        if source:
            return message(lang, "lead_section", source=source, section=head)
        return message(lang, "lead_section_guides", section=head)
    if source:
        return message(lang, "lead_topic", source=source, topic=topic)
    return message(lang, "lead_topic_guides", topic=topic)


def _has_guide(passages: Sequence[Passage], places: Sequence[str]) -> bool:
    return any(fold(p.place) in {fold(x) for x in places} for p in passages if p.place)


def _heading(p: Passage) -> str:
    return escape_markdown(section(p.heading, p.title) or p.title or p.id)


def _compare_lead(lang: str, query: Query, places: Sequence[str]) -> str:
    names = escape_markdown(join_list(lang, list(places)))
    if query.topics:
        return message(lang, "lead_compare", places=names, topic=message(lang, f"topic.{query.topics[0]}"))
    return message(lang, "lead_compare_places", places=names)


def _compare_blocks(
    lang: str,
    query: Query,
    passages: Sequence[Passage],
    places: Sequence[str],
    cites: Citations,
) -> list[str]:
    """One "### Place" block per place, in the order the traveller named them."""
    blocks = []
    for place in places:
        own = [c for c in candidates(passages, [place]) if c.local]
        picked = _facts(query, own, passages, MOST_PER_PLACE, places=[place])
        body = _fact_blocks(picked, passages, cites)
        if not body:
            has_guide = any(fold(p.place) == fold(place) for p in passages)
            key = "compare_none" if has_guide else "no_guide"
            body = [message(lang, key, place=escape_markdown(place))]
        blocks.append(f"### {escape_markdown(place)}\n\n" + "\n\n".join(body))
    return blocks


def _nothing(
    lang: str, passages: Sequence[Passage], pool: list[Candidate], places: Sequence[str], offered: list[str]
) -> str:
    """Said plainly, with what the service can do instead: its tools and a few related topics."""
    lines = [
        message(lang, "nothing_place", place=escape_markdown(join_list(lang, list(places))))
        if places
        else message(lang, "nothing"),
        message(lang, "offer_tools", tools=join_list(lang, offered)),
    ]
    usable = sorted({c.passage for c in pool}) or ([] if places else range(len(passages)))
    related = list(dict.fromkeys(passage_label(passages[i]) for i in usable))[:RELATED]
    if related:
        lines.append(message(lang, "related", topics=join_list(lang, [escape_markdown(r) for r in related])))
    return " ".join(lines)


def _only(values: set[str]) -> str:
    values.discard("")
    return next(iter(values)) if len(values) == 1 else ""


def _error(lang: str, t: ToolAnswer) -> str:
    """The tool's own message in English; elsewhere the phrase for its code, if there is one.

    The message may quote a provider's words (cleaned and capped where the error was built): escaped like
    a result, so a link or an image in it is shown as the text it is."""
    if lang != "en" and t.code and f"error.{t.code}" in phrases().get(lang, {}):
        return message(lang, f"error.{t.code}")
    return escape_markdown(t.error or "")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
