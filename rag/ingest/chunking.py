"""Heading-aware chunking with a token bound and overlap. Pure: no I/O, no model.

A Markdown document is cut into sections at its headings; each section's text
is cut into sentences (words, for a sentence longer than the bound), which are
packed into chunks of at most ``max_tokens``. Every chunk starts with its
heading path ("Paris City Guide > Getting around") so it stands on its own, and
repeats up to ``overlap`` tokens of the sentences before it. No text is lost:
the ``content`` of the chunks, in order, is the whole body of the document.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

TokenCounter = Callable[[str], int]

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


def count_words(text: str) -> int:
    """A model-free token estimate (one token a word), for tests and sizing."""
    return len(text.split())


@dataclass(frozen=True, slots=True)
class Chunk:
    index: int
    heading: str  # heading path, e.g. "Paris City Guide > Food and drink"
    overlap: str  # text repeated from the chunk before, for context
    content: str  # text that first appears in this chunk
    # About how many model tokens ``text`` has (the sum of its parts' counts), so the pipeline can embed
    # chunks of like length together without counting them again.
    tokens: int = 0

    @property
    def text(self) -> str:
        body = f"{self.overlap} {self.content}" if self.overlap else self.content
        return f"{self.heading}\n\n{body}" if self.heading else body


@dataclass(slots=True)
class _Unit:
    text: str
    tokens: int
    starts_paragraph: bool


def chunk_markdown(
    text: str,
    title: str = "",
    *,
    max_tokens: int = 200,
    overlap: int = 32,
    count_tokens: TokenCounter = count_words,
) -> list[Chunk]:
    """Chunks of ``text``, in document order; ``title`` heads the path of every chunk."""
    if overlap >= max_tokens:
        raise ValueError("overlap must be smaller than max_tokens")
    chunks: list[Chunk] = []
    for path, body in _sections(text, title):
        heading = " > ".join(path)
        heading_tokens = count_tokens(heading) if heading else 0
        # Keep room for the heading line; never less than a quarter of the bound for the body.
        budget = max(max_tokens - heading_tokens - 1, max_tokens // 4) if heading else max_tokens
        units = list(_units(body, budget, count_tokens))
        for overlap_units, own_units in _pack(units, budget, min(overlap, budget // 2)):
            tokens = heading_tokens + sum(u.tokens for u in overlap_units) + sum(u.tokens for u in own_units)
            chunks.append(Chunk(len(chunks), heading, _join(overlap_units), _join(own_units), tokens))
    return chunks


def _sections(text: str, title: str) -> list[tuple[list[str], str]]:
    """(heading path, body) per section that has a body."""
    stack: list[tuple[int, str]] = []
    out: list[tuple[list[str], str]] = []
    lines: list[str] = []
    in_fence = False

    def flush() -> None:
        body = "\n".join(lines).strip()
        if body:
            path = [h for _, h in stack]
            if title and (not path or path[0] != title):
                path = [title, *path]
            out.append((path, body))
        lines.clear()

    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            flush()
            level = len(match.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            heading = match.group(2).strip()
            if not (level == 1 and heading == title):
                stack.append((level, heading))
        else:
            lines.append(line)
    flush()
    return out


def _units(body: str, budget: int, count_tokens: TokenCounter) -> list[_Unit]:
    units: list[_Unit] = []
    for paragraph in re.split(r"\n\s*\n", body):
        paragraph = " ".join(paragraph.split())
        if not paragraph:
            continue
        first = True
        for sentence in _SENTENCE_END.split(paragraph):
            tokens = count_tokens(sentence)
            if tokens <= budget:
                units.append(_Unit(sentence, tokens, first))
                first = False
                continue
            for piece in _split_words(sentence, budget, count_tokens):
                units.append(_Unit(piece, count_tokens(piece), first))
                first = False
    return units


def _split_words(sentence: str, budget: int, count_tokens: TokenCounter) -> list[str]:
    """A sentence longer than the bound, cut at word boundaries (a lone huge word is cut by characters)."""
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for word in sentence.split(" "):
        cost = count_tokens(word)
        while cost > budget:  # one "word" over the bound: cut it by characters
            if current:
                pieces.append(" ".join(current))
                current, used = [], 0
            cut = max(1, len(word) * budget // cost)
            pieces.append(word[:cut])
            word = word[cut:]
            cost = count_tokens(word)
        if current and used + cost > budget:
            pieces.append(" ".join(current))
            current, used = [], 0
        current.append(word)
        used += cost
    if current:
        pieces.append(" ".join(current))
    return [p for p in pieces if p]


def _pack(units: list[_Unit], budget: int, overlap: int) -> list[tuple[list[_Unit], list[_Unit]]]:
    """Group units into (overlap units, own units) pairs within the budget."""
    groups: list[tuple[list[_Unit], list[_Unit]]] = []
    carried: list[_Unit] = []
    own: list[_Unit] = []
    used = 0
    for unit in units:
        if own and used + unit.tokens > budget:
            groups.append((carried, own))
            carried = _tail(own, overlap, budget - unit.tokens)
            own = []
            used = sum(u.tokens for u in carried)
        own.append(unit)
        used += unit.tokens
    if own:
        groups.append((carried, own))
    return groups


def _tail(units: list[_Unit], overlap: int, room: int) -> list[_Unit]:
    """The last whole units of ``units`` that fit in ``min(overlap, room)`` tokens."""
    limit = min(overlap, room)
    tail: list[_Unit] = []
    used = 0
    for unit in reversed(units):
        if used + unit.tokens > limit:
            break
        tail.insert(0, unit)
        used += unit.tokens
    return tail


def _join(units: list[_Unit]) -> str:
    out = ""
    for unit in units:
        if not out:
            out = unit.text
        else:
            out += ("\n\n" if unit.starts_paragraph else " ") + unit.text
    return out
