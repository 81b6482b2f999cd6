"""Answers made of the tools' results: searches made (their results, cited, with the notices they
need), results shown before and asked about again, and the tool blocks other answers carry. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from rag.chat.citations import live_label
from rag.chat.quoting import Answer, Citations, ToolAnswer, finish
from rag.chat.sentences import escape_markdown
from rag.dialogue.actions import Recall
from rag.i18n import message, phrases
from rag.tools.catalog import ToolCatalogue


def results_answer(
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
    blocks += tool_blocks(lang, tools, cites, declared)
    if any(t.sandbox for t in found):
        blocks.append(message(lang, "sandbox_notice"))
    if any(t.indicative for t in found):
        blocks.append(message(lang, "indicative_notice"))
    return finish(lang, blocks, notes, clarify, cites)


def recalled_answer(
    lang: str, action: Recall, recalled: Sequence[str], declared: ToolCatalogue, clarify: str | None
) -> Answer:
    """Results shown before, the one the traveller picks first."""
    cites = Citations()
    if not recalled:
        return finish(lang, [message(lang, "lead_recalled_none")], (), clarify, cites)
    label = message(lang, "source_recalled")
    lines = []
    for i, r in enumerate(recalled):
        n = cites.cite(("recalled", i), ("recalled", i, 0), r, label)
        lines.append(f"- {escape_markdown(r)} [{n}]")
    return finish(lang, [message(lang, "lead_recalled"), "\n".join(lines)], (), clarify, cites)


def tool_blocks(lang: str, tools: Sequence[ToolAnswer], cites: Citations, known: ToolCatalogue) -> list[str]:
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


def _error(lang: str, t: ToolAnswer) -> str:
    """The tool's own message in English; elsewhere the phrase for its code, if there is one.

    The message may quote a provider's words (cleaned and capped where the error was built): escaped like
    a result, so a link or an image in it is shown as the text it is."""
    if lang != "en" and t.code and f"error.{t.code}" in phrases().get(lang, {}):
        return message(lang, f"error.{t.code}")
    return escape_markdown(t.error or "")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
