"""The extractive composer: a readable answer from passages and tool results, with no LLM. Pure.

A short lead sentence, the key facts (the sentences of the top passages that share most words with the
question, cited [n]), the live results as a compact list, notices for sandbox and indicative data, a
clarifying question when a tool is waiting for details, and the sources.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_WORD = re.compile(r"[a-zà-ÿ0-9]+")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "best",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "get",
        "go",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "should",
        "the",
        "to",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
        "there",
        "their",
        "this",
        "that",
        "these",
        "those",
        "any",
        "some",
        "find",
        "show",
        "tell",
        "about",
        "please",
    ]
)
TOOL_LABELS = {
    "flight_search": "flights",
    "hotel_search": "hotels",
    "activity_search": "activities",
    "location_search": "airports and cities",
    "flight_inspiration": "destinations",
    "cheapest_dates": "cheapest dates",
    "weather_forecast": "the forecast",
}


@dataclass
class Passage:
    id: str
    title: str
    heading: str
    text: str
    source: str


@dataclass
class ToolAnswer:
    name: str
    results: list[str] = field(default_factory=list)  # rendered sentences
    sandbox: bool = False
    indicative: bool = False
    from_index: bool = False
    fetched_at: str | None = None
    error: str | None = None


@dataclass
class Answer:
    text: str
    cited: list[int]  # indexes of the passages cited


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1}


def key_facts(question: str, passages: Sequence[Passage], most: int = 3) -> list[tuple[int, str]]:
    """(passage index, sentence) pairs: the best sentences of the best passages, in answer order."""
    q = words(question)
    facts: list[tuple[int, str]] = []
    for i, p in enumerate(passages[:3]):
        body = p.text.split("\n\n", 1)[-1]  # drop the heading line the chunk starts with
        sentences = [s.strip() for s in _SENTENCE.split(" ".join(body.split())) if len(s.split()) >= 4]
        scored = sorted(((len(q & words(s)), -j, s) for j, s in enumerate(sentences)), reverse=True)
        take = 2 if i == 0 else 1
        for score, _, sentence in scored[:take]:
            if score > 0 or (i == 0 and not facts):
                facts.append((i, sentence))
        if len(facts) >= most:
            break
    return facts[:most]


def compose(
    question: str,
    passages: Sequence[Passage],
    tools: Sequence[ToolAnswer],
    clarify: str | None = None,
    recalled: Sequence[str] | None = None,
) -> Answer:
    parts: list[str] = []
    found = [t for t in tools if t.results]
    if recalled is not None:
        parts.append(
            "Here is what I found for you earlier:"
            if recalled
            else "I have no earlier results of that kind for you that are still current."
        )
        parts.extend(f"- {r}" for r in recalled)
    elif found:
        labels = ", ".join(TOOL_LABELS.get(t.name, t.name) for t in found)
        parts.append(f"Here is what I found for {labels}.")
    elif passages:
        parts.append(f"From the Wayfarer travel guides ({passages[0].title}):")
    elif not clarify and not tools:
        parts.append("I don't have anything on that in my travel guides yet.")
    for t in tools:
        if t.error:
            parts.append(f"I couldn't get {TOOL_LABELS.get(t.name, t.name)}: {t.error}")
        elif t.results:
            when = f" (from results fetched at {t.fetched_at})" if t.from_index and t.fetched_at else ""
            parts.append(f"{TOOL_LABELS.get(t.name, t.name).capitalize()}{when}:")
            parts.extend(f"- {r}" for r in t.results)
        else:
            parts.append(f"No {TOOL_LABELS.get(t.name, t.name)} matched that request.")
    facts = key_facts(question, passages) if recalled is None else []
    cited = sorted({i for i, _ in facts})
    if facts:
        if found:
            parts.append("From the guides:")
        parts.extend(f"{sentence} [{i + 1}]" for i, sentence in facts)
    if any(t.sandbox for t in found):
        parts.append(
            "Note: these live results come from Wayfarer's offline sandbox: synthetic data for "
            "trying the service, not real fares or availability."
        )
    if any(t.indicative for t in found):
        parts.append("Inspiration and cheapest-date prices are indicative: the provider caches them.")
    if clarify:
        parts.append(clarify)
    if cited:
        parts.append("Sources: " + "; ".join(f"[{i + 1}] {_label(passages[i])}" for i in cited))
    return Answer("\n".join(parts), cited)


def _label(p: Passage) -> str:
    return p.heading or p.title


def chunks(text: str, size: int = 48) -> Iterator[str]:
    """The answer in pieces of about ``size`` characters, cut after spaces, for streaming."""
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            space = text.rfind(" ", start, end)
            end = space + 1 if space > start else end
        yield text[start:end]
        start = end


def passage_from_payload(point_id: str, payload: dict[str, Any]) -> Passage:
    return Passage(
        id=str(payload.get("document_id", point_id)),
        title=str(payload.get("title", "")),
        heading=str(payload.get("heading", "")),
        text=str(payload.get("text", "")),
        source=str(payload.get("source", "")),
    )
