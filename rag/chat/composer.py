"""The extractive composer: a readable answer from passages and tool results, with no LLM. Pure.

A short lead sentence, the key facts (the sentences of the top passages that share most words with the
question, cited [n]), the live results as a compact list, notices for sandbox and indicative data, a
clarifying question when a tool is waiting for details, and the sources. The fixed phrases come from
the message catalogue (rag/i18n/messages.yaml) in the traveller's language.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from rag.i18n import catalogue, message, tool_label

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
    code: str | None = None  # the error's stable code, for saying it in the traveller's language


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
    lang: str = "en",
) -> Answer:
    """The answer in ``lang`` (rag.i18n): its fixed phrases from the message catalogue; the facts and
    results stay in the language they were written in."""
    parts: list[str] = []
    found = [t for t in tools if t.results]
    if recalled is not None:
        parts.append(message(lang, "lead_recalled" if recalled else "lead_recalled_none"))
        parts.extend(f"- {r}" for r in recalled)
    elif found:
        parts.append(message(lang, "lead_found", tools=", ".join(tool_label(lang, t.name) for t in found)))
    elif passages:
        parts.append(message(lang, "lead_guides", title=passages[0].title))
    elif not clarify and not tools:
        parts.append(message(lang, "lead_nothing"))
    for t in tools:
        label = tool_label(lang, t.name)
        if t.error:
            parts.append(message(lang, "tool_failed", tool=label, error=_error(lang, t)))
        elif t.results:
            if t.from_index and t.fetched_at:
                parts.append(
                    _capital(message(lang, "tool_results_indexed", tool=label, fetched_at=t.fetched_at))
                )
            else:
                parts.append(_capital(message(lang, "tool_results", tool=label)))
            parts.extend(f"- {r}" for r in t.results)
        else:
            parts.append(message(lang, "no_results", tool=label))
    facts = key_facts(question, passages) if recalled is None else []
    cited = sorted({i for i, _ in facts})
    if facts:
        if found:
            parts.append(message(lang, "from_guides"))
        parts.extend(f"{sentence} [{i + 1}]" for i, sentence in facts)
    if any(t.sandbox for t in found):
        parts.append(message(lang, "sandbox_notice"))
    if any(t.indicative for t in found):
        parts.append(message(lang, "indicative_notice"))
    if clarify:
        parts.append(clarify)
    if cited:
        parts.append(
            message(lang, "sources", sources="; ".join(f"[{i + 1}] {_label(passages[i])}" for i in cited))
        )
    return Answer("\n".join(parts), cited)


def _error(lang: str, t: ToolAnswer) -> str:
    """The tool's own message in English; elsewhere the catalogue's phrase for its code, if it has one."""
    if lang != "en" and t.code and f"error.{t.code}" in catalogue().get(lang, {}):
        return message(lang, f"error.{t.code}")
    return t.error or ""


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


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
