"""One numbering for what an answer cites. Pure.

The [n] in the answer's text, in its Sources line, in the complete frame's ``sources`` and on the page
are one and the same: ``sources[k]`` carries ``"n": k + 1`` for the composer (numbers follow the text),
and the data's own numbers for a model's answer (its prompt numbers the data; rag.chat.generate).
Each source says what a person needs to check it: a guide's title and section; a live result's
provider, fetch time, and whether it is sandbox or indicative data.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from connectors.models import Result
from rag.chat.sentences import escape_markdown, section
from rag.i18n import message
from rag.tools.catalog import ToolCatalogue

Ref = tuple[str, int, int]  # ("passage", i, 0) | ("result", tool_i, result_i) | ("recalled", i, 0)

_CITATION = re.compile(r"\[(\d{1,3})\]")
TITLE_CHARS = 100


def shorten(text: str, limit: int = TITLE_CHARS) -> str:
    """``text`` on one line in at most ``limit`` characters: whole if it fits, else cut at its last word
    boundary with "…", since a title cut mid-word reads as a typo. Only when no boundary falls in the
    second half (one very long word) is a word cut, so the title still says something. The "…" always
    follows a word: what is kept never ends in punctuation or a separator ("KL1389).…", "Roma, —…")."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    space = text.rfind(" ", 0, limit)  # the kept text ends before it, leaving room for the "…"
    cuts = ([text[:space]] if space >= limit // 2 else []) + [text[: limit - 1]]
    for kept in cuts:
        end = len(kept)
        while end and _dangles(kept[end - 1]):
            end -= 1
        if end:
            return kept[:end] + "…"
    return "…"  # nothing but punctuation


def _dangles(char: str) -> bool:
    """Whether a cut title may not end on ``char``: a space, punctuation (",", ".", ")", "—", "…"), or a
    separator symbol ("→", "|", "+", "=")."""
    kind = unicodedata.category(char)
    return char.isspace() or kind[0] == "P" or kind == "Sm"


def document_source(point_id: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """A passage from the index: a guide's (title, section) or a live result ingested earlier."""
    if payload.get("source") == "live":
        return {
            "id": str(payload.get("identity", point_id)),
            "kind": str(payload.get("kind", "live")),
            "title": shorten(str(payload.get("text", ""))),
            "section": None,
            "source": "live",
            "provider": payload.get("provider"),
            "fetched_at": payload.get("fetched_at_iso"),
            "sandbox": bool(payload.get("sandbox", False)),
            "indicative": bool(payload.get("indicative", False)),
            "attribution": payload.get("attribution"),
        }
    return {
        "id": str(payload.get("document_id", point_id)),
        "kind": "document",
        "title": str(payload.get("title", "")),
        "section": section(str(payload.get("heading", "")), str(payload.get("title", ""))) or None,
        "source": str(payload.get("source", "")),
        "provider": None,
        "fetched_at": None,
        "sandbox": False,
        "indicative": False,
        "attribution": None,
    }


def live_source(result: Result) -> dict[str, Any]:
    """A result a tool returned for this answer."""
    return {
        "id": result.identity,
        "kind": result.kind,
        "title": shorten(result.render()),
        "section": None,
        "source": "live",
        "provider": result.provider,
        "fetched_at": result.fetched_at.isoformat(),
        "sandbox": result.sandbox,
        "indicative": bool(getattr(result, "indicative", False)),
        "attribution": result.attribution,
    }


def numbered(
    cited: Sequence[tuple[int, Ref, str]], catalog: Mapping[Ref, dict[str, Any]]
) -> list[dict[str, Any]]:
    """``(n, ref, excerpt)`` triples as the complete frame's sources, by number; unknown refs are left out."""
    out = [{"n": n, **catalog[ref], "excerpt": excerpt} for n, ref, excerpt in cited if ref in catalog]
    return sorted(out, key=lambda s: s["n"])


def sources_line(lang: str, sources: Sequence[Mapping[str, Any]], tools: ToolCatalogue) -> str:
    """The answer's last line: "Sources: [1] Tokyo City Guide — Best time to visit; [2] ..."."""
    listed = "; ".join(f"[{s['n']}] {escape_markdown(label(lang, s, tools))}" for s in sources)
    return message(lang, "sources", sources=listed)


def label(lang: str, source: Mapping[str, Any], tools: ToolCatalogue) -> str:
    """How the Sources line names a source, in the words the composer uses: a guide's "Title — Section";
    a live result's "<result kind>, <provider>, fetched <time>[, sandbox data][, indicative price]"."""
    if source.get("kind") == "document":
        title, head = str(source.get("title") or ""), str(source.get("section") or "")
        if title and head:
            return f"{title} — {head}"
        return title or head or str(source.get("id", ""))
    at = str(source["fetched_at"])[:16].replace("T", " ") + " UTC" if source.get("fetched_at") else None
    return live_label(
        lang,
        tools.result_label(str(source.get("kind", "")), lang),
        source.get("provider"),
        at,
        sandbox=bool(source.get("sandbox")),
        indicative=bool(source.get("indicative")),
        attribution=source.get("attribution"),
    )


def live_label(
    lang: str,
    result: str,
    provider: str | None,
    at: str | None,
    *,
    sandbox: bool = False,
    indicative: bool = False,
    attribution: str | None = None,
) -> str:
    """ "<result>, <provider>, fetched <at>[, sandbox data][, indicative price][, <attribution>]":
    ``result`` names one result ("flight offer"); the attribution is what the provider's terms ask an
    answer to carry (Open-Meteo's licence)."""
    parts = [result]
    if provider:
        parts.append(provider)
    if at:
        parts.append(message(lang, "source_fetched", at=at))
    if sandbox:
        parts.append(message(lang, "source_sandbox"))
    if indicative:
        parts.append(message(lang, "source_indicative"))
    if attribution:
        parts.append(attribution)
    return ", ".join(parts)


def cited_numbers(text: str) -> list[int]:
    """The [n] a text cites, in order of first appearance."""
    return list(dict.fromkeys(int(m.group(1)) for m in _CITATION.finditer(text)))


def cite_written(
    text: str, data: Sequence[Ref], catalog: Mapping[Ref, dict[str, Any]], excerpts: Mapping[Ref, str]
) -> tuple[list[dict[str, Any]], int]:
    """A model's answer's sources: the data items its [n] cite, numbered as its prompt numbered them
    (rag.chat.generate render_data), and how many of its numbers point at nothing."""
    cited = cited_numbers(text)
    real = [n for n in cited if 1 <= n <= len(data)]
    sources = numbered([(n, data[n - 1], excerpts.get(data[n - 1], "")) for n in real], catalog)
    return sources, len(cited) - len(real)
