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
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

from rag.chat.citations import Ref, cite_written, numbered, sources_line
from rag.chat.composer import (
    Answer,
    Passage,
    ToolAnswer,
    chunks,
    compose,
    passage_from_payload,
)
from rag.chat.focus import search_text
from rag.chat.outcomes import Citable, ToolResults, citable, recalled_items
from rag.dialogue.actions import (
    Action,
    Ask,
    Compare,
    Guide,
    NoGuide,
    Plan,
    PlannedCall,
    Recall,
    Reply,
    Search,
    calls_of,
    waiting_of,
)
from rag.dialogue.forecast import Climate
from rag.dialogue.policy import Decision
from rag.dialogue.trip import TripState
from rag.errors import ProviderTimeoutError, ToolNotStartedError
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
    """A message read in its conversation: what the router found in it (``decision``), what the policy
    decided to do (``decided``: one action, rag.dialogue.policy), and the trip it leaves (``trip``).
    ``guides``: the guides of the places it may be about (``norm`` name -> document id)."""

    text: str
    today: dt.date
    decision: RouteDecision
    decided: Decision
    trip: TripState
    guides: Mapping[str, str]

    @property
    def action(self) -> Action:
        return self.decided.action

    @property
    def lang(self) -> str:
        return self.decision.lang

    @property
    def calls(self) -> tuple[PlannedCall, ...]:
        return calls_of(self.action)

    @property
    def clarify(self) -> str | None:
        return " ".join(self.action.said.questions) or None

    @property
    def notes(self) -> tuple[str, ...]:
        return self.action.said.notes

    @property
    def climate(self) -> Climate | None:
        action = self.action
        return action.climate if isinstance(action, Search | Ask | Guide) else None

    @property
    def preface(self) -> str | None:
        """Said before the answer: what was taken from the conversation, so the traveller sees it at once."""
        note = self.action.said.assumed
        return note + "\n\n" if note else None

    @property
    def places(self) -> list[str]:
        """The places the answer is about, as the guides name them."""
        action = self.action
        if isinstance(action, Guide | Plan | NoGuide):
            return [action.city]
        if isinstance(action, Compare):
            return list(action.places)
        return []

    @property
    def compare(self) -> bool:
        return isinstance(self.action, Compare)

    @property
    def days(self) -> int | None:
        return self.action.days if isinstance(self.action, Plan) else None

    @property
    def query(self) -> str:
        """What the guides are searched and quoted for: the message with its places as the guides
        name them, or the guides' climate for a month beyond the forecast."""
        climate = self.climate
        return climate.query if climate else search_text(self.text, self.decision.slots)


def route_json(turn: Turn) -> dict[str, Any]:
    """What the chat would do, as /v1/route answers it: the action, the calls and what is asked."""
    action = turn.action
    out: dict[str, Any] = {
        "use_rag": turn.decision.use_rag,
        "tools": [c.to_json() for c in turn.calls],
        "missing": waiting_of(action),
        "action": action_json(action),
        # What the router read in the message, before the policy weighed it against the conversation.
        "understood": {
            "tools": sorted(turn.decision.intended),
            "keywords": sorted(turn.decision.keywords),
        },
    }
    if isinstance(action, Search | Ask) and action.followup:
        out["followup"] = True
    if turn.clarify:
        out["clarify"] = turn.clarify
    if action.said.assumed:
        out["assumed"] = action.said.assumed
    if turn.notes:
        out["notes"] = list(turn.notes)
    if turn.climate:
        out["climate"] = turn.climate.to_json()
        if turn.climate.tool:
            out["later"] = [turn.climate.tool]  # asked for, but its days are beyond its reach
    return out


def action_json(action: Action) -> dict[str, Any]:
    """The action's kind, why it was chosen, and what it is about."""
    out: dict[str, Any] = {"kind": action.kind, "why": action.said.why}
    if isinstance(action, Guide | Plan | NoGuide):
        out["city"] = action.city
    if isinstance(action, Guide) and action.topics:
        out["topics"] = list(action.topics)
    if isinstance(action, Plan):
        out["days"] = action.days
    if isinstance(action, Compare):
        out["places"] = list(action.places)
    if isinstance(action, Recall):
        out["tool"] = action.tool
        if action.pick is not None:
            out["pick"] = action.pick
    if isinstance(action, Reply):
        out["reply"] = action.social
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
    """Each call's outcome or error, in order, within ``budget`` seconds (what is left of the chat's
    ``deadline``), so one stalled provider cannot hold the answer. A call whose provider was still
    working then is cancelled and answers ProviderTimeoutError; one that never reached its provider
    (the budget spent before the tools' turn, or on the way to the provider) answers
    ToolNotStartedError: the answer ran out of time, not the provider."""
    if not calls:
        return []
    if budget is not None and budget <= 0:
        logger.warning("chat: the %s s answer deadline was spent before the tools %s", deadline, list(calls))
        return [_not_started(name, deadline) for name in calls]
    started = {name: asyncio.Event() for name in calls}
    tasks = [
        asyncio.create_task(
            tools.call(name, params, user_id, today=today, started=started[name]), name=f"chat-tool-{name}"
        )
        for name, params in calls.items()
    ]
    try:
        _, late = await asyncio.wait(tasks, timeout=budget)
    finally:
        for task in tasks:
            task.cancel()  # a no-op for finished ones; also when this message itself is cancelled
    if late:
        await asyncio.gather(*late, return_exceptions=True)
    outcomes: list[ToolOutcome | BaseException] = []
    for name, task in zip(calls, tasks, strict=True):
        if task in late and not started[name].is_set():
            logger.warning("chat: %s was not started within the %s s answer deadline", name, deadline)
            outcomes.append(_not_started(name, deadline))
        elif task in late:
            logger.warning("chat: %s did not finish within the %s s answer deadline", name, deadline)
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


def _not_started(name: str, deadline: float | None) -> ToolNotStartedError:
    spent = f"{deadline:g} s" if deadline is not None else "time"
    return ToolNotStartedError(f"{name} was not called: the answer's {spent} ran out before its turn came")


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
    answer = compose(turn.action, turn.query, passages, done.answers, recalled, turn.lang, declared=declared)
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
        *([turn.clarify] if turn.clarify else []),
        *([sources_line(turn.lang, sources, declared)] if sources else []),
    ]
    return sources, unresolved, ("\n" + "\n".join(lines)) if lines else ""


async def prefaced(preface: str | None, pieces: AsyncIterator[str]) -> AsyncIterator[str]:
    """The ``preface`` (if any), then the answer's ``pieces`` as they come."""
    if preface:
        yield preface
    async for piece in pieces:
        yield piece
