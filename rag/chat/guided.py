"""Answers from one place's guide: the section that answers the question, or a day-by-day plan. Pure.

rag.chat.sections reads the guide and chooses what to quote; this module writes it, in the message's
language, every quote cited.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wordfreq import zipf_frequency

from rag.chat.plans import TripPlan, asks_length, trip_plan, with_children
from rag.chat.quoting import Citations, Passage, quote_blocks
from rag.chat.sections import (
    RARE_ZIPF,
    Section,
    asked_count,
    find_section,
    guide_sections,
    named,
    naming_section,
    quotes_for,
)
from rag.chat.selection import Candidate, Query, score
from rag.chat.sentences import escape_markdown, fold, section
from rag.i18n import join_list, message


def from_guide(
    lang: str,
    question: str,
    query: Query,
    passages: Sequence[Passage],
    pool: list[Candidate],
    place: str,
    days: int | None,
    cites: Citations,
    fallback: bool = False,
    topics: Sequence[str] = (),
) -> tuple[list[str], bool] | None:
    """A question about one place answered from the section of its guide that answers it, or a trip
    plan from that guide (then True); None when the place has no guide here or the question no
    section. ``fallback``: the question is surely about this place's guide, so without a section of
    its topic the section the search found first answers; ``topics``: the topics asked about, the
    question's own first (else the order the question names them)."""
    doc = next((p.id for p in passages if p.place and fold(p.place) == fold(place)), None)
    if doc is None:
        return None
    own = [c for c in pool if passages[c.passage].id == doc]
    sections = guide_sections(own, [p.heading for p in passages], [p.chunk for p in passages])
    shown = escape_markdown(place)
    source = message(lang, "source_city", place=shown)
    english = [message(lang, "quoted_english")] if lang != "en" else []
    if days:
        plan = trip_plan(sections, days, query.months, with_children(question))
        if plan is not None:
            return _plan_blocks(lang, plan, shown, source, english, query, passages, cites), True
    asked = tuple(topics) or query.topics
    chosen = find_section(("duration", *asked) if asks_length(question) else asked, sections, query)
    naming = naming_section(question, sections, [place], chosen[1] if chosen else None, lang)
    if naming is not None and (chosen is None or naming is not chosen[1]):
        # "Is the Octopus card useful?": the section that names it, whatever the topic's would be.
        quotes = quotes_for(query, "", naming, asked_count(question))
        lead = message(lang, "lead_section", source=source, section=escape_markdown(naming.name))
    elif chosen is not None:
        topic, sec = chosen
        lead = message(
            lang, "lead_topic", source=source, topic=message(lang, f"topic.{topic}.in", place=shown)
        )
        quotes = quotes_for(query, topic, sec, asked_count(question))
    elif fallback:
        # No topic and nothing named: the overview for the place alone ("Tell me about Tokyo"), else
        # the section the search found first answers, from the guide.
        first = next((p for p in passages if p.place and fold(p.place) == fold(place)), None)
        heading = (section(first.heading) or first.heading) if first is not None else None
        found = named(sections, "overview") if query.empty else None
        found = found or next((s for s in sections if s.name == heading), None)
        if found is None or (
            lang == "en" and not query.empty and not _says_any(query, found, question, place)
        ):
            return None  # "a good dentist in Lisbon?": the guide says nothing of it
        quotes = quotes_for(query, "", found, asked_count(question))
        if query.empty:
            lead = message(lang, "lead_topic", source=source, topic=shown)
        else:
            lead = message(lang, "lead_section", source=source, section=escape_markdown(found.name))
    else:
        return None
    return [lead, *english, *quote_blocks(quotes, passages, cites)], False


def _says_any(query: Query, sec: Section, question: str, place: str) -> bool:
    """Whether ``sec`` may answer an English question: one of its sentences says a word of it, or the
    question names nothing uncommon that the section would have to say ("a good dentist" would)."""
    score(query, sec.candidates)
    if any(c.relevance > 0 for c in sec.candidates):
        return True
    skipped = set(re.findall(r"[a-z]+", fold(place)))
    words = [w for w in re.findall(r"[a-z]+", fold(question)) if w not in skipped and len(w) > 2]
    return not any(zipf_frequency(w, "en") < RARE_ZIPF for w in words)


def _plan_blocks(
    lang: str,
    plan: TripPlan,
    place: str,
    source: str,
    english: list[str],
    query: Query,
    passages: Sequence[Passage],
    cites: Citations,
) -> list[str]:
    blocks = [message(lang, "plan_lead", days=len(plan.days), place=place, source=source), *english]
    blocks.append(message(lang, "plan_note"))
    if plan.left_out:
        blocks.append(message(lang, "plan_more", count=plan.left_out))
    names = message(lang, "month_names").split()
    for key, quotes, extra in (
        (
            "plan_season",
            plan.season,
            {"month": join_list(lang, [names[m - 1] for m in sorted(query.months)])},
        ),
        ("plan_children", plan.children, {}),
        ("plan_tips", plan.tips, {}),
    ):
        if quotes:
            blocks.append(message(lang, key, **extra))
            blocks.extend(quote_blocks(quotes, passages, cites))
    for n, day in enumerate(plan.days, start=1):
        quotes = day + (plan.food if n == 1 else [])
        lines = quote_blocks(quotes, passages, cites, bullets=True)
        blocks.append(f"**{message(lang, 'plan_day', n=n)}**\n\n" + "\n".join(lines))
    return blocks
