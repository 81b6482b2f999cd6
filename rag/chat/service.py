"""One chat message, end to end, as a pipeline of named steps (rag.chat.steps): the message read, the
question saved, the turn read in its conversation (routed and planned), search and recall, the tools
called, the answer composed or written by a model, streamed, and saved. ``respond`` yields typed frames
(rag.chat.events); ``preview`` reads a turn as /v1/route answers it, and calls and stores nothing.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any
from zoneinfo import ZoneInfo

from connectors.places import LocationCatalogue, Place
from rag.chat.admission import Admission, Slot
from rag.chat.answers import finish
from rag.chat.events import ChatAnswer, ChatEvent, WsChunk, WsProgress
from rag.chat.generate import LLMWriter, render_data
from rag.chat.outcomes import ToolResults, tool_results
from rag.chat.reading import ParamsCheck, asked_about, nearby, picked, read_question_of, recall_about
from rag.chat.search import GuideSearch
from rag.chat.sessions import MAIN, Conversation, SessionStore, conversation_key
from rag.chat.steps import (
    Draft,
    Found,
    Source,
    Stopwatch,
    Turn,
    call_tools,
    compose_answer,
    model_sources,
    prefaced,
    read_message,
    route_json,
)
from rag.dialogue.actions import Recall
from rag.dialogue.context import asked_slots, describe_state
from rag.dialogue.events import Searched, reduce
from rag.dialogue.plan_types import ToolSpecs
from rag.dialogue.policy import Known, decide
from rag.dialogue.settle import Check
from rag.dialogue.trip import TripState
from rag.dialogue.understand import understand
from rag.errors import WayfarerError
from rag.i18n import message
from rag.limits.callers import CallerLimits
from rag.live.service import ToolService
from rag.observability.metrics import Metrics
from rag.retrieval.service import Retriever
from rag.routing.decision import RouteDecision
from rag.routing.router import Router
from rag.store.base import Hit

logger = logging.getLogger(__name__)


class ChatService:
    def __init__(
        self,
        sessions: SessionStore,
        router: Router,
        retriever: Retriever,
        tools: ToolService,
        *,
        max_message_chars: int = 2000,
        passages: int = 3,
        chunks_per_passage: int = 3,
        writer: LLMWriter | None = None,
        limits: CallerLimits | None = None,
        metrics: Metrics | None = None,
        deadline_seconds: float | None = None,
        today: Callable[[], dt.date] | None = None,
        timezone: str = "UTC",
        grounding: bool = True,
        admission: Admission | None = None,
    ) -> None:
        """``deadline_seconds`` bounds the tools of one answer, counted from the message's arrival.
        ``admission``: how many messages and route previews are worked on at once (up to their tool
        calls), and how long one may wait for its turn (rag.chat.admission); none, no limit.
        ``today``: a fixed date for the travellers (tests), else today in the traveller's ``timezone``
        (a message's own, else this default); past dates are asked about. ``grounding``: passages only from
        the conversation's places (evaluations switch it off to compare). ``max_message_chars`` is not
        checked again here: the web's validators (rag.web.schemas) refuse a longer message first."""
        self._fixed_today = today
        self._zone = ZoneInfo(timezone)
        self.grounding = grounding
        self._specs = ToolSpecs(router.config.tools, router.tools)
        self._deadline = deadline_seconds
        self._admission = admission or Admission(0, 0)
        self._writer = writer
        self._limits = limits
        self._metrics = metrics or Metrics()
        self.sessions = sessions
        self._router = router
        self._retriever = retriever
        self._tools = tools
        self._search = GuideSearch(retriever, passages, chunks_per_passage)

    async def respond(
        self,
        user_id: str,
        text: str,
        *,
        conversation: str | None = None,
        answer_id: str | None = None,
        timezone: str | None = None,
        address: str | None = None,
    ) -> AsyncIterator[ChatEvent]:
        """Chunk events as the answer is produced, then the complete answer with sources and tool calls.

        ``conversation`` is which of the user's conversations (rag.chat.sessions; none: the main one);
        ``answer_id`` names the answer in the history (for resume); ``timezone`` is the traveller's IANA
        zone, what "today" and "this weekend" mean; ``address`` the client's, which the rate limits count
        besides the user (rag.limits). Logs one structured line per message with its timings, and counts
        it in the metrics. Cancelled, even before its question is saved, it saves the question and what
        was said as a stopped turn.
        """
        start = time.perf_counter()
        log: dict[str, Any] = {
            "user": hashlib.sha256(user_id.encode()).hexdigest()[:12],  # not the id itself
            "chars": len(text),
            "timings_ms": {},
        }
        outcome = "cancelled"
        try:
            conv = Conversation(user_id, conversation or MAIN)
            async for event in self._respond(conv, text, answer_id, timezone, address, log):
                if isinstance(event, ChatAnswer):
                    complete = time.perf_counter() - start
                    self._metrics.chat_complete_seconds.observe(complete)
                    log["timings_ms"]["complete"] = round(complete * 1000, 1)
                    log["tools"] = {
                        c.name: c.error or ("index" if c.from_index else "provider") for c in event.tool_calls
                    }
                    log["sources"] = len(event.sources)
                elif isinstance(event, WsChunk) and "first_chunk" not in log["timings_ms"]:
                    first = time.perf_counter() - start
                    self._metrics.chat_first_chunk_seconds.observe(first)
                    log["timings_ms"]["first_chunk"] = round(first * 1000, 1)
                yield event
            outcome = "ok"
        except WayfarerError as exc:
            outcome = exc.code
            raise
        except asyncio.CancelledError:
            raise
        except Exception:
            outcome = "internal_error"
            raise
        finally:
            self._metrics.chat_messages.labels(outcome).inc()
            log["outcome"] = outcome
            logger.info("chat message", extra={"chat": log})

    async def _respond(
        self,
        conv: Conversation,
        text: str,
        answer_id: str | None,
        timezone: str | None,
        address: str | None,
        log: dict[str, Any],
    ) -> AsyncIterator[ChatEvent]:
        clock = Stopwatch(log["timings_ms"])
        text = read_message(text)
        said: list[str] = []
        asked: asyncio.Future[int] | None = None  # the question being saved; then its answer's place
        slot: Slot | None = None
        try:  # from the first wait on, so a cancel however early still saves the turn
            slot = await self._admission.acquire()  # overloaded: refused, like rate_limited, unsaved
            clock.mark("admission")
            if self._limits is not None:
                await self._limits.check("chat", conv.user, address)
            today = self.today(timezone)
            # The question is written to the history while the message is read, not before: the store's
            # write and the model's work overlap.
            asked = asyncio.ensure_future(self._ask(conv, text, answer_id))
            asked.add_done_callback(lambda done: done.cancelled() or done.exception())  # if reading fails
            vector = await self._retriever.embed(text)  # one embedding serves retrieval and routing
            clock.mark("embed")
            turn = await self.read_turn(conv.key, text, today, vector)
            log["action"], log["why"] = turn.action.kind, turn.decided.why  # "why did it ask that?"
            clock.mark("route")
            found = await self.find(turn, vector, conv.user)
            clock.mark("search")
            slot.release()  # the rest waits on providers (and a model), not on this process's cores
            await finish(asked)
            place = asked.result()
            clock.mark("saved")  # the question in the history (what of its write the reading left)
            for call in turn.calls:
                yield WsProgress(type="progress", tool=call.name, text=self._searching(turn, call.name))
            done = await self.call_tools(turn, conv, clock.left(self._deadline))
            clock.mark("tools")
            draft = compose_answer(turn, found, done, self._specs.declared)
            clock.mark("compose")
            written = await self.write(turn, conv.key, draft, clock)  # None: the composer's answer
            async for piece in prefaced(turn.preface, written or draft.pieces()):
                said.append(piece)
                yield _chunk(piece)
            sources = draft.sources
            if written is not None:
                sources, tail = self._model_sources("".join(said), turn, draft)
                if tail:
                    said.append(tail)
                    yield _chunk(tail)
            clock.mark("answer")
        except asyncio.CancelledError:
            await finish(self._save_stopped(conv, text, answer_id, asked, "".join(said)))
            raise
        finally:
            if slot is not None:
                slot.release()
        answer = ChatAnswer(
            type="response",
            id=answer_id or None,
            text="".join(said),
            complete=True,
            sources=sources,
            tool_calls=done.tool_calls,
        )
        await self.save(conv.key, place, answer)
        yield answer

    async def _ask(self, conv: Conversation, text: str, answer_id: str | None) -> int:
        """The question in its conversation's history (and, its first, the conversation in the user's
        list); returns the place its answer is to take."""
        place = await self.sessions.ask(conv.key, text, **_with_id(answer_id))
        # Its first turn starts a conversation; the main one is listed from its history, as it was
        # before conversations were listed (and costs clients that name none nothing more).
        if place == 1 and conv.conversation != MAIN:
            await self.sessions.started(conv.user, conv.conversation, text)
        return place

    async def _save_stopped(
        self,
        conv: Conversation,
        text: str,
        answer_id: str | None,
        asked: asyncio.Future[int] | None,
        said: str,
    ) -> None:
        """A stopped turn: the question (unless ``asked`` saves it: once it has) and what was said of
        the answer."""
        place = await asked if asked is not None else await self._ask(conv, text, answer_id)
        await self.sessions.answer(conv.key, place, said, cancelled=True, **_with_id(answer_id))

    async def read_turn(
        self, key: str | None, text: str, today: dt.date, vector: list[float] | None = None
    ) -> Turn:
        """``text`` read in the conversation stored under ``key`` (rag.chat.sessions.conversation_key; a
        new one without it): routed (with its
        embedding, when there is one), read, and decided by the dialogue's policy against the trip.
        Nothing is called and nothing is stored."""
        trip = await self.sessions.trip(key) if key is not None else TripState()
        here = self._router.catalogue.resolve(trip.destination) if trip.destination else None
        decision = await self._router.route(
            text,
            vector,
            country=here.country_code if here else None,
            near=here.city_code if here else None,
            today=today,
            context=describe_state(trip, self._specs),
            asked=asked_slots(trip, self._specs),
            anchor=trip.start_date,
            lang=trip.lang,
        )
        places = _places(decision, trip)
        guides = await self._search.guides()
        understood = understand(
            decision, self._specs.declared, **read_question_of(text, places, decision.slots)
        )
        near = nearby(_mentioned(decision, trip, self._router.catalogue), guides, self._router.catalogue)
        known = Known(self._specs, today, frozenset(guides), self._checker(today), near)
        decided = decide(trip, understood, known)
        logger.debug("decided %s: %s", decided.action.kind, decided.why)
        return Turn(text, today, decision, decided, reduce(trip, decided.events), guides)

    async def find(self, turn: Turn, vector: list[float], user_id: str) -> Found:
        """Search and recall at once: the guides' passages the action answers from, and the earlier
        results a recall reads back."""
        hits, recalled = await asyncio.gather(
            self._search.find(turn, vector, user_id, grounding=self.grounding), self._recall(turn, user_id)
        )
        return Found(hits, recalled)

    async def _recall(self, turn: Turn, user_id: str) -> list[Hit] | None:
        action = turn.action
        if not isinstance(action, Recall):
            return None
        spec = self._specs.declared.get(action.tool) if action.tool else None
        kinds = [spec.kind] if spec is not None else [s.kind for s in self._specs.declared.values()]
        if action.named:  # the results of any search about the places and days the message names
            about = asked_about(turn.decision.slots)
            return await self._tools.recall_shown(user_id, kinds, (), about=about)
        route = self._specs.routes.get(action.tool) if action.tool else None
        about = recall_about(action.params, route, self._router.catalogue)
        hits = await self._tools.recall_shown(user_id, kinds, action.shown, about=about)
        return picked(hits, action.pick)

    async def call_tools(self, turn: Turn, conv: Conversation, budget: float | None) -> ToolResults:
        """The action's calls, made within ``budget`` seconds for ``conv``'s user; the conversation's trip
        remembers the ones that went out and what they showed."""
        calls = {c.name: c.params for c in turn.calls}
        outcomes = await call_tools(self._tools, calls, conv.user, turn.today, budget, self._deadline)
        done = tool_results(turn.calls, outcomes)
        searched = done.searched(turn.calls)
        await self.sessions.save_trip(
            conv.key, reduce(turn.trip, [Searched(searched)]) if searched else turn.trip
        )
        return done

    async def write(
        self, turn: Turn, key: str, draft: Draft, clock: Stopwatch | None = None
    ) -> AsyncIterator[str] | None:
        """The model's answer as it streams, or None (then the composer answers) when no model is
        configured or it fails before its first piece. A failure later ends the answer with a note
        rather than losing what was said."""
        if self._writer is None:
            return None
        trip = turn.trip.model_dump(
            mode="json", exclude_none=True, exclude={"last_calls", "pending", "searches", "turn", "lang"}
        )
        data = render_data(draft.passages, draft.tool_answers, draft.recalled)
        system = self._writer.system_prompt(trip, data, turn.lang, turn.today)
        pieces = self._writer.stream(system, await self.sessions.history(key))
        try:
            first = await anext(pieces)
        except (Exception, StopAsyncIteration) as exc:  # timeouts, HTTP errors, empty answers
            logger.warning(
                "LLM answer failed (%s: %s); using the extractive composer", type(exc).__name__, exc
            )
            return None
        finally:
            if clock is not None:
                clock.mark("llm_first_piece")

        async def rest() -> AsyncIterator[str]:
            yield first
            try:
                async for piece in pieces:
                    yield piece
            except Exception as exc:
                logger.warning("LLM answer broke off (%s: %s)", type(exc).__name__, exc)
                yield "\n" + message(turn.lang, "answer_cut")

        return rest()

    def _searching(self, turn: Turn, tool: str) -> str:
        """ "Searching hotels in Lisbon…": the tool's results, and where, in the traveller's language."""
        spec = self._specs.declared.get(tool)
        what = (spec.labels.get(turn.lang) or spec.labels["en"]) if spec is not None else tool
        trip = turn.trip
        to = trip.destination_label or trip.destination_name or trip.destination
        start = trip.origin_name or trip.origin
        if spec is not None and spec.about == "route" and to and start:
            return message(turn.lang, "searching_route", what=what, route=f"{start} → {to}")
        if to:
            return message(turn.lang, "searching_in", what=what, place=to)
        return message(turn.lang, "searching", what=what)

    def _model_sources(self, said: str, turn: Turn, draft: Draft) -> tuple[list[Source], str]:
        """What a model's answer cites, and the lines said after it; its [n] that cite nothing are
        counted in the metrics."""
        sources, unresolved, tail = model_sources(said, turn, draft, self._specs.declared)
        if unresolved:
            self._metrics.unresolved_citations.inc(unresolved)
        return sources, tail

    async def save(self, key: str, place: int, answer: ChatAnswer) -> None:
        """The answer in the history, whole even if a cancel arrives now: it is complete, and the
        history says so. At the place its question kept: after it, whatever this user's other messages
        stored since."""
        frame = answer.frame()
        turn = {"sources": frame["sources"], "tool_calls": frame["tool_calls"], **_with_id(answer.id)}
        await finish(self.sessions.answer(key, place, answer.text, **turn), complete=True)

    async def preview(
        self, user_id: str | None, text: str, timezone: str | None = None, conversation: str | None = None
    ) -> dict[str, Any]:
        """What the chat would do for ``text`` in ``user_id``'s ``conversation`` (a new one without a user),
        as /v1/route answers it: the same decision, but no tool is called and nothing is stored. It takes
        a slot as a message does (the model work is the same)."""
        async with self._admission.slot():
            key = conversation_key(user_id, conversation) if user_id is not None else None
            return route_json(await self.read_turn(key, read_message(text), self.today(timezone)))

    def _checker(self, today: dt.date) -> Check:
        """Each tool's own check of a call's parameters, as the tool would run it on ``today``."""
        return ParamsCheck(self._specs.declared, self._router.catalogue, today)

    def today(self, timezone: str | None = None) -> dt.date:
        """The traveller's date: in their time zone (an IANA name), else UTC; a fixed one in tests."""
        if self._fixed_today is not None:
            return self._fixed_today()
        return dt.datetime.now(ZoneInfo(timezone) if timezone else self._zone).date()


def _places(decision: RouteDecision, trip: TripState) -> list[str]:
    """The places a message may be about: those it names (known or not) and the trip's."""
    slots = decision.slots
    names = [p.place.city_name for p in slots.places] if slots is not None else []
    return [*names, *decision.unknown_places, *([trip.destination_name] if trip.destination_name else [])]


def _mentioned(decision: RouteDecision, trip: TripState, catalogue: LocationCatalogue) -> list[Place]:
    """The places a message may be about, resolved: those it names and the trip's."""
    slots = decision.slots
    out = [p.place for p in slots.places] if slots is not None else []
    here = catalogue.resolve(trip.destination) if trip.destination else None
    return [*out, *([here] if here else [])]


def _with_id(answer_id: str | None) -> dict[str, str]:
    return {"id": answer_id} if answer_id else {}


def _chunk(piece: str) -> WsChunk:
    return WsChunk(type="response", text=piece, chunk=True)
