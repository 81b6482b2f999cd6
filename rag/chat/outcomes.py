"""What an answer's tools did, and everything it may cite, numbered as a model's prompt numbers it. Pure.

``tool_results`` turns the tool outcomes into the composer's answers, the complete frame's tool calls and
the results shown; ``citable`` lists every item an answer may cite (passages, tool results, recalled
results) with its source (rag.chat.citations) and its text; ``recalled_items`` is each recalled result
as the answer lists it, saying where it came from.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from connectors.models import Result
from rag.chat.citations import Ref, document_source, label, live_source
from rag.chat.composer import ToolAnswer
from rag.chat.events import TYPED_RESULTS, ChatToolCall
from rag.chat.sentences import split_passage
from rag.dialogue.actions import PlannedCall
from rag.dialogue.trip import ToolRequest
from rag.errors import ToolValidationError, UnknownLocationError, WayfarerError
from rag.live.ingest import SANDBOX_NOTE
from rag.live.service import ToolOutcome
from rag.store.base import Hit
from rag.tools.catalog import ToolCatalogue

RESULTS_SHOWN = 5


@dataclass
class ToolResults:
    """What the tools did for one answer."""

    answers: list[ToolAnswer]  # for the composer, one per planned call
    tool_calls: list[ChatToolCall]  # for the complete answer
    results: list[list[Result]]  # the results shown, per answer
    made: list[str]  # the calls that went out (a follow-up changes those)

    def searched(self, calls: Sequence[PlannedCall]) -> tuple[ToolRequest, ...]:
        """The calls that went out, each with the identities of the results it showed."""
        shown = {a.name: a.ids for a in self.answers}
        return tuple(
            ToolRequest(name=c.name, params=c.params, shown=list(shown.get(c.name, [])) or None)
            for c in calls
            if c.name in self.made
        )


def tool_results(calls: Sequence[PlannedCall], outcomes: list[ToolOutcome | BaseException]) -> ToolResults:
    """A call the tool refused as invalid is not one that went out."""
    done = ToolResults([], [], [], [])
    for call, outcome in zip(calls, outcomes, strict=True):
        if isinstance(outcome, WayfarerError):
            done.answers.append(ToolAnswer(call.name, error=outcome.message, code=outcome.code))
            done.results.append([])
            done.tool_calls.append(
                ChatToolCall(
                    name=call.name,
                    params=call.params,
                    provider=None,
                    result_count=0,
                    from_index=False,
                    ingested=0,
                    error=outcome.code,
                    assumed=call.assumed,
                )
            )
            # Refused parameters never went out; a place the provider could not find did, and a
            # follow-up ("what about the 3rd?") changes that search. So does one the answer had no time
            # for (tool_not_started): it was asked for as much as one that timed out.
            if not isinstance(outcome, ToolValidationError) or isinstance(outcome, UnknownLocationError):
                done.made.append(call.name)
            continue
        if isinstance(outcome, BaseException):
            raise outcome
        shown = outcome.call.results[:RESULTS_SHOWN]
        done.answers.append(_answer(outcome, shown))
        done.results.append(shown)
        done.tool_calls.append(_tool_call(outcome, call.assumed, shown))
        done.made.append(call.name)
    return done


def _answer(o: ToolOutcome, shown: list[Result]) -> ToolAnswer:
    fetched = min((r.fetched_at for r in shown), default=None)
    return ToolAnswer(
        o.call.tool,
        [r.render() for r in shown],
        sandbox=o.call.sandbox,
        indicative=any(getattr(r, "indicative", False) for r in shown),
        from_index=o.from_index,
        fetched_at=fetched.strftime("%Y-%m-%d %H:%M UTC") if fetched else None,
        provider=o.call.provider,
        ids=[r.identity for r in shown],
        attribution=next((r.attribution for r in shown if r.attribution), None),
    )


def _tool_call(o: ToolOutcome, assumed: list[str], shown: list[Result]) -> ChatToolCall:
    typed = [r for r in shown if isinstance(r, TYPED_RESULTS)]
    return ChatToolCall(
        name=o.call.tool,
        params=o.call.params.model_dump(mode="json", exclude_none=True),
        provider=o.call.provider,
        sandbox=o.call.sandbox,
        result_count=len(o.call.results),
        from_index=o.from_index,
        ingested=o.ingesting,
        results=typed,
        result_ids=[r.identity for r in typed],
        assumed=assumed,
    )


@dataclass(frozen=True)
class Citable:
    """Every item an answer may cite: ``data`` in the order the model's prompt numbers them, each
    one's source (``catalog``) and its text (``excerpts``)."""

    data: list[Ref]
    catalog: dict[Ref, dict[str, Any]]
    excerpts: dict[Ref, str]


def citable(hits: list[Hit], done: ToolResults, recalled: list[Hit] | None) -> Citable:
    """Every item an answer may cite, in the order the model's prompt numbers them (rag.chat.generate
    render_data: passages, tool results, recalled results), with its source and its text."""
    data: list[Ref] = []
    catalog: dict[Ref, dict[str, Any]] = {}
    excerpts: dict[Ref, str] = {}
    for i, h in enumerate(hits):
        ref: Ref = ("passage", i, 0)
        data.append(ref)
        catalog[ref] = document_source(h.id, h.payload)
        excerpts[ref] = _quotable(str(h.payload.get("text", "")), str(h.payload.get("heading", "")))
    for t, results in enumerate(done.results):
        for r, result in enumerate(results):
            ref = ("result", t, r)
            data.append(ref)
            catalog[ref] = live_source(result)
            excerpts[ref] = result.render()
    for i, h in enumerate(recalled or []):
        ref = ("recalled", i, 0)
        data.append(ref)
        catalog[ref] = document_source(h.id, h.payload)
        excerpts[ref] = str(h.payload.get("text", ""))
    return Citable(data, catalog, excerpts)


def recalled_items(recalled: list[Hit] | None, lang: str, declared: ToolCatalogue) -> list[str] | None:
    """Each recalled result as the answer lists it: its text, then where it came from, in the words the
    Sources line gives a result found now ("flight offer, duffel, fetched 2026-11-25 22:03 UTC, sandbox
    data"). A recalled result is not fresh from the provider, so each says so itself."""
    if recalled is None:
        return None
    items = []
    for h in recalled:
        text = str(h.payload.get("text", "")).removesuffix(SANDBOX_NOTE)  # the label says it
        items.append(f"{text} ({label(lang, document_source(h.id, h.payload), declared)})")
    return items


@functools.lru_cache(maxsize=1024)
def _quotable(text: str, heading: str) -> str:
    """A passage as a model's citation shows it: its sentences without the heading line or Markdown;
    cached, as the same passages come back in message after message."""
    body = " ".join(s.text for s in split_passage(text, heading))
    return body if len(body) <= 400 else body[:399].rsplit(" ", 1)[0] + "…"
