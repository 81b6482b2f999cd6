"""Passages cut into sentences a composer can quote, and the text rules that go with them. Pure.

A chunk is its heading line, a blank line, then its body, where the chunker has joined each paragraph
onto one line: a guide's bullet list arrives as "- **Spring (March–May):** mild. Cherry... - **Summer
...". ``split_passage`` cuts that back into list items and sentences, strips the Markdown that would
otherwise show as leftovers ("- **Day trips**: ..."), and keeps what scoring needs: the item's bold
label and the line that introduced its list ("From Narita Airport (NRT), about 60 km east:"), so a
bullet that does not repeat its subject still matches a question about it.

``markdown_to_text`` is for text we quote (guides: their syntax is not ours to render);
``escape_markdown`` is for text that is data (a provider's hotel name must render as the characters it
is, never as a link, emphasis or HTML).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import snowballstemmer

from connectors.text import fold as fold  # the chat folds words with the one accent folding
from rag.chat.vocabulary import MONTHS_EN

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_STRONG = re.compile(r"\*\*|__")
_EM_STAR = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_EM_UNDER = re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")
_LINE_MARK = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|[-*+•]\s+|\d{1,3}[.)]\s+)+", re.MULTILINE)
_BULLET = re.compile(r"(?:^|(?<=\s))[-*+•]\s+(?=\S)|(?:^|(?<=[.!?:;)]\s))\d{1,2}[.)]\s+(?=\S)")
# A sentence ends at . ! ? (and closing quotes or brackets) before a space and a capital, digit or
# quote; not after the abbreviations the guides use.
_END = re.compile(
    r"[.!?](?<!\bSt\.)(?<!\bMt\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bvs\.)(?<!\bca\.)(?<!\bNo\.)"
    r"(?<!\be\.g\.)(?<!\bi\.e\.)[\"'”’)\]]*\s+(?=[^\sa-zà-ÿ])"
)
_LABEL = re.compile(r"^\s*(?:\*\*|__)(.+?)(?:\*\*|__)")
_TOKEN = re.compile(r"[^\W_]+|[¥€$£]|°[cf]")
_MONEY = frozenset("¥€$£")
_MONTH = "|".join(m.capitalize() for m in MONTHS_EN)
_MONTH_NAME = re.compile(rf"\b({_MONTH})\b")
_MONTH_RANGE = re.compile(
    rf"\b({_MONTH})\s*(?:–|—|-|to|until|through|and)\s*(?:early |mid-?|late )?({_MONTH})\b"
)
_MONTH_NUMBER = {m.capitalize(): i for i, m in enumerate(MONTHS_EN, start=1)}
_ESCAPE = re.compile(r"([\\`*_\[\]<>|~])")
_ESCAPE_START = re.compile(r"^([-+=#>])|^(\d+)([.)])")


@dataclass(frozen=True, slots=True)
class Sentence:
    """One quotable sentence of a passage."""

    text: str  # plain text: Markdown stripped
    item: int  # the paragraph or list item of the passage it belongs to
    pos: int  # its order within the passage
    bullet: bool  # part of a list item
    first: bool  # the first sentence of its item
    label: str  # the item's bold label ("Spring (March–May)", "Shinjuku"), "" when none
    intro: str  # the line introducing its list ("Look for a policy that includes:"), "" when none
    context: str  # the item's bold label and the line introducing its list (for scoring only)


def markdown_to_text(s: str) -> str:
    """``s`` without Markdown syntax that would show as leftovers: **, __, `, *emphasis*, leading
    "- ", "* ", "1. ", "#", "> ", and links and images reduced to their text."""
    if "](" in s:
        s = _LINK.sub(r"\1", s)
    s = _LINE_MARK.sub("", s)
    if "*" in s or "_" in s:
        s = _STRONG.sub("", s)
        s = _EM_STAR.sub(r"\1", s)
        s = _EM_UNDER.sub(r"\1", s)
    s = s.replace("`", "")
    return " ".join(s.split())


def escape_markdown(s: str) -> str:
    """``s`` on one line with every character that Markdown or HTML would read as syntax escaped, so
    the page shows it as written: \\* \\_ \\[ \\] \\` \\< \\> \\| \\~ and a leading - + = # > or "1." ("1\\.")."""
    s = _ESCAPE.sub(r"\\\1", " ".join(s.split()))
    return _ESCAPE_START.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", s)


_ENGLISH = snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The word's English Snowball stem ("closed" and "closes" -> "close", "museums" -> "museum",
    "pickpocketing" -> "pickpocket"): the guides are English; other languages' words reach them through
    the topics' triggers, stemmed alike."""
    return str(_ENGLISH.stemWord(word))


def tokens(text: str) -> list[str]:
    """The folded, stemmed words of ``text``; currency signs read as one word, "¤money"."""
    out = []
    for t in _TOKEN.findall(fold(text)):
        out.append("¤money" if t in _MONEY else stem(t))
    return out


def months(text: str) -> frozenset[int]:
    """The months (1..12) ``text`` names, ranges included: "Spring (March–May)" is {3, 4, 5}."""
    if not text:
        return frozenset()
    found = {_MONTH_NUMBER[m] for m in _MONTH_NAME.findall(text)}
    if not found:
        return frozenset()
    for start, end in _MONTH_RANGE.findall(text):
        a, b = _MONTH_NUMBER[start], _MONTH_NUMBER[end]
        span = range(a, b + 1) if a <= b else [*range(a, 13), *range(1, b + 1)]
        found.update(span)
    return frozenset(found)


def section(heading: str, title: str = "") -> str:
    """The last part of a heading path ("Tokyo City Guide > Costs" -> "Costs"); "" when it is the title."""
    last = heading.rsplit(" > ", 1)[-1].strip()
    return "" if last == title else last


def split_passage(text: str, heading: str = "") -> list[Sentence]:
    """The quotable sentences of a chunk's ``text`` in order; list intros ("Rough daily ranges:") and
    fragments under three words are left out of the quotes but kept as their items' context."""
    body = text
    line, sep, rest = text.partition("\n\n")
    if sep and heading and line.strip() == heading.strip():
        body = rest
    out: list[Sentence] = []
    item = 0
    intro = ""  # a prose line ending in ":" introduces the list after it, blank line or not
    for paragraph in re.split(r"\n\s*\n", body):
        paragraph = " ".join(paragraph.split())
        if not paragraph:
            continue
        marks = list(_BULLET.finditer(paragraph))
        pieces = [(False, paragraph[: marks[0].start()] if marks else paragraph)]
        for i, m in enumerate(marks):
            end = marks[i + 1].start() if i + 1 < len(marks) else len(paragraph)
            pieces.append((True, paragraph[m.end() : end]))
        for bullet, piece in pieces:
            if not piece.strip():
                continue
            if not bullet:
                intro = ""
            found = _LABEL.match(piece)
            label = markdown_to_text(found.group(1)).rstrip(":").strip() if found else ""
            context = " ".join(x for x in (label, intro if bullet else "") if x)
            first = True
            for raw in _sentences(piece):
                plain = markdown_to_text(raw)
                if plain.endswith(":"):
                    intro = plain  # introduces the list that follows: context, not a quote
                    continue
                if len(plain.split()) < 3:
                    continue
                lead_in = intro if bullet else ""
                out.append(Sentence(plain, item, len(out), bullet, first, label, lead_in, context))
                first = False
            item += 1
    return out


def _sentences(text: str) -> list[str]:
    out, start = [], 0
    for m in _END.finditer(text):
        cut = m.end() - len(m.group()) + len(m.group().rstrip())
        out.append(text[start:cut].strip())
        start = m.end()
    out.append(text[start:].strip())
    return [s for s in out if s]
