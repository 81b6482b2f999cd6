"""What an answer quotes and cites: passages and tool answers in, numbered citations out. Pure.

Each cited item (a guide section, a tool result, an earlier result) gets one number, 1..N in order of
first appearance in the text (``Citations``); ``quote_blocks`` writes whole quotes (rag.chat.sections)
as Markdown lines, each cited.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from rag.chat.sections import Quote
from rag.chat.sentences import escape_markdown, section
from rag.i18n import message

Ref = tuple[str, int, int]  # ("passage", i, 0) | ("result", tool_i, result_i) | ("recalled", i, 0)
EXCERPT_GAP = " … "  # between the quoted pieces of one citation that are not next to each other


@dataclass
class Passage:
    id: str
    title: str
    heading: str
    text: str
    source: str
    place: str = ""  # a city guide's city; "" for topic documents
    chunk: int = 0  # the chunk's position in its document, to keep the guide's order


@dataclass
class ToolAnswer:
    name: str
    results: list[str] = field(default_factory=list)  # rendered sentences
    sandbox: bool = False
    indicative: bool = False
    from_index: bool = False
    fetched_at: str | None = None  # "YYYY-MM-DD HH:MM UTC"
    error: str | None = None
    code: str | None = None  # the error's stable code, for saying it in the traveller's language
    provider: str | None = None
    ids: list[str] = field(default_factory=list)  # each result's identity, parallel to ``results``
    attribution: str | None = None  # what the provider's terms ask the answer to carry


@dataclass
class Citation:
    ref: Ref
    excerpt: str  # the cited sentence(s) (pieces apart in the guide joined by " … "), or the result
    label: str = ""  # as the Sources line gives it


@dataclass
class Answer:
    text: str
    citations: list[Citation]  # citations[k] is [k+1] in the text


class Citations:
    """Numbers handed out in order of first appearance; one per item."""

    def __init__(self) -> None:
        self.items: list[Citation] = []
        self._keys: dict[object, int] = {}

    def cite(self, key: object, ref: Ref, excerpt: str, label: str) -> int:
        n = self._keys.get(key)
        if n is None:
            self.items.append(Citation(ref, excerpt, label))
            n = self._keys[key] = len(self.items)
        elif excerpt and excerpt not in self.items[n - 1].excerpt:
            self.items[n - 1].excerpt += EXCERPT_GAP + excerpt
        return n


def passage_label(p: Passage) -> str:
    """ "Title — Section", or the title (or section) alone."""
    head = section(p.heading, p.title)
    if p.title and head:
        return f"{p.title} — {head}"
    return p.title or head or p.id


def quote_blocks(
    quotes: Sequence[Quote], passages: Sequence[Passage], cites: Citations, bullets: bool = False
) -> list[str]:
    """Whole quotes, each cited: list items as "- " lines, paragraphs as plain lines; list runs and
    prose runs are separate Markdown blocks (``bullets``: every quote a list line)."""
    lines: list[tuple[bool, str]] = []
    for q in quotes:
        first = q.sentences[0]
        p = passages[q.item.passage]
        excerpt = " ".join(c.sentence.text for c in q.sentences)
        n = cites.cite((p.id, p.heading), ("passage", q.item.passage, 0), excerpt, passage_label(p))
        shown = escape_markdown(excerpt)
        opening = q.item.sentences[0].sentence  # the item's own label and intro, not a chunk's
        if first is not q.item.sentences[0] and opening.label:
            shown = f"{escape_markdown(opening.label)}: {shown}"
        elif first is q.item.sentences[0] and opening.intro and opening.text[:1].islower():
            shown = f"{escape_markdown(opening.intro)} {shown}"
        lines.append((bullets or opening.bullet, f"{shown} [{n}]"))
    if bullets:
        return [f"- {line}" for _, line in lines]
    return markdown_blocks(lines)


def markdown_blocks(lines: Sequence[tuple[bool, str]]) -> list[str]:
    """(is a list item, text) lines as Markdown blocks: list runs as "- " lines, prose runs as plain
    lines, each run a block of its own."""
    blocks: list[list[str]] = []
    kind: bool | None = None
    for bullet, line in lines:
        if bullet != kind:
            blocks.append([])
            kind = bullet
        blocks[-1].append(f"- {line}" if bullet else line)
    return ["\n".join(b) for b in blocks]


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
    city = payload.get("city")
    chunk = payload.get("chunk_index")
    return Passage(
        id=str(payload.get("document_id", point_id)),
        title=str(payload.get("title", "")),
        heading=str(payload.get("heading", "")),
        text=str(payload.get("text", "")),
        source=str(payload.get("source", "")),
        place=city if isinstance(city, str) else "",
        chunk=chunk if isinstance(chunk, int) else 0,
    )


def finish(
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
