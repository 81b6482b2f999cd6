"""The steps of one chat message, each a value or a function that can be tried on its own.

rag.chat.service runs them in order: ``read_message``; the turn read in its conversation (``Turn``:
the router's decision and the plan); search and recall (``Found``; rag.chat.search); the tools called
(``call_tools``, then rag.chat.outcomes ``tool_results``); the answer composed (``compose_answer``: a
``Draft``) or written by a model (then ``model_sources`` cites what it said); streamed; saved.
``route_json`` is the turn as /v1/route answers it, for a preview that calls nothing.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from rag.chat.citations import Ref, cite_written, numbered, sources_line
from rag.chat.composer import (
    Answer,
    Passage,
    ToolAnswer,
    chunks,
    compose,
    is_comparison,
    passage_from_payload,
)
from rag.chat.focus import search_text
from rag.chat.outcomes import Citable, ToolResults, citable, recalled_items
from rag.chat.sections import trip_days
from rag.dialogue.plan import Plan
from rag.errors import ProviderTimeoutError
from rag.live.service import ToolOutcome, ToolService
from rag.routing.router import RouteDecision
from rag.store.base import Hit
from rag.tools.catalog import ToolCatalogue

logger = logging.getLogger(__name__)

Source = dict[str, Any]  # one cited item, as rag.chat.citations numbers it (rag.chat.events ChatSource)


def read_message(text: str) -> str:
    """The message as the chat reads and keeps it: its words, one space apart. The web's validators
    (rag.web.schemas) have checked its length and that it says something."""
    return " ".join(text.split())


class Stopwatch:
    """How long each step of one message took, in ms, into ``timings``; ``left`` is what remains of a
    deadline counted from the message's arrival."""

    def __init__(self, timings: dict[str, float]) -> None:
        self._timings = timings
        self._start = self._last = time.perf_counter()

    def mark(self, step: str) -> None:
        now = time.perf_counter()
        self._timings[step] = round((now - self._last) * 1000, 2)
        self._last = now

    def left(self, deadline: float | None) -> float | None:
        return None if deadline is None else max(0.0, deadline - (time.perf_counter() - self._start))


@dataclass(frozen=True)
class Turn:
    """A message read in its conversation: what it asks (the router's ``decision``) and what the chat
    does about it (the ``planned`` calls and questions, and the trip they leave)."""

    text: str
    today: dt.date
    decision: RouteDecision
    planned: Plan
    places: list[str]  # the places it asks about, as the guides name them (else the trip's)
    compare: bool  # a comparison of places ("Lisbon or Porto?"), when it calls and awaits nothing

    @classmethod
    def read(cls, text: str, today: dt.date, decision: RouteDecision, planned: Plan) -> Turn:
        places = place_names(decision, planned)
        compare = not planned.calls and not planned.waiting and is_comparison(text, places)
        return cls(text, today, decision, planned, places, compare)

    @property
    def lang(self) -> str:
        return self.decision.lang

    @property
    def preface(self) -> str | None:
        """Said before the answer: what was taken from the conversation, so the traveller sees it at once."""
        note = self.planned.assumed_note
        return note + "\n\n" if note else None

    @property
    def query(self) -> str:
        """What the guides are searched and quoted for: the message with its places as the guides
        name them, or the guides' climate for a month beyond the forecast."""
        climate = self.planned.climate
        return climate.query if climate else search_text(self.text, self.decision.slots)


def place_names(decision: RouteDecision, planned: Plan) -> list[str]:
    """The places the message asks about, as the guides name them; else the conversation's. A name
    no catalogue knows ("Grimsby-on-the-Wold") is one: no other city's guide answers for it."""
    names = [p.place.city_name for p in decision.slots.places] if decision.slots is not None else []
    names += decision.unknown_places
    if not names and planned.trip.destination_name:
        names = [planned.trip.destination_name]
    return list(dict.fromkeys(n for n in names if n))


def route_json(turn: Turn) -> dict[str, Any]:
    """What the chat would call and ask, as /v1/route answers it."""
    planned = turn.planned
    out: dict[str, Any] = {
        "use_rag": turn.decision.use_rag,
        "tools": [c.to_json() for c in planned.calls],
        "missing": planned.waiting,
    }
    if planned.followup:
        out["followup"] = True
    if planned.clarify:
        out["clarify"] = planned.clarify
    if planned.assumed_note:
        out["assumed"] = planned.assumed_note
    if planned.notes:
        out["notes"] = planned.notes
    if planned.climate:
        out["climate"] = planned.climate.to_json()
    return out


@dataclass(frozen=True)
class Found:
    """What the search and the recall found for a turn."""

    hits: list[Hit]  # the guides' passages, read whole where one place is asked about
    recalled: list[Hit] | None  # earlier results a "what did you find?" asks about; None: it asks none


async def call_tools(
    tools: ToolService,
    calls: dict[str, Any],
    user_id: str,
    today: dt.date,
    budget: float | None,
    deadline: float | None = None,
) -> list[ToolOutcome | BaseException]:
    """Each call's outcome or error, in order; calls still running after ``budget`` seconds are
    cancelled and answer ProviderTimeoutError (naming the chat's ``deadline``), so one stalled provider
    cannot hold the answer."""
    tasks = [
        asyncio.create_task(tools.call(name, params, user_id, today=today), name=f"chat-tool-{name}")
        for name, params in calls.items()
    ]
    if not tasks:
        return []
    try:
        _, late = await asyncio.wait(tasks, timeout=budget)
    finally:
        for task in tasks:
            task.cancel()  # a no-op for finished ones; also when this message itself is cancelled
    if late:
        await asyncio.gather(*late, return_exceptions=True)
    outcomes: list[ToolOutcome | BaseException] = []
    for name, task in zip(calls, tasks, strict=True):
        if task in late:
            logger.warning("chat: %s did not finish within the %g s answer deadline", name, budget)
            outcomes.append(
                ProviderTimeoutError(f"{name} timed out: no answer within the chat's {deadline:g} s")
            )
        elif task.cancelled():
            outcomes.append(asyncio.CancelledError())
        elif (exc := task.exception()) is not None:
            outcomes.append(exc)
        else:
            outcomes.append(task.result())
    return outcomes


@dataclass(frozen=True)
class Draft:
    """The composer's answer, and what a model writing the answer instead is given and may cite."""

    answer: Answer
    sources: list[Source]  # the composer's citations, numbered as its text numbers them
    passages: list[Passage]
    tool_answers: list[ToolAnswer]
    recalled: list[str] | None  # each recalled result as the answer lists it
    citable: Citable

    async def pieces(self) -> AsyncIterator[str]:
        """The composed answer, in pieces as it is streamed."""
        for piece in chunks(self.answer.text):
            yield piece


def compose_answer(turn: Turn, found: Found, done: ToolResults, declared: ToolCatalogue) -> Draft:
    """The answer from the guides' passages, the tools' results and the recalled ones, with its sources."""
    passages = [passage_from_payload(h.id, h.payload) for h in found.hits]
    recalled = recalled_items(found.recalled, turn.lang, declared)
    cited = citable(found.hits, done, found.recalled)
    answer = compose(
        turn.query,
        passages,
        done.answers,
        turn.planned.clarify,
        recalled,
        turn.lang,
        places=turn.places,
        compare=turn.compare,
        notes=turn.planned.notes,
        declared=declared,
        days=None if turn.planned.calls else trip_days(turn.text),
    )
    refs: list[tuple[int, Ref, str]] = [(k + 1, c.ref, c.excerpt) for k, c in enumerate(answer.citations)]
    return Draft(answer, numbered(refs, cited.catalog), passages, done.answers, recalled, cited)


def model_sources(
    said: str, turn: Turn, draft: Draft, declared: ToolCatalogue
) -> tuple[list[Source], int, str]:
    """A model's answer's sources (what its [n] cite, numbered as its prompt numbered the data), how
    many of its numbers cite nothing, and the lines said after it: the plan's questions and the
    Sources line ("" when there are none)."""
    cited = draft.citable
    sources, unresolved = cite_written(said, cited.data, cited.catalog, cited.excerpts)
    lines = [
        *([turn.planned.clarify] if turn.planned.clarify else []),
        *([sources_line(turn.lang, sources, declared)] if sources else []),
    ]
    return sources, unresolved, ("\n" + "\n".join(lines)) if lines else ""


async def prefaced(preface: str | None, pieces: AsyncIterator[str]) -> AsyncIterator[str]:
    """The ``preface`` (if any), then the answer's ``pieces`` as they come."""
    if preface:
        yield preface
    async for piece in pieces:
        yield piece
