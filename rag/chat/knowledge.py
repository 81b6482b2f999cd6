"""Answers from the guides: one place's section or plan, places compared, a place without a guide,
or a question about no one place answered from the topic documents; and what is said when the guides
have nothing. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from rag.chat.guided import from_guide
from rag.chat.quoting import Answer, Citations, Passage, ToolAnswer, finish, markdown_blocks, passage_label
from rag.chat.results import tool_blocks
from rag.chat.selection import Candidate, Query, candidates, overview, read_question, select
from rag.chat.sentences import escape_markdown, fold, section
from rag.chat.vocabulary import GENERAL_TOPICS
from rag.i18n import join_list, message
from rag.tools.catalog import ToolCatalogue

MOST_FACTS = 4
MOST_PER_PLACE = 3
RELATED = 3


def no_guide_answer(
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
    blocks += tool_blocks(lang, tools, cites, declared)
    query = read_question(question, [city])
    pool = candidates(passages, [city])
    facts = [] if query.empty else _facts(query, pool, passages, places=[city])
    if not facts:
        # What the guide of the city next to it says of it (its day trips), whatever was asked.
        facts = [c for c in pool if c.local and passages[c.passage].place][:MOST_FACTS]
    if any(c.local and passages[c.passage].place for c in facts):
        blocks[0] += " " + _lead(lang, query, facts, passages, [city])
    elif facts:
        blocks.append(message(lang, "from_guides"))
    blocks.extend(_fact_blocks(facts, passages, cites))
    offered = [s.label(lang) for s in declared.values() if s.offered]
    blocks.append(message(lang, "offer_tools", tools=join_list(lang, offered)))
    if any(t.sandbox for t in tools if t.results):
        blocks.append(message(lang, "sandbox_notice"))
    return finish(lang, blocks, notes, clarify, cites)


def knowledge_answer(
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
    results = tool_blocks(lang, tools, cites, declared) if guide_first else []
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
            return finish(lang, guided, notes, clarify, cites)
    facts = [] if compare else _facts(query, pool, passages, places=places)

    lead: str | None = None
    body: list[str] = []
    if found:
        lead = message(lang, "lead_found", tools=", ".join(declared.label(t.name, lang) for t in found))
    body.extend(results if guide_first else tool_blocks(lang, tools, cites, declared))
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
    return finish(lang, blocks, (), clarify, cites)


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
